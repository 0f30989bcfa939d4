/** The file tree's model (file-tree-model.ts): the tree, its rows, names, renames and the keyboard, without a DOM. */
import { describe, expect, it } from 'vitest';
import { buildTree, keyAction, keyOf, rowAfterDelete, validateName, visibleRows, type TreeNode } from './file-tree-model';

const FILES = ['src/server/index.ts', 'src/client/main.tsx', 'src/client/app.tsx', 'README.md', 'app.manifest.json'];
const none = { ctrl: false, meta: false, alt: false };

describe('the file tree model', () => {
  it('builds folders first, then files, each by name, with placeholders marked empty', () => {
    const tree = buildTree(FILES, ['src/shared', 'docs/notes']);
    expect(tree.children.map((n) => `${n.kind}:${n.name}`)).toEqual(['folder:docs', 'folder:src', 'file:app.manifest.json', 'file:README.md']);
    const src = tree.children[1] as Extract<TreeNode, { kind: 'folder' }>;
    expect(src.children.map((n) => `${n.kind}:${n.name}${n.kind === 'folder' && n.empty ? ' (empty)' : ''}`)).toEqual(['folder:client', 'folder:server', 'folder:shared (empty)']);
    const docs = tree.children[0] as Extract<TreeNode, { kind: 'folder' }>;
    expect(docs.empty).toBe(true);
    // A placeholder that holds a file is an ordinary folder.
    const filled = buildTree([...FILES, 'src/shared/a.ts'], ['src/shared']).children[0] as Extract<TreeNode, { kind: 'folder' }>;
    expect(filled.children[2]).toMatchObject({ name: 'shared', empty: false });
  });

  it('shows the rows of open folders only, in order', () => {
    const tree = buildTree(FILES, []);
    expect(visibleRows(tree, new Set()).map((r) => r.node.path)).toEqual(['src', 'src/client', 'src/client/app.tsx', 'src/client/main.tsx', 'src/server', 'src/server/index.ts', 'app.manifest.json', 'README.md']);
    expect(visibleRows(tree, new Set(['src/client'])).map((r) => r.node.path)).toEqual(['src', 'src/client', 'src/server', 'src/server/index.ts', 'app.manifest.json', 'README.md']);
    expect(visibleRows(tree, new Set(['src'])).map((r) => `${r.parent}|${r.node.path}`)).toEqual(['|src', '|app.manifest.json', '|README.md']);
  });

  it('refuses names that cannot be used, and takes the renamed item’s own paths as free', () => {
    expect(validateName('', '', FILES)).toBe('Enter a name.');
    expect(validateName(' a.ts', '', FILES)).toBe('A name cannot start or end with spaces.');
    expect(validateName('/a.ts', '', FILES)).toMatch(/cannot start with “\/”/);
    expect(validateName('a\\b.ts', '', FILES)).toMatch(/not “\\”/);
    expect(validateName('a//b.ts', '', FILES)).toMatch(/empty segment/);
    expect(validateName('../a.ts', 'src', FILES)).toMatch(/“\.\.” and “\.”/);
    expect(validateName('main.tsx', 'src/client', FILES)).toBe('A file named “src/client/main.tsx” already exists.');
    expect(validateName('client', 'src', FILES)).toBe('A folder named “src/client” already exists.');
    expect(validateName('shared', 'src', FILES, ['src/shared'])).toBe('A folder named “src/shared” already exists.');
    expect(validateName('README.md/x.ts', '', FILES)).toBe('“README.md” is a file, not a folder.');
    expect(validateName('client/inner', 'src', FILES, [], { kind: 'folder', path: 'src/client' })).toBe('A folder cannot be moved into itself.');
    expect(validateName('main.tsx', 'src/client', FILES, [], { kind: 'file', path: 'src/client/main.tsx' })).toBeUndefined();
    expect(validateName('lib/new.ts', 'src', FILES)).toBeUndefined();
  });

  it('focuses the next row outside a deleted item, else the one before', () => {
    const rows = visibleRows(buildTree(FILES, []), new Set());
    expect(rowAfterDelete(rows, { kind: 'folder', path: 'src/client' })?.node.path).toBe('src/server');
    expect(rowAfterDelete(rows, { kind: 'file', path: 'README.md' })?.node.path).toBe('app.manifest.json');
    expect(rowAfterDelete(rows, { kind: 'folder', path: 'src' })?.node.path).toBe('app.manifest.json');
  });

  it('maps keys to what they ask for, and leaves the page its own', () => {
    const tree = buildTree(FILES, ['src/empty']);
    const collapsed = new Set<string>(['src/server']);
    const rows = visibleRows(tree, collapsed);
    const row = (path: string) => rows.find((r) => r.node.path === path)!;
    const press = (key: string, path: string, modifiers = none) => keyAction(key, modifiers, row(path).node, row(path).parent, rows, collapsed);
    expect(press('ArrowDown', 'src')).toEqual({ kind: 'focus', key: 'd:src/client' });
    expect(press('ArrowUp', 'src')).toEqual({ kind: 'focus', key: 'd:src' });
    expect(press('End', 'src')).toEqual({ kind: 'focus', key: `f:${rows.at(-1)!.node.path}` });
    expect(press('Home', 'README.md')).toEqual({ kind: 'focus', key: 'd:src' });
    // Right opens a closed folder, then enters an open one; on a file or an open empty folder it does nothing.
    expect(press('ArrowRight', 'src/server')).toEqual({ kind: 'toggle', path: 'src/server', open: true });
    expect(press('ArrowRight', 'src/client')).toEqual({ kind: 'focus', key: 'f:src/client/app.tsx' });
    expect(press('ArrowRight', 'src/empty')).toEqual({ kind: 'none' });
    expect(press('ArrowRight', 'README.md')).toBeUndefined();
    // Left closes an open folder, else goes to the parent (at the top it does nothing).
    expect(press('ArrowLeft', 'src/client')).toEqual({ kind: 'toggle', path: 'src/client', open: false });
    expect(press('ArrowLeft', 'src/client/main.tsx')).toEqual({ kind: 'focus', key: 'd:src/client' });
    expect(press('ArrowLeft', 'src/server')).toEqual({ kind: 'focus', key: 'd:src' });
    expect(press('ArrowLeft', 'README.md')).toEqual({ kind: 'none' });
    expect(press('Enter', 'README.md')).toEqual({ kind: 'select', path: 'README.md' });
    expect(press(' ', 'src')).toEqual({ kind: 'toggle', path: 'src' });
    expect(press('Enter', 'README.md', { ...none, ctrl: true })).toBeUndefined();
    expect(press('Enter', 'README.md', { ...none, meta: true })).toBeUndefined();
    expect(press('F2', 'src/client')).toMatchObject({ kind: 'rename', item: { kind: 'folder', path: 'src/client' } });
    expect(press('Delete', 'README.md')).toMatchObject({ kind: 'delete', item: { kind: 'file', path: 'README.md' } });
    expect(press('a', 'README.md')).toBeUndefined();
    expect(keyOf({ kind: 'file', path: 'x' })).not.toBe(keyOf({ kind: 'folder', path: 'x' }));
  });
});
