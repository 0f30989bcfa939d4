/**
 * THE writer of everything under a project directory on disk (its sources, `.platform/` and the
 * engines' files in it): no write, folder, removal or move ever follows a symbolic link, anywhere on
 * the path. Each folder on the way is checked with lstat before the next is made or entered (a link is
 * refused, even one that points back inside); a file is written to a temporary file opened with
 * O_CREAT|O_EXCL|O_NOFOLLOW in its checked folder, then renamed over its name, so a link that appears at
 * the name after the check is replaced, never written through. A refusal is a WriteRefusal (its brand
 * is what commands test); anything else the file system says (a file where a folder goes, no space) is
 * its own Node error.
 *
 * The root itself is trusted: it is the directory the person named, and may be reached through links.
 * What remains is a race with another local process swapping a checked folder for a link while a write
 * is under way; the folder's real path is compared with the checked one just before the rename.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, constants, fchmodSync, lstatSync, mkdirSync, openSync, readdirSync, realpathSync, renameSync, rmSync, writeSync, type Stats } from 'node:fs';
import { join, resolve } from 'node:path';
import { normalizeProjectPath, WriteRefusal } from '../../core/fs/index.ts';

/** Not defined on Windows, where links need privileges to make: the other checks stand. */
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const CREATE_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | O_NOFOLLOW;

export interface WriteOptions {
  /** Permission bits of a new file (default 0o666 less the umask; a file replaced keeps its own). */
  mode?: number;
}

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function notADirectory(path: string): Error {
  return Object.assign(new Error(`ENOTDIR: not a directory, ${path}`), { code: 'ENOTDIR', path });
}

/**
 * The last step of a write, in a folder already checked: the bytes go to a new temporary file (never
 * an existing file or link: O_EXCL|O_NOFOLLOW), which is then renamed over `name` (rename replaces a
 * link at the name; it does not follow it). `temporary` names the temporary file (tests: one an
 * attacker guessed); by default a random name beside the file.
 */
export function replaceFile(folder: string, name: string, data: string | Uint8Array, options: WriteOptions & { temporary?: string } = {}): void {
  const target = join(folder, name);
  const temporary = join(folder, options.temporary ?? `.platform-write-${randomBytes(8).toString('hex')}.tmp`);
  const existing = lstatOrUndefined(target);
  const mode = existing?.isFile() ? existing.mode & 0o7777 : (options.mode ?? 0o666);
  const fd = openSync(temporary, CREATE_NEW, mode);
  try {
    try {
      if (existing?.isFile()) fchmodSync(fd, mode);
      const bytes = typeof data === 'string' ? Buffer.from(data) : data;
      for (let offset = 0; offset < bytes.length; ) offset += writeSync(fd, bytes, offset, bytes.length - offset);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, target);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}

export class ConfinedWriter {
  readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  /** The segments of a project-relative path, or a refusal when it climbs out or is absolute. */
  #segments(path: string): string[] {
    const normal = normalizeProjectPath(path);
    if (normal === undefined) throw new WriteRefusal(path, 'outside');
    return normal === '' ? [] : normal.split('/');
  }

  /**
   * Walks `segments` down from the root, refusing a link at any depth; makes each missing folder when
   * `create`, else stops. The absolute path of the folder, or undefined when one is missing.
   */
  #walk(path: string, segments: string[], create: boolean): string | undefined {
    let folder = this.root;
    for (let i = 0; i < segments.length; i++) {
      const next = join(folder, segments[i]!);
      let info = lstatOrUndefined(next);
      if (!info) {
        if (!create) return undefined;
        try {
          // mkdir never follows a link at its own name: one there, dangling or not, is EEXIST.
          mkdirSync(next);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        }
        info = lstatSync(next);
      }
      if (info.isSymbolicLink()) throw new WriteRefusal(path, 'link', segments.slice(0, i + 1).join('/'));
      if (!info.isDirectory()) throw notADirectory(next);
      folder = next;
    }
    return folder;
  }

  /** Refuses when the folder's real path is no longer the one checked (a folder swapped for a link meanwhile). */
  #stillChecked(path: string, folder: string, segments: string[]): void {
    const expected = segments.length ? join(realpathSync(this.root), ...segments) : realpathSync(this.root);
    if (realpathSync(folder) !== expected) throw new WriteRefusal(path, 'link', segments.join('/'));
  }

  /** Makes a folder (and those on the way) under the root, or checks the one there; its absolute path. */
  folder(path: string): string {
    return this.#walk(path, this.#segments(path), true)!;
  }

  /** A file's folder under the root, made and checked on the way, and its name there; a link at the name is refused. */
  #fileTarget(path: string): { segments: string[]; name: string; folder: string; target: string } {
    const segments = this.#segments(path);
    const name = segments.pop();
    if (name === undefined) throw new WriteRefusal(path, 'outside');
    const folder = this.#walk(path, segments, true)!;
    const target = join(folder, name);
    if (lstatOrUndefined(target)?.isSymbolicLink()) throw new WriteRefusal(path, 'link', [...segments, name].join('/'));
    return { segments, name, folder, target };
  }

  /** Writes a file under the root, making its folders; its absolute path. A link at the file is refused too. */
  writeFile(path: string, data: string | Uint8Array, options: WriteOptions = {}): string {
    const { segments, name, folder, target } = this.#fileTarget(path);
    this.#stillChecked(path, folder, segments);
    replaceFile(folder, name, data, options);
    return target;
  }

  /**
   * Opens a file under the root to write piece by piece (a state export): the same checks as
   * writeFile, the pieces going to the temporary file, which `close` renames over the name (the
   * folder checked again just before); `abort` removes it and leaves the old file.
   */
  openFile(path: string, options: WriteOptions = {}): { write(data: string | Uint8Array): void; close(): string; abort(): void } {
    const { segments, name, folder, target } = this.#fileTarget(path);
    const temporary = join(folder, `.platform-write-${randomBytes(8).toString('hex')}.tmp`);
    const existing = lstatOrUndefined(target);
    const mode = existing?.isFile() ? existing.mode & 0o7777 : (options.mode ?? 0o666);
    const fd = openSync(temporary, CREATE_NEW, mode);
    if (existing?.isFile()) fchmodSync(fd, mode);
    let open = true;
    const finish = () => {
      if (!open) return;
      open = false;
      closeSync(fd);
    };
    return {
      write(data) {
        const bytes = typeof data === 'string' ? Buffer.from(data) : data;
        for (let offset = 0; offset < bytes.length; ) offset += writeSync(fd, bytes, offset, bytes.length - offset);
      },
      close: () => {
        try {
          finish();
          if (lstatOrUndefined(target)?.isSymbolicLink()) throw new WriteRefusal(path, 'link', [...segments, name].join('/'));
          this.#stillChecked(path, folder, segments);
          renameSync(temporary, target);
        } catch (error) {
          rmSync(temporary, { force: true });
          throw error;
        }
        return target;
      },
      abort() {
        finish();
        rmSync(temporary, { force: true });
      },
    };
  }

  /** Removes a file (a link there is removed itself, never its target); nothing when it is not there. */
  remove(path: string): void {
    const segments = this.#segments(path);
    const name = segments.pop();
    if (name === undefined) throw new WriteRefusal(path, 'outside');
    const folder = this.#walk(path, segments, false);
    if (folder !== undefined) rmSync(join(folder, name), { force: true });
  }

  /**
   * Moves a file or folder to a new path under the root (its folders made): neither path may be or
   * pass through a link, and nothing may stand at the destination. False when there was nothing to move.
   */
  move(from: string, to: string): boolean {
    const source = this.#segments(from);
    const sourceName = source.pop();
    const destination = this.#segments(to);
    const destinationName = destination.pop();
    if (sourceName === undefined) throw new WriteRefusal(from, 'outside');
    if (destinationName === undefined) throw new WriteRefusal(to, 'outside');
    const sourceFolder = this.#walk(from, source, false);
    if (sourceFolder === undefined) return false;
    const moving = lstatOrUndefined(join(sourceFolder, sourceName));
    if (!moving) return false;
    if (moving.isSymbolicLink()) throw new WriteRefusal(from, 'link', [...source, sourceName].join('/'));
    const destinationFolder = this.#walk(to, destination, true)!;
    const target = join(destinationFolder, destinationName);
    if (lstatOrUndefined(target)) throw Object.assign(new Error(`EEXIST: ${to} already exists`), { code: 'EEXIST', path: target });
    this.#stillChecked(from, sourceFolder, source);
    this.#stillChecked(to, destinationFolder, destination);
    renameSync(join(sourceFolder, sourceName), target);
    return true;
  }

  /**
   * Makes or checks a folder that another process writes in by itself (workerd's SQLite files under
   * `.platform/state/<mode>`), and refuses a link anywhere inside it: that process would follow one.
   * Its absolute path.
   */
  folderWithoutLinks(path: string): string {
    const folder = this.folder(path);
    const base = normalizeProjectPath(path)!;
    const visit = (absolute: string, relative: string): void => {
      for (const entry of readdirSync(absolute, { withFileTypes: true })) {
        const inner = `${relative}/${entry.name}`;
        if (entry.isSymbolicLink()) throw new WriteRefusal(inner, 'link', inner);
        if (entry.isDirectory()) visit(join(absolute, entry.name), inner);
      }
    };
    visit(folder, base);
    return folder;
  }

  /** Makes the root (and its parents) when it does not exist yet: only for a root the person or the host named. */
  makeRoot(): this {
    mkdirSync(this.root, { recursive: true });
    return this;
  }
}
