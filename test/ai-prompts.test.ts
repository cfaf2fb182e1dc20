// The AI chat's texts live in prompts/chat/; mistakes in them fail at start-up, not mid-chat.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CHAT_PROMPTS_DIR, fill, loadChatPrompts } from '../src/engine/ai/prompts.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** A copy of prompts/chat/ with one file replaced. */
function copyWith(file: string, edit: (text: string) => string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ursa-prompts-'));
  dirs.push(dir);
  for (const f of fs.readdirSync(CHAT_PROMPTS_DIR))
    fs.copyFileSync(path.join(CHAT_PROMPTS_DIR, f), path.join(dir, f));
  const p = path.join(dir, file);
  fs.writeFileSync(p, edit(fs.readFileSync(p, 'utf8')));
  return dir;
}

describe('chat prompts', () => {
  it('loads the shipped texts: every nudge present', () => {
    const p = loadChatPrompts();
    expect(p.system).toContain('{{model}}');
    expect(fill(p.nudges.ungrounded, { numbers: '42' })).toContain('42');
  });

  it('refuses an unknown placeholder, naming the file and what it takes', () => {
    const dir = copyWith('system.md', (t) => t.replace('{{today}}', '{{todya}}'));
    expect(() => loadChatPrompts(dir)).toThrow(/system\.md: unknown placeholder \{\{todya\}\}/);
  });

  it('refuses a nudge that is missing', () => {
    const dir = copyWith('nudges.yaml', (t) => t.replace(/^no_answer:.*\n(?: {2}.*\n)*/m, ''));
    expect(() => loadChatPrompts(dir)).toThrow(/nudges\.yaml: no_answer/);
  });

  it('fill() refuses a placeholder given no value', () => {
    expect(() => fill('a {{b}}', {})).toThrow(/\{\{b\}\} has no value/);
  });
});
