/** Files of the control plane's data directory, written atomically: a crash leaves the old file or the new one, never half of one. */
import { randomBytes } from 'node:crypto';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** Writes a file by writing a temporary sibling and renaming it over the target. */
export function writeAtomic(path: string, data: string | Uint8Array, mode = 0o600): void {
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(temporary, data, { mode });
  renameSync(temporary, path);
}
