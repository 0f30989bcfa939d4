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
}

/** A FileSystem that can also write (the build's `.platform/` output). */
export interface WritableFileSystem extends FileSystem {
  /** Writes a file, creating its folders. */
  writeFile(path: string, data: string | Uint8Array): Promise<void>;
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
