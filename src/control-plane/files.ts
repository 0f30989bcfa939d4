/**
 * Files of the control plane's data directory, written atomically and durably: a crash (the process
 * killed, or the machine losing power) leaves the old file or the new one, never half of one, and a
 * write that returned is on disk.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Writes a file by writing a temporary sibling, syncing it, and renaming it over the target; then
 * syncs the directory so that the rename itself is on disk.
 */
export function writeAtomic(path: string, data: string | Uint8Array, mode = 0o600): void {
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  const fd = openSync(temporary, 'w', mode);
  try {
    try {
      const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
      let written = 0;
      while (written < bytes.byteLength) written += writeSync(fd, bytes, written, bytes.byteLength - written);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
  syncDirectory(dirname(path));
}

/** Syncs a directory's entries (a rename into it); where directories cannot be opened (Windows), the rename stands as written. */
function syncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // Not supported here.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
