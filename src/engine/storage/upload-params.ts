// The resumable.js chunk parameters (https://github.com/23/resumable.js), checked once
// into a ChunkSpec: which chunk this is, how many bytes it must hold, and where the
// assembled file goes. Every problem is reported together as one 'invalid' error.
import { invalid } from '../errors.js';
import { joinPath, normalizeStoragePath } from './paths.js';

export interface ChunkSpec {
  /** resumableIdentifier, which is also the uploadId (API-DECISIONS "Storage"). */
  ident: string;
  /** 1-based. */
  chunkNumber: number;
  chunkSize: number;
  totalSize: number;
  totalChunks: number;
  /** The bytes this chunk must hold. */
  expectedBytes: number;
  filename: string;
  /** Normalized storage path of the assembled file. */
  targetPath: string;
  /** resumableRelativePath named folders: they are created when missing. */
  createParents: boolean;
}

const IDENT = /^[A-Za-z0-9_.-]{1,200}$/;
const WHOLE = /^[0-9]{1,15}$/;

type Issue = { path: string; message: string };

/** Bytes of chunk `n`: every chunk but the last holds chunkSize, the last holds the rest. */
export function bytesOfChunk(
  n: number,
  s: Pick<ChunkSpec, 'chunkSize' | 'totalSize' | 'totalChunks'>,
) {
  return n < s.totalChunks ? s.chunkSize : s.totalSize - (s.totalChunks - 1) * s.chunkSize;
}

export function parseChunkParams(raw: Record<string, unknown>): ChunkSpec {
  const issues: Issue[] = [];
  const text = (name: string, required: boolean): string | undefined => {
    const v = raw[name];
    if (v === undefined || v === '') {
      if (required) issues.push({ path: name, message: 'is required' });
      return undefined;
    }
    if (typeof v !== 'string' && typeof v !== 'number') {
      issues.push({ path: name, message: 'must be given once, as text' });
      return undefined;
    }
    return String(v);
  };
  const whole = (name: string, min: number, required = true): number | undefined => {
    const v = text(name, required);
    if (v === undefined) return undefined;
    if (!WHOLE.test(v) || Number(v) < min) {
      issues.push({ path: name, message: `must be a whole number of at least ${min}` });
      return undefined;
    }
    return Number(v);
  };
  const storagePath = (name: string, value: string): string | undefined => {
    try {
      return normalizeStoragePath(value);
    } catch (err) {
      issues.push({ path: name, message: (err as Error).message });
      return undefined;
    }
  };

  const chunkNumber = whole('resumableChunkNumber', 1);
  const chunkSize = whole('resumableChunkSize', 1);
  const currentChunkSize = whole('resumableCurrentChunkSize', 0, false);
  const totalSize = whole('resumableTotalSize', 0);
  const totalChunks = whole('resumableTotalChunks', 1);
  text('resumableType', false); // informative only, but still given once

  const ident = text('resumableIdentifier', true);
  // "." and ".." fit the character set but would name the uploads folder or its parent.
  if (ident !== undefined && (!IDENT.test(ident) || /^\.+$/.test(ident)))
    issues.push({
      path: 'resumableIdentifier',
      message: 'must be 1 to 200 of A-Z a-z 0-9 _ . - (and not only dots)',
    });

  const filename = text('resumableFilename', true);
  if (filename !== undefined) {
    if (filename.includes('/')) issues.push({ path: 'resumableFilename', message: 'is a path' });
    else storagePath('resumableFilename', `/${filename}`);
  }
  // Browsers send the file name as the relative path unless a folder was chosen.
  const relative = text('resumableRelativePath', false);
  const relPath =
    relative !== undefined && relative.includes('/')
      ? storagePath('resumableRelativePath', relative)
      : undefined;
  const folderParam = raw.folder !== undefined ? 'folder' : 'resumableTarget';
  const folderText = text(folderParam, false);
  const folder = folderText === undefined ? '/' : storagePath(folderParam, folderText);

  if (
    chunkSize !== undefined &&
    totalSize !== undefined &&
    totalChunks !== undefined &&
    !chunkCountFits(chunkSize, totalSize, totalChunks)
  )
    issues.push({
      path: 'resumableTotalChunks',
      message:
        `${totalChunks} chunks of ${chunkSize} bytes cannot hold ${totalSize} bytes: every chunk ` +
        'but the last holds resumableChunkSize, the last more than 0 and less than twice that',
    });
  else if (chunkNumber !== undefined && totalChunks !== undefined && chunkNumber > totalChunks)
    issues.push({
      path: 'resumableChunkNumber',
      message: `must be between 1 and resumableTotalChunks (${totalChunks})`,
    });
  if (issues.length) throw fail(issues);

  const spec = {
    ident: ident!,
    chunkNumber: chunkNumber!,
    chunkSize: chunkSize!,
    totalSize: totalSize!,
    totalChunks: totalChunks!,
    filename: filename!,
  };
  const expectedBytes = bytesOfChunk(spec.chunkNumber, spec);
  if (currentChunkSize !== undefined && currentChunkSize !== expectedBytes)
    throw fail([
      {
        path: 'resumableCurrentChunkSize',
        message: `chunk ${spec.chunkNumber} of ${spec.totalChunks} must hold ${expectedBytes} bytes, not ${currentChunkSize}`,
      },
    ]);
  const targetPath = normalizeStoragePath(joinPath(folder!, (relPath ?? `/${filename}`).slice(1)));
  return { ...spec, expectedBytes, targetPath, createParents: relPath !== undefined };
}

/** resumable.js rounds the chunk count down (the last chunk takes the rest, up to twice the
 * chunk size) or, with forceChunkSize, up (the last is smaller): both are accepted. */
function chunkCountFits(chunkSize: number, totalSize: number, totalChunks: number): boolean {
  if (totalSize === 0) return totalChunks === 1;
  const last = totalSize - (totalChunks - 1) * chunkSize;
  return last > 0 && last < 2 * chunkSize;
}

/** Every missing parameter is named in the message, the first other problem too. */
function fail(issues: Issue[], what = 'invalid upload chunk') {
  const missing = issues.filter((i) => i.message === 'is required').map((i) => i.path);
  const other = issues.filter((i) => i.message !== 'is required');
  const parts: string[] = [];
  if (missing.length) parts.push(`missing ${missing.join(', ')}`);
  if (other.length) {
    const more = other.length > 1 ? ` (and ${other.length - 1} more)` : '';
    parts.push(`${other[0]!.path}: ${other[0]!.message}${more}`);
  }
  return invalid(`${what}: ${parts.join('; ')}`, {
    issues,
    ...(missing.length ? { missing } : {}),
  });
}

/** True when any resumable.js parameter is given: the request is one chunk of an upload. */
export function isChunk(raw: Record<string, unknown>): boolean {
  return Object.keys(raw).some((k) => k.startsWith('resumable'));
}

/**
 * Where a whole file sent in one request goes: `folder` (default "/") and the file's name,
 * checked like resumableFilename and folder.
 */
export function parseWholeParams(
  raw: Record<string, unknown>,
  filename: string | undefined,
): string {
  const issues: Issue[] = [];
  const check = (name: string, value: string): string | undefined => {
    try {
      return normalizeStoragePath(value);
    } catch (err) {
      issues.push({ path: name, message: (err as Error).message });
      return undefined;
    }
  };
  const folderRaw = raw.folder ?? '/';
  const folder =
    typeof folderRaw === 'string'
      ? check('folder', folderRaw)
      : void issues.push({ path: 'folder', message: 'must be given once, as text' });
  const name = filename ?? '';
  let target: string | undefined;
  if (name === '')
    issues.push({
      path: 'filename',
      message: 'the `file` part needs a file name (curl -F file=@x.csv sends one)',
    });
  else if (name.includes('/') || name.includes('\\'))
    issues.push({ path: 'filename', message: 'is a path, not a file name' });
  else if (folder !== undefined) target = check('filename', joinPath(folder, name));
  if (issues.length) throw fail(issues, 'invalid upload');
  return target!;
}
