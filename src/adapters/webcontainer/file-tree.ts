/**
 * Project files (project-relative POSIX paths → text or bytes) as a WebContainer `FileSystemTree`, and
 * what to write and remove to bring a mounted project up to date. Pure: no WebContainer needed.
 */
import type { DirectoryNode, FileNode, FileSystemTree } from '@webcontainer/api';
import { sameContent } from '../../core/bytes.ts';

export type ProjectFiles = Readonly<Record<string, string | Uint8Array>>;

/** A project path that cannot be mounted: absolute, climbing out, empty segments, or a file under a file. */
export class UnmountablePathError extends Error {
  readonly path: string;
  constructor(path: string, why: string) {
    super(`Cannot mount "${path}": ${why}.`);
    this.name = 'UnmountablePathError';
    this.path = path;
  }
}

function segmentsOf(path: string): string[] {
  if (path.startsWith('/') || path.startsWith('\\') || /^[A-Za-z]:/.test(path)) throw new UnmountablePathError(path, 'the path is absolute');
  const segments = path.split('/');
  for (const segment of segments) {
    if (segment === '' || segment === '.') throw new UnmountablePathError(path, 'the path has an empty or "." segment');
    if (segment === '..') throw new UnmountablePathError(path, 'the path climbs out of the project');
  }
  return segments;
}

/** The tree `WebContainer.mount` takes: a directory node per folder, a file node per file. */
export function toFileSystemTree(files: ProjectFiles): FileSystemTree {
  const root: FileSystemTree = {};
  for (const path of Object.keys(files).sort()) {
    const segments = segmentsOf(path);
    let dir = root;
    for (const name of segments.slice(0, -1)) {
      const node = dir[name];
      if (node === undefined) {
        const created: DirectoryNode = { directory: {} };
        dir[name] = created;
        dir = created.directory;
      } else if ('directory' in node) {
        dir = node.directory;
      } else {
        throw new UnmountablePathError(path, `"${name}" is a file`);
      }
    }
    const name = segments[segments.length - 1]!;
    if (dir[name] !== undefined) throw new UnmountablePathError(path, 'a folder has the same path');
    dir[name] = { file: { contents: files[path]! } } satisfies FileNode;
  }
  return root;
}

/** The tree with `tree` placed under `folder` (a project-relative path such as `.platform-toolchain`). */
export function underFolder(folder: string, tree: FileSystemTree): FileSystemTree {
  return segmentsOf(folder).reduceRight<FileSystemTree>((inner, name) => ({ [name]: { directory: inner } }), tree);
}

export interface SyncPlan {
  /** Files to write (new or changed), path → contents. */
  write: Record<string, string | Uint8Array>;
  /** Files to remove (gone from the project). */
  remove: string[];
}

/**
 * What brings a container's copy of the project from `mounted` to `next`. A command runs over the files
 * as they are now, so the terminal syncs before each one; `mount` alone would leave deleted files behind.
 */
export function planSync(mounted: ProjectFiles, next: ProjectFiles): SyncPlan {
  const write: Record<string, string | Uint8Array> = {};
  for (const [path, contents] of Object.entries(next)) {
    segmentsOf(path);
    const before = mounted[path];
    if (before === undefined || !sameContent(before, contents)) write[path] = contents;
  }
  const remove = Object.keys(mounted).filter((path) => next[path] === undefined).sort();
  return { write, remove };
}
