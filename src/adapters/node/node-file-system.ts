/**
 * A FileSystem over a directory on disk that refuses to leave it, through `..` or through a link; its
 * writes go through the ConfinedWriter, which follows no link at all.
 * Reads are synchronous underneath (a project's files are small): an analysis reads every source file
 * and a bundle loads each module, and three trips through the thread pool per file (two realpaths and
 * the read) cost more than the reads themselves. The root's real path is found once (see #realRoot).
 */
import { createReadStream, lstatSync, readdirSync, readFileSync, realpathSync, statSync, type Dirent } from 'node:fs';
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

  /**
   * The root's real path once it was found to be the root's own path (no link on the way to it): then
   * it is kept rather than found again for every read. Kept, it can only refuse more than finding it
   * again would: were the root or a folder above it later swapped for a link, every file's real path
   * would lie outside it and be refused, where a fresh real path of the root would follow the link.
   */
  #realRoot: string | undefined;

  /** The absolute path of a project-relative path, or undefined when it is outside the root. */
  #locate(path: string): string | undefined {
    const normal = normalizeProjectPath(path);
    if (normal === undefined) return undefined;
    const absolute = resolve(this.root, normal);
    let real: string;
    let realRoot: string;
    try {
      real = realpathSync.native(absolute);
      realRoot = this.#realRoot ?? realpathSync.native(this.root);
    } catch {
      return undefined;
    }
    if (realRoot === this.root) this.#realRoot = realRoot;
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

  /**
   * Texts read before, by project path, with the real path they were read at and that file's stamp
   * (see `stampOf`): `platform dev` reads every source of the project on every build, and most are as
   * they were. One is given again while the file at its real path has the same stamp; else it is read
   * again, found anew through `#locate`. Served from a real path inside the root that was a regular file,
   * a kept text never comes from outside it: were the file replaced by a link, its stamp would differ.
   */
  readonly #texts = new Map<string, { real: string; stamp: string; text: string }>();

  async readText(path: string): Promise<string | undefined> {
    const kept = this.#texts.get(path);
    if (kept) {
      if (stampOf(kept.real) === kept.stamp) return kept.text;
      this.#texts.delete(path);
    }
    const absolute = this.#locate(path);
    if (absolute === undefined) return undefined;
    try {
      const stamp = stampOf(absolute, SETTLED_MS);
      const text = readFileSync(absolute, 'utf8');
      if (stamp !== undefined) this.#texts.set(path, { real: absolute, stamp, text });
      return text;
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

  /**
   * The entries of a folder with their kinds, read from the folder itself: a regular file or folder
   * listed in the folder's real path is inside the root with no realpath of its own; a link (or an entry
   * whose type the listing does not give) is judged as `stat` judges it.
   */
  async readDirEntries(path: string): Promise<Array<{ name: string; kind: EntryKind | undefined }>> {
    const absolute = this.#locate(path);
    if (absolute === undefined) return [];
    let listed: Dirent[];
    try {
      listed = readdirSync(absolute, { withFileTypes: true });
    } catch {
      return [];
    }
    const out: Array<{ name: string; kind: EntryKind | undefined }> = [];
    for (const entry of listed.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const kind = entry.isFile() ? 'file' : entry.isDirectory() ? 'directory' : await this.stat(path ? `${path}/${entry.name}` : entry.name);
      out.push({ name: entry.name, kind });
    }
    return out;
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

/**
 * A file's stamp has gone unchanged for this long before its text is kept: file times are coarse
 * (the kernel's clock tick), so a write right after a read could leave the times as they were; one
 * that comes later gives the file a new change time.
 */
const SETTLED_MS = 1000;

/**
 * What identifies a regular file's contents without reading them: its inode, size and modification and
 * change times, in nanoseconds (the change time cannot be set back by a program, as the modification
 * time can). Undefined when nothing, or no regular file, is at the path (not followed if a link), or,
 * with `settledMs`, when the file changed less than that long ago.
 */
function stampOf(real: string, settledMs?: number): string | undefined {
  const info = lstatSync(real, { bigint: true, throwIfNoEntry: false });
  if (!info?.isFile()) return undefined;
  if (settledMs !== undefined && BigInt(Date.now()) * 1_000_000n - (info.ctimeNs > info.mtimeNs ? info.ctimeNs : info.mtimeNs) < BigInt(settledMs) * 1_000_000n) return undefined;
  return `${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}`;
}
