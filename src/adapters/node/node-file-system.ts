/**
 * A FileSystem over a directory on disk that refuses to leave it, through `..` or through a link.
 * Reads are synchronous underneath (a project's files are small): an analysis reads every source file
 * and a bundle loads each module, and three trips through the thread pool per file (two realpaths and
 * the read) cost more than the reads themselves.
 */
import { readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { lstat, mkdir, realpath, writeFile } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import { normalizeProjectPath, type EntryKind, type WritableFileSystem } from '../../core/fs';

export class NodeFileSystem implements WritableFileSystem {
  readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  /** The absolute path of a project-relative path, or undefined when it is outside the root. */
  #locate(path: string): string | undefined {
    const normal = normalizeProjectPath(path);
    if (normal === undefined) return undefined;
    const absolute = resolve(this.root, normal);
    let real: string;
    let realRoot: string;
    try {
      real = realpathSync.native(absolute);
      realRoot = realpathSync.native(this.root);
    } catch {
      return undefined;
    }
    return real === realRoot || real.startsWith(realRoot + sep) ? real : undefined;
  }

  async readBytes(path: string): Promise<Uint8Array | undefined> {
    const absolute = this.#locate(path);
    if (absolute === undefined) return undefined;
    try {
      return new Uint8Array(readFileSync(absolute));
    } catch {
      return undefined;
    }
  }

  /**
   * Writes a file inside the root. Every folder on the way is checked before the next is made: one
   * that a link takes outside the root is refused before anything is created there, and so is a file
   * that is a link to outside.
   */
  async writeFile(path: string, data: string | Uint8Array): Promise<void> {
    const normal = normalizeProjectPath(path);
    if (normal === undefined || normal === '') throw new Error(`Refusing to write outside the project: ${path}`);
    // The root itself may not exist yet (`platform new <directory>`): it is the project, so it is made.
    await mkdir(this.root, { recursive: true });
    const realRoot = await realpath(this.root);
    const isInside = (real: string) => real === realRoot || real.startsWith(realRoot + sep);
    const segments = normal.split('/');
    let folder = realRoot;
    for (const segment of segments.slice(0, -1)) {
      const next = join(folder, segment);
      try {
        await mkdir(next);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      // It existed (perhaps as a link) or was just made inside a folder already known to be inside.
      const real = await realpath(next);
      if (!isInside(real)) throw new Error(`Refusing to write outside the project: ${path}`);
      folder = real;
    }
    const target = join(folder, segments[segments.length - 1]!);
    const existing = await lstat(target).catch(() => undefined);
    if (existing?.isSymbolicLink()) {
      const real = await realpath(target).catch(() => undefined);
      if (real === undefined || !isInside(real)) throw new Error(`Refusing to write outside the project: ${path}`);
    }
    await writeFile(target, data);
  }

  async readText(path: string): Promise<string | undefined> {
    const absolute = this.#locate(path);
    if (absolute === undefined) return undefined;
    try {
      return readFileSync(absolute, 'utf8');
    } catch {
      return undefined;
    }
  }

  async stat(path: string): Promise<EntryKind | undefined> {
    const absolute = this.#locate(path);
    if (absolute === undefined) return undefined;
    try {
      const info = statSync(absolute);
      return info.isDirectory() ? 'directory' : info.isFile() ? 'file' : undefined;
    } catch {
      return undefined;
    }
  }

  async readDir(path: string): Promise<string[]> {
    const absolute = this.#locate(path);
    if (absolute === undefined) return [];
    try {
      return readdirSync(absolute).sort();
    } catch {
      return [];
    }
  }
}
