// Secret files in the data directory (signing key, cookie keys, the secrets key): created once
// with mode 0600. Two processes starting on a fresh directory race; the first file to land
// wins for both (link() fails with EEXIST instead of overwriting).
import fs from 'node:fs';
import path from 'node:path';

/** The file's contents, creating it from `make()` first when it does not exist yet. */
export function readOrCreateSecretFile(file: string, make: () => string): string {
  if (!fs.existsSync(file)) {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, make(), { mode: 0o600 });
    try {
      fs.linkSync(tmp, file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    } finally {
      fs.rmSync(tmp, { force: true });
    }
  }
  return fs.readFileSync(file, 'utf8');
}
