// The Chat screen of the web application in Chromium against the real server, whose AI
// provider is a scripted fake LLM on loopback (OpenAI wire format): a question shows
// "Thinking…" at once and the agent's steps, then the answer with its table, chart and the
// AQL behind its numbers; a follow-up continues the conversation; deleting removes it; the
// plan's daily AI messages are shown and a 402 says why; a server without a provider says
// how to configure one and disables asking.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launch, otherThan, screenshots, signedIn, skipBrowser } from './helpers/app-browser.js';
import { startFakeLlm, type FakeLlm, type FakeToolCall } from './helpers/fake-llm.js';
import { createProject, loadDataset, waitFor, writePlansFile } from './helpers/fixtures.js';
import {
  ADMIN,
  ADMIN_PASSWORD,
  invite,
  startTestServer,
  type TestServer,
} from './helpers/server.js';

const MEMBER = 'chat-member@example.com';
const PASSWORD = 'member-password-1';
const DAILY = 7;
const SALES_AQL = 'SELECT [Region], SUM([Amount]) AS "Sales" ORDER BY 2 DESC';

const call = (name: string, args: Record<string, unknown>, id = `call-${name}`): FakeToolCall => ({
  id,
  name,
  arguments: args,
});

/**
 * Presses Enter in the question box from inside the page and resolves with the ms until
 * "Thinking…" shows, watched as the DOM changes (an answer refused at once removes it again).
 * A string, as the tests compile without the DOM's types.
 */
const PRESS_ENTER_AND_TIME = `new Promise((resolve) => {
  const shown = () => document.querySelector('.chat-live')?.textContent?.includes('Thinking…');
  const seen = new MutationObserver(() => {
    if (!shown()) return;
    seen.disconnect();
    resolve(performance.now() - t0);
  });
  seen.observe(document.body, { subtree: true, childList: true, characterData: true });
  const t0 = performance.now();
  document
    .getElementById('chat-question')
    .dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));
})`;

/** Fills the question box and presses Enter; resolves with the ms until "Thinking…" shows. */
async function ask(page: Page, question: string): Promise<number> {
  await page.getByLabel(/Ask a (follow-up )?question/).fill(question);
  return page.evaluate<number>(PRESS_ENTER_AND_TIME);
}

describe.skipIf(skipBrowser)('the web application: Chat', () => {
  let s: TestServer;
  let plain: TestServer;
  let llm: FakeLlm;
  let plans: { file: string; remove: () => void };
  let project: string;
  let browser: Browser;
  let conversation: string;

  beforeAll(async () => {
    llm = await startFakeLlm();
    plans = writePlansFile({ aiMessagesPerDay: DAILY });
    [s, plain, browser] = await Promise.all([
      startTestServer({
        URSA_AI_PROVIDER: 'openai',
        URSA_AI_BASE_URL: `${llm.url}/v1`,
        URSA_AI_API_KEY: 'k-test',
        URSA_AI_MODEL: 'gpt-test',
        URSA_AI_TIMEOUT_MS: '5000',
        URSA_PLANS_FILE: plans.file,
        URSA_DEFAULT_PLAN: 'free',
      }),
      startTestServer(),
      launch(),
    ]);
    project = await createProject(s, 'chat', 'Sales');
    await loadDataset(
      s,
      project,
      'sales',
      'order_id,region,amount\n1,EU,100\n2,EU,250\n3,US,400\n4,US,50\n5,APAC,75\n',
      'order_id',
      [
        ['order_id', 'A', 'integer', 'Order'],
        ['region', 'A', 'string', 'Region'],
        ['amount', 'F', 'integer', 'Amount'],
      ],
    );
    await invite(s, project, MEMBER);
    await s.engine.accounts.setPassword(MEMBER, PASSWORD);
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
    await s?.close();
    await plain?.close();
    await llm?.close();
    plans?.remove();
  });

  it('asks: progress at once, then the answer with its table, chart and AQL; a follow-up continues', async () => {
    const { page, problems, close } = await signedIn(
      browser,
      s,
      MEMBER,
      PASSWORD,
      `/app/p/${project}/chat`,
    );
    try {
      await page.getByRole('heading', { name: 'Chat', level: 1 }).waitFor();
      await page.getByText(`0 of ${DAILY}`).waitFor();
      llm.script(
        { toolCalls: [call('run_aql', { aql: SALES_AQL })], delayMs: 300 },
        {
          toolCalls: [call('make_chart', { query: 'q1', mark: 'bar', x: 'Region', y: 'Sales' })],
          delayMs: 700,
        },
        {
          text:
            'The **US** sells the most: 450, ahead of EU (350) and APAC (75).\n\n' +
            '| Region | Sales |\n|---|---:|\n| US | 450 |\n| EU | 350 |\n| APAC | 75 |',
          delayMs: 700,
        },
      );
      // "Thinking…" shows within 300 ms of pressing Enter (measured in the page).
      expect(await ask(page, 'Which region sells the most?')).toBeLessThan(300);
      const live = page.getByRole('status');
      // The job's progress: the query the agent ran, then the chart it drew.
      await live.getByText('Ran a query (q1)').waitFor();
      await live.getByText(/step \d/).waitFor();
      await live.getByText('Drew a chart').waitFor();

      const answer = page.locator('.chat-answer').first();
      await answer.getByText('sells the most').waitFor();
      await page.waitForURL((u) => /\/chat\/[\w-]+$/.test(u.pathname));
      conversation = new URL(page.url()).pathname.split('/').pop()!;
      expect(new URL(page.url()).pathname).toBe(`/app/p/${project}/chat/${conversation}`);
      await page.getByRole('heading', { name: 'Which region sells the most?', level: 1 }).waitFor();
      // The answer's Markdown: bold text and its table.
      expect(await answer.locator('strong').first().textContent()).toBe('US');
      const table = answer.locator('.chat-md table');
      expect(await table.locator('th').allTextContents()).toEqual(['Region', 'Sales']);
      expect(await table.locator('tbody tr').first().locator('td').allTextContents()).toEqual([
        'US',
        '450',
      ]);
      // The chart: the server's SVG as a data: image, described for those who cannot see it.
      const chart = answer.getByRole('img', { name: /Bar chart of Sales by Region/ });
      expect(await chart.getAttribute('alt')).toContain('US 450');
      expect(await chart.getAttribute('src')).toMatch(/^data:image\/svg\+xml;charset=utf-8,%3Csvg/);
      await expect
        .poll(() =>
          chart.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth),
        )
        .toBeGreaterThan(0);
      // The AQL behind the number, folded until asked for.
      const aql = answer.locator('.chat-aql');
      expect(await aql.isVisible()).toBe(false);
      await answer.getByText('Query q1').click();
      expect(await aql.textContent()).toBe(SALES_AQL);
      expect(
        await answer.locator('.chat-result tbody tr').first().locator('td').allTextContents(),
      ).toEqual(['US', '450']);
      await page.getByText(`1 of ${DAILY}`).waitFor();
      // The conversation is listed, and is the open one.
      const side = page.getByRole('complementary', { name: 'Conversations' });
      await side.getByRole('link', { name: /Which region sells the most/ }).waitFor();

      // A follow-up in the same conversation, sent with the button; links are safe.
      llm.script({
        text:
          'The least is **APAC** with 75: see [the sales dashboard](https://example.com/sales) ' +
          '(not [this](javascript:alert(document.domain))).',
        delayMs: 300,
      });
      await page.getByLabel('Ask a follow-up question').fill('And the least?');
      await page.getByRole('button', { name: 'Send' }).click();
      await page.getByText('Thinking…').waitFor();
      const second = page.locator('.chat-answer').nth(1);
      await second.getByText('The least is').waitFor();
      expect(new URL(page.url()).pathname).toBe(`/app/p/${project}/chat/${conversation}`);
      const link = second.getByRole('link', { name: 'the sales dashboard' });
      expect(await link.getAttribute('href')).toBe('https://example.com/sales');
      expect(await second.getByRole('link').count()).toBe(1);
      expect(await second.locator('.chat-md p').textContent()).toContain('(not this).');
      // The model saw the first turn: the follow-up went to the same conversation.
      expect(JSON.stringify(llm.requests.at(-1)!.body)).toContain('Which region sells the most?');
      const view = await s.api('GET', `/projects/${project}/app/ai/conversations/${conversation}`, {
        as: MEMBER,
      });
      expect(view.json.conversation.messages.map((m: { question: string }) => m.question)).toEqual([
        'Which region sells the most?',
        'And the least?',
      ]);
      await page.getByText(`2 of ${DAILY}`).waitFor();
      await screenshots(page, 'chat');

      // Opened afresh at its address, the conversation shows both answers.
      await page.reload();
      await page.locator('.chat-answer').nth(1).getByText('The least is').waitFor();
      expect(await page.locator('.chat-turn').count()).toBe(2);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  }, 40_000);

  it('writes a query table’s measures as numbers (the metric’s format) and years as they are', async () => {
    // A project of its own, so the plan's daily count of the main one stays as the tests expect.
    const orders = await createProject(s, 'chat-formats', 'Orders');
    await loadDataset(
      s,
      orders,
      'orders',
      'order_no,year,revenue\n1,2023,1200000\n2,2023,34567\n3,2024,2500\n',
      'order_no',
      [
        ['order_no', 'A', 'integer', 'Order'],
        ['year', 'A', 'integer', 'Year'],
        ['revenue', 'F', 'integer', 'Revenue'],
      ],
    );
    const metric = await s.api('POST', `/projects/${orders}/pmd/obj`, {
      body: [
        {
          type: 'metric',
          name: 'Total Revenue',
          def: { aql: 'SELECT SUM([Revenue])', format: '#,##0" €"' },
        },
      ],
    });
    expect(metric.status, metric.text).toBe(201);
    await invite(s, orders, MEMBER);
    const { page, problems, close } = await signedIn(
      browser,
      s,
      MEMBER,
      PASSWORD,
      `/app/p/${orders}/chat`,
    );
    try {
      await page.getByRole('heading', { name: 'Chat', level: 1 }).waitFor();
      llm.script(
        {
          toolCalls: [
            call('run_aql', {
              aql: 'SELECT [Year], SUM([Revenue]) AS "Revenue sum", [Total Revenue] ORDER BY 1',
            }),
          ],
        },
        { text: 'Revenue by year is in the table below.' },
      );
      await ask(page, 'Revenue by year?');
      const answer = page.locator('.chat-answer').first();
      await answer.getByText('Revenue by year is in').waitFor();
      await answer.getByText('Query q1').click();
      const result = answer.locator('.chat-result');
      expect(await result.locator('th').allTextContents()).toEqual([
        'Year',
        'Revenue sum',
        'Total Revenue',
      ]);
      const cells = (n: number) =>
        result.locator('tbody tr').nth(n).locator('td').allTextContents();
      // The year is a dimension (2023, not 2,023); a measure is grouped, or in its metric's format.
      expect(await cells(0)).toEqual(['2023', '1,234,567', '1,234,567 €']);
      expect(await cells(1)).toEqual(['2024', '2,500', '2,500 €']);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  }, 40_000);

  it('deletes a conversation after confirming', async () => {
    const { page, problems, close } = await signedIn(
      browser,
      s,
      MEMBER,
      PASSWORD,
      `/app/p/${project}/chat/${conversation}`,
    );
    try {
      const side = page.getByRole('complementary', { name: 'Conversations' });
      const del = side.getByRole('button', { name: 'Delete conversation “Which region' });
      await del.waitFor();
      page.once('dialog', (d) => void d.dismiss());
      await del.click();
      expect(await side.getByRole('link', { name: /Which region/ }).count()).toBe(1);
      page.once('dialog', (d) => void d.accept());
      await del.click();
      await side.getByText('No conversations yet.').waitFor();
      await page.waitForURL((u) => u.pathname === `/app/p/${project}/chat`);
      const gone = await s.api('GET', `/projects/${project}/app/ai/conversations/${conversation}`, {
        as: MEMBER,
      });
      expect(gone.status).toBe(404);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('says when a question fails, and stops one on request', async () => {
    const { page, problems, close } = await signedIn(
      browser,
      s,
      MEMBER,
      PASSWORD,
      `/app/p/${project}/chat`,
    );
    try {
      await page.getByText(`2 of ${DAILY}`).waitFor();
      llm.script({ status: 500, message: 'the model is down' });
      await ask(page, 'Anything?');
      await page
        .locator('.chat-failed')
        .getByText(/Not answered: the AI provider failed/)
        .waitFor();
      await page.waitForURL((u) => /\/chat\/[\w-]+$/.test(u.pathname));
      // A slow answer, stopped: the job is cancelled and the turn says so.
      llm.script({ text: 'Too late.', delayMs: 4000 });
      const sent = llm.requests.length;
      await ask(page, 'Something slow?');
      // Stopped while the model answers: stopped before, the scripted turn would be left for
      // the next test's question.
      await waitFor(() => (llm.requests.length > sent ? true : undefined), 10_000);
      await page.getByRole('button', { name: 'Stop' }).click();
      await page
        .locator('.chat-failed')
        .nth(1)
        .getByText('Stopped before it was answered.')
        .waitFor();
      expect(await page.locator('.chat-turn').count()).toBe(2);
      expect(await page.getByLabel('Ask a follow-up question').isDisabled()).toBe(false);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('renders the answer’s Markdown (marked’s tokens) as elements, raw HTML and unsafe links as text', async () => {
    const { page, problems, close } = await signedIn(
      browser,
      s,
      MEMBER,
      PASSWORD,
      `/app/p/${project}/chat`,
    );
    try {
      page.setDefaultTimeout(10_000);
      await page.getByText(`4 of ${DAILY}`).waitFor();
      llm.script({
        // Numbers under 10 only: larger ones would be sent back to be grounded in a query.
        text: [
          'Overview',
          '========',
          '',
          'See the [sales dashboard][dash], **bold**, _em_, ~~old~~ and `SUM([Amount])`.',
          'A first line  ',
          'then a break.',
          '',
          '    an indented code block',
          '',
          '3. third',
          '4. fourth',
          '   - nested',
          '',
          '> quoted',
          '',
          '| Region | Sales |',
          '|:--|--:|',
          '| US | 4 |',
          '',
          '<b id="raw">raw</b> and [bad](javascript:alert(1)) and [ours](/app/p/x/dashboards)',
          '',
          '[dash]: https://example.com/sales',
        ].join('\n'),
      });
      await ask(page, 'Show me every kind of Markdown');
      const md = page.locator('.chat-answer .chat-md').first();
      await md.getByText('quoted').waitFor();
      // A setext heading, under the question's h3. The whole answer renders at once, so it is
      // there with the quote; the message shows what was rendered if it is not (a CI flake).
      const heading = md.getByRole('heading', { name: 'Overview', level: 4 });
      expect(await heading.count(), await md.innerHTML()).toBe(1);
      expect(await heading.isVisible()).toBe(true);
      // A reference-style link resolves to its definition, which is not shown.
      expect(await md.getByRole('link', { name: 'sales dashboard' }).getAttribute('href')).toBe(
        'https://example.com/sales',
      );
      expect(await md.textContent()).not.toContain('[dash]');
      expect(await md.locator('strong').textContent()).toBe('bold');
      expect(await md.locator('em').textContent()).toBe('em');
      expect(await md.locator('del').textContent()).toBe('old');
      expect(await md.locator('p > code').textContent()).toBe('SUM([Amount])');
      expect(await md.locator('p br').count()).toBe(1);
      expect(await md.locator('pre > code').textContent()).toBe('an indented code block');
      // An ordered list starting at 3, with a list nested in its item.
      const ol = md.locator('ol');
      expect(await ol.getAttribute('start')).toBe('3');
      expect(await ol.locator(':scope > li').count()).toBe(2);
      expect(await ol.locator('li ul li').textContent()).toBe('nested');
      expect(await md.locator('blockquote').textContent()).toBe('quoted');
      // Alignment from the delimiter row.
      expect(await md.locator('th').evaluateAll((t) => t.map((e) => e.className))).toEqual([
        'chat-al-l',
        'chat-al-r',
      ]);
      expect(await md.locator('td').evaluateAll((t) => t.map((e) => e.className))).toEqual([
        'chat-al-l',
        'chat-al-r',
      ]);
      // Raw HTML is text, a javascript: link its text only, our own path a link.
      expect(await md.locator('#raw, b').count()).toBe(0);
      expect(await md.textContent()).toContain('<b id="raw">raw</b> and bad and ours');
      expect(await md.getByRole('link').count()).toBe(2);
      expect(await md.getByRole('link', { name: 'ours' }).getAttribute('href')).toBe(
        '/app/p/x/dashboards',
      );
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('labels AI messages as such in the Admin’s activity', async () => {
    const { page, problems, close } = await signedIn(
      browser,
      s,
      ADMIN,
      ADMIN_PASSWORD,
      `/app/p/${project}/admin/activity?types=user_action`,
    );
    try {
      await page.getByRole('table', { name: 'Activity' }).waitFor();
      const kindOf = (what: RegExp) =>
        page.getByRole('row').filter({ hasText: what }).first().locator('td.kind').textContent();
      expect(await kindOf(/^AI message OK/)).toBe('AI messages');
      expect(await kindOf(new RegExp(`invited ${MEMBER}`))).toBe('Member changes');
      expect(
        await page.getByRole('checkbox', { name: 'Member changes and AI messages' }).isChecked(),
      ).toBe(true);
      expect(problems).toEqual([]);
    } finally {
      await close();
    }
  });

  it('shows the plan’s daily AI messages and the API’s message beyond them (402)', async () => {
    llm.script({ text: 'Five orders.' }, { text: 'Five orders.' });
    for (const question of ['How many orders?', 'How many orders again?']) {
      const r = await s.api('POST', `/projects/${project}/app/ai/messages`, {
        as: MEMBER,
        body: { question },
      });
      expect(r.status, r.text).toBe(202);
      await s.engine.jobs.waitFor(r.json.link[0].id);
    }
    const { page, problems, close } = await signedIn(
      browser,
      s,
      MEMBER,
      PASSWORD,
      `/app/p/${project}/chat`,
    );
    try {
      await page.getByText(`${DAILY} of ${DAILY}`).waitFor();
      await page.getByText('The plan’s daily limit is reached').waitFor();
      await ask(page, 'One more?');
      const alert = page.getByRole('alert');
      await alert.getByText(/plan limit "aiMessagesPerDay" exceeded/).waitFor();
      // The question is kept to send later.
      expect(await page.getByLabel('Ask a question about the data').inputValue()).toBe('One more?');
      expect(await page.locator('.chat-turn').count()).toBe(0);
      expect(otherThan(problems, 402)).toEqual([]);
    } finally {
      await close();
    }
  });

  it('says before anyone types that no AI model is configured: what a member does, how an Admin configures it', async () => {
    await invite(plain, plain.demo, MEMBER);
    await plain.engine.accounts.setPassword(MEMBER, PASSWORD);
    for (const who of [ADMIN, MEMBER]) {
      const { page, problems, close } = await signedIn(
        browser,
        plain,
        who,
        who === ADMIN ? ADMIN_PASSWORD : PASSWORD,
        `/app/p/${plain.demo}/chat`,
      );
      try {
        const note = page.locator('#chat-unavailable');
        await note.getByText('no AI model is configured on this server').waitFor();
        const box = page.getByLabel('Ask a question about the data');
        expect(await box.isDisabled()).toBe(true);
        expect(await page.getByRole('button', { name: 'Send' }).isDisabled()).toBe(true);
        expect(await box.getAttribute('aria-describedby')).toBe('chat-unavailable');
        // Explore instead, for everyone.
        expect(await note.getByRole('link', { name: 'Explore' }).getAttribute('href')).toBe(
          `/app/p/${plain.demo}/explore`,
        );
        const how = note.getByText(/set URSA_AI_PROVIDER/);
        const ask = note.getByText(/ask an Admin of/);
        if (who === ADMIN) {
          await how.waitFor();
          expect(await ask.count()).toBe(0);
          await note.getByRole('link', { name: 'How to configure the AI chat' }).waitFor();
        } else {
          await ask.waitFor();
          expect(await how.count()).toBe(0);
        }
        await screenshots(page, `chat-unavailable-${who === ADMIN ? 'admin' : 'member'}`);
        // Nothing was asked: no 503 to see.
        expect(problems).toEqual([]);
      } finally {
        await close();
      }
    }
  });
});
