/** The file system a command or the compiler reads a project through: project-relative POSIX paths. */

export type EntryKind = 'file' | 'directory';

export interface FileSystem {
  /** The UTF-8 text of a file, or undefined when no file is at the path. */
  readText(path: string): Promise<string | undefined>;
  /** The bytes of a file, or undefined when no file is at the path. */
  readBytes(path: string): Promise<Uint8Array | undefined>;
  /** What is at the path, or undefined when nothing is. */
  stat(path: string): Promise<EntryKind | undefined>;
  /** The names (not paths) directly inside a directory, sorted; empty when it is not a directory. */
  readDir(path: string): Promise<string[]>;
  /** A file's UTF-8 text in chunks, never held whole (a state export of any size); undefined when no file is at the path. Hosts without it read the file whole. */
  readChunks?(path: string): AsyncIterable<string> | undefined;
  /**
   * The entries directly inside a directory, sorted by name, each with what `stat` gives for it: a
   * listing in one call where the host can tell the kinds from the directory itself (a walk of a
   * project then costs a call per folder, not one per file). Hosts without it are asked `readDir` and
   * `stat`.
   */
  readDirEntries?(path: string): Promise<Array<{ name: string; kind: EntryKind | undefined }>>;
}

/** A file being written piece by piece: the old file (if any) stays until `close` puts the new one in its place at once. */
export interface FileWriter {
  write(text: string): Promise<void>;
  close(): Promise<void>;
  /** Discards what was written; the old file stays. */
  abort(): Promise<void>;
}

/** A FileSystem that can also write (the build's `.platform/` output). */
export interface WritableFileSystem extends FileSystem {
  /** Writes a file, creating its folders. */
  writeFile(path: string, data: string | Uint8Array): Promise<void>;
  /** Opens a file to write piece by piece (see FileWriter); hosts without it write the file whole (`writerOf`). */
  openWriter?(path: string): Promise<FileWriter>;
}

/** A FileWriter on any WritableFileSystem: its own when it has one, else the pieces gathered and written whole at close. */
export async function writerOf(fs: WritableFileSystem, path: string): Promise<FileWriter> {
  if (fs.openWriter) return fs.openWriter(path);
  const pieces: string[] = [];
  return {
    write: async (text) => void pieces.push(text),
    close: () => fs.writeFile(path, pieces.join('')),
    abort: async () => void (pieces.length = 0),
  };
}

/** A file's text in chunks on any FileSystem: its own when it has them, else the whole text as one chunk. */
export async function* chunksOfFile(fs: FileSystem, path: string): AsyncIterable<string> {
  const chunks = fs.readChunks?.(path);
  if (chunks) {
    yield* chunks;
    return;
  }
  const text = await fs.readText(path);
  if (text !== undefined) yield text;
}

/**
 * Normalizes a project-relative POSIX path: folds `.` and `x/..`, drops repeated and trailing slashes.
 * Returns undefined when the path is absolute (`/x`, `\x`, `C:`) or climbs out of the project root.
 */
export function normalizeProjectPath(path: string): string | undefined {
  if (path.startsWith('/') || path.startsWith('\\') || /^[A-Za-z]:/.test(path)) return undefined;
  const out: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (out.length === 0) return undefined;
      out.pop();
    } else {
      out.push(segment);
    }
  }
  return out.join('/');
}

/** Whether the project path `path` is inside the folder `folder` (not the folder itself). */
export const isInside = (path: string, folder: string): boolean => path.startsWith(`${folder}/`);

/** Whether the project path `path` is `target` itself or, `target` being a folder, inside it: what a change to `target` applies to. */
export const isAtOrInside = (path: string, target: string): boolean => path === target || isInside(path, target);

/** `path` after `from` (a file or a folder) moved to `to`: it and what is inside it move; any other path stays. */
export function movedPath(path: string, from: string, to: string): string {
  return isAtOrInside(path, from) ? to + path.slice(from.length) : path;
}
