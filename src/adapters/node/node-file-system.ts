/** A FileSystem over a directory on disk that refuses to leave it, through `..` or through a link. */
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { resolve, sep } from 'node:path';
import { normalizeProjectPath, type EntryKind, type FileSystem } from '../../core/fs';

export class NodeFileSystem implements FileSystem {
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
