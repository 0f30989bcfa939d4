/**
 * A FileSystem over a directory on disk that refuses to leave it, through `..` or through a link; its
 * writes go through the ConfinedWriter, which follows no link at all.
 * Reads are synchronous underneath (a project's files are small): an analysis reads every source file
 * and a bundle loads each module, and three trips through the thread pool per file (two realpaths and
 * the read) cost more than the reads themselves.
 */
import { createReadStream, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { resolve, sep } from 'node:path';
import { normalizeProjectPath, type EntryKind, type FileWriter, type WritableFileSystem } from '../../core/fs';
import { ConfinedWriter } from './confined-writer';

export class NodeFileSystem implements WritableFileSystem {
  readonly root: string;
  readonly #writer: ConfinedWriter;

  constructor(root: string) {
    this.root = resolve(root);
    this.#writer = new ConfinedWriter(this.root);
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
   * Writes a file inside the root through the ConfinedWriter: no link is followed anywhere on the path
   * (a WriteRefusal). The root itself is made when it does not exist yet (`platform new <directory>`).
   */
  async writeFile(path: string, data: string | Uint8Array): Promise<void> {
    this.#writer.makeRoot().writeFile(path, data);
  }

  /** Writes a file piece by piece through the ConfinedWriter: put in place at close, the old file kept until then. */
  async openWriter(path: string): Promise<FileWriter> {
    const file = this.#writer.makeRoot().openFile(path);
    return {
      write: async (text) => file.write(text),
      close: async () => void file.close(),
      abort: async () => file.abort(),
    };
  }

  readChunks(path: string): AsyncIterable<string> | undefined {
    const absolute = this.#locate(path);
    if (absolute === undefined) return undefined;
    try {
      if (!statSync(absolute).isFile()) return undefined;
    } catch {
      return undefined;
    }
    // A 1 MiB read at a time, decoded as UTF-8 across chunk boundaries.
    return createReadStream(absolute, { encoding: 'utf8', highWaterMark: 1 << 20 }) as AsyncIterable<string>;
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
