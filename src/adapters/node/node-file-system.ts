/** A FileSystem over a directory on disk that refuses to leave it, through `..` or through a link. */
import { mkdir, readdir, readFile, realpath, stat, writeFile } from 'node:fs/promises';
import { dirname, relative, resolve, sep } from 'node:path';
import { normalizeProjectPath, type EntryKind, type WritableFileSystem } from '../../core/fs';

export class NodeFileSystem implements WritableFileSystem {
  readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  /** The absolute path of a project-relative path, or undefined when it is outside the root. */
  async #locate(path: string): Promise<string | undefined> {
    const normal = normalizeProjectPath(path);
    if (normal === undefined) return undefined;
    const absolute = resolve(this.root, normal);
    let real: string;
    let realRoot: string;
    try {
      [real, realRoot] = await Promise.all([realpath(absolute), realpath(this.root)]);
    } catch {
      return undefined;
    }
    return real === realRoot || real.startsWith(realRoot + sep) ? real : undefined;
  }

  async readBytes(path: string): Promise<Uint8Array | undefined> {
    const absolute = await this.#locate(path);
    if (absolute === undefined) return undefined;
    try {
      return new Uint8Array(await readFile(absolute));
    } catch {
      return undefined;
    }
  }

  async writeFile(path: string, data: string | Uint8Array): Promise<void> {
    const normal = normalizeProjectPath(path);
    if (normal === undefined || normal === '') throw new Error(`Refusing to write outside the project: ${path}`);
    const absolute = resolve(this.root, normal);
    await mkdir(dirname(absolute), { recursive: true });
    // The folder now exists: refuse it when a link took it outside the root.
    const realRoot = await realpath(this.root);
    const realDir = await realpath(dirname(absolute));
    const inside = relative(realRoot, realDir);
    if (inside.startsWith('..') || resolve(realRoot, inside) !== realDir) throw new Error(`Refusing to write outside the project: ${path}`);
    await writeFile(absolute, data);
  }

  async readText(path: string): Promise<string | undefined> {
    const absolute = await this.#locate(path);
    if (absolute === undefined) return undefined;
    try {
      return await readFile(absolute, 'utf8');
    } catch {
      return undefined;
    }
  }

  async stat(path: string): Promise<EntryKind | undefined> {
    const absolute = await this.#locate(path);
    if (absolute === undefined) return undefined;
    try {
      const info = await stat(absolute);
      return info.isDirectory() ? 'directory' : info.isFile() ? 'file' : undefined;
    } catch {
      return undefined;
    }
  }

  async readDir(path: string): Promise<string[]> {
    const absolute = await this.#locate(path);
    if (absolute === undefined) return [];
    try {
      return (await readdir(absolute)).sort();
    } catch {
      return [];
    }
  }
}
