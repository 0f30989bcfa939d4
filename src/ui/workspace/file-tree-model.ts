/**
 * The file tree's model, apart from its view (file-tree.tsx): the tree built from file paths and the
 * folder placeholders, the rows in display order, which names may be used, and what a key press on a
 * row asks for (where paths go when a folder is renamed is core/fs's `movedPath`). Pure functions, tested alone
 * (file-tree-model.test.ts); the component holds the view state and renders it.
 */
import { isInside } from '../../core/fs';

export interface FolderNode {
  kind: 'folder';
  name: string;
  path: string;
  children: TreeNode[];
  /** A placeholder: no file under it yet. */
  empty: boolean;
}
export interface FileNode {
  kind: 'file';
  name: string;
  path: string;
}
export type TreeNode = FolderNode | FileNode;
/** A file or a folder, by path. */
export type TreeItem = { kind: 'file' | 'folder'; path: string };
/** A row of the tree as shown: the node and the path of the folder it is in. */
export type TreeRow = { node: TreeNode; parent: string };

/** A row's key: `f:` or `d:` and its path (a file and a folder may share a path only in name). */
export const keyOf = (node: TreeItem) => `${node.kind === 'file' ? 'f' : 'd'}:${node.path}`;
export const parentOf = (path: string) => (path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '');
export const nameOf = (path: string) => path.slice(path.lastIndexOf('/') + 1);
export const join = (parent: string, name: string) => (parent ? `${parent}/${name}` : name);

/** The tree of `files` and the placeholder folders: folders first, then files, each by name. */
export function buildTree(files: readonly string[], placeholders: readonly string[]): FolderNode {
  const root: FolderNode = { kind: 'folder', name: '', path: '', children: [], empty: false };
  const folders = new Map<string, FolderNode>([['', root]]);
  const folder = (path: string, empty: boolean): FolderNode => {
    const existing = folders.get(path);
    if (existing) {
      if (!empty) existing.empty = false;
      return existing;
    }
    const node: FolderNode = { kind: 'folder', name: nameOf(path), path, children: [], empty };
    folders.set(path, node);
    folder(parentOf(path), empty).children.push(node);
    return node;
  };
  for (const path of files) folder(parentOf(path), false).children.push({ kind: 'file', name: nameOf(path), path });
  for (const path of placeholders) folder(path, true);
  const sort = (node: FolderNode) => {
    node.children.sort((a, b) => (a.kind === b.kind ? a.name.localeCompare(b.name) : a.kind === 'folder' ? -1 : 1));
    for (const child of node.children) if (child.kind === 'folder') sort(child);
  };
  sort(root);
  return root;
}

/** The rows in display order (what arrow keys walk): a collapsed folder's rows are left out. */
export function visibleRows(tree: FolderNode, collapsed: ReadonlySet<string>): TreeRow[] {
  const out: TreeRow[] = [];
  const walk = (folder: FolderNode) => {
    for (const child of folder.children) {
      out.push({ node: child, parent: folder.path });
      if (child.kind === 'folder' && !collapsed.has(child.path)) walk(child);
    }
  };
  walk(tree);
  return out;
}

/**
 * Why a name cannot be used for a new or renamed item in `parent`, or undefined when it can. `name` is
 * what was typed (relative to `parent`, the folder's path or `''`); `replacing` is the item being
 * renamed, whose paths do not count as taken.
 */
export function validateName(name: string, parent: string, files: readonly string[], placeholders: readonly string[] = [], replacing?: TreeItem): string | undefined {
  if (name.trim() === '') return 'Enter a name.';
  if (name !== name.trim()) return 'A name cannot start or end with spaces.';
  if (name.startsWith('/')) return 'A name cannot start with “/”: paths are relative to the project.';
  if (name.includes('\\')) return 'Use “/” to separate folders, not “\\”.';
  const path = join(parent, name);
  const segments = path.split('/');
  if (segments.some((s) => s === '')) return 'A path cannot have an empty segment (“//” or a trailing “/”).';
  if (segments.some((s) => s === '..' || s === '.')) return '“..” and “.” are not allowed in a path.';
  if (/[\u0000-\u001f]/.test(path)) return 'A name cannot contain control characters.';
  const owned = (p: string) => replacing !== undefined && (p === replacing.path || (replacing.kind === 'folder' && isInside(p, replacing.path)));
  const others = files.filter((f) => !owned(f));
  const otherPlaceholders = placeholders.filter((p) => !owned(p));
  if (replacing?.kind === 'folder' && isInside(path, replacing.path)) return 'A folder cannot be moved into itself.';
  if (others.includes(path)) return `A file named “${path}” already exists.`;
  if (others.some((f) => isInside(f, path)) || otherPlaceholders.includes(path)) return `A folder named “${path}” already exists.`;
  for (let i = 1; i < segments.length; i++) {
    const prefix = segments.slice(0, i).join('/');
    if (others.includes(prefix)) return `“${prefix}” is a file, not a folder.`;
  }
  return undefined;
}


/** The row to focus once `item` is deleted: the first after it that is not inside it, else the one before it. */
export function rowAfterDelete(visible: readonly TreeRow[], item: TreeItem): TreeRow | undefined {
  const index = visible.findIndex((v) => keyOf(v.node) === keyOf(item));
  return visible.slice(index + 1).find((v) => v.node.path !== item.path && !isInside(v.node.path, item.path)) ?? visible.slice(0, Math.max(0, index)).reverse()[0];
}

/** What a key press on a row asks for; `none` is a key the tree takes that changes nothing there. */
export type TreeKeyAction =
  | { kind: 'focus'; key: string }
  | { kind: 'toggle'; path: string; open?: boolean }
  | { kind: 'select'; path: string }
  | { kind: 'rename'; item: TreeItem }
  | { kind: 'delete'; item: TreeItem }
  | { kind: 'none' };

/**
 * What `key` on the row of `node` (in the folder `parent`) asks for, or undefined for a key the tree
 * leaves to the page. Arrows move through `visible` (Right opens a folder, then enters it; Left closes
 * it, then goes to its parent), Home and End go to the ends, Enter or Space opens a file or toggles a
 * folder (not with Ctrl, Meta or Alt: those are the page's shortcuts), F2 renames, Delete asks to delete.
 */
export function keyAction(key: string, modifiers: { ctrl: boolean; meta: boolean; alt: boolean }, node: TreeNode, parent: string, visible: readonly TreeRow[], collapsed: ReadonlySet<string>): TreeKeyAction | undefined {
  const index = visible.findIndex((v) => keyOf(v.node) === keyOf(node));
  const move = (to: number): TreeKeyAction => {
    const target = visible[Math.max(0, Math.min(visible.length - 1, to))];
    return target ? { kind: 'focus', key: keyOf(target.node) } : { kind: 'none' };
  };
  const open = node.kind === 'folder' && !collapsed.has(node.path);
  switch (key) {
    case 'ArrowDown':
      return move(index + 1);
    case 'ArrowUp':
      return move(index - 1);
    case 'Home':
      return move(0);
    case 'End':
      return move(visible.length - 1);
    case 'ArrowRight':
      if (node.kind !== 'folder') return undefined;
      if (!open) return { kind: 'toggle', path: node.path, open: true };
      return node.children[0] ? { kind: 'focus', key: keyOf(node.children[0]) } : { kind: 'none' };
    case 'ArrowLeft':
      if (open) return { kind: 'toggle', path: node.path, open: false };
      return parent ? { kind: 'focus', key: `d:${parent}` } : { kind: 'none' };
    case 'Enter':
    case ' ':
      if (modifiers.ctrl || modifiers.meta || modifiers.alt) return undefined;
      return node.kind === 'file' ? { kind: 'select', path: node.path } : { kind: 'toggle', path: node.path };
    case 'F2':
      return { kind: 'rename', item: node };
    case 'Delete':
      return { kind: 'delete', item: node };
    default:
      return undefined;
  }
}
