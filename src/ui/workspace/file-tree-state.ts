/**
 * The file tree's view state and what each of its actions does (file-tree.tsx renders them): the folder
 * placeholders, which folders are closed, the focused row, the name being typed (a new file or folder,
 * a rename) and the delete being confirmed; and create, rename, delete, toggle and the keyboard, in terms
 * of the component's props. The rules they follow (the rows, the names allowed, what a key asks for)
 * are file-tree-model.ts's.
 */
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { isInside, movedPath } from '../../core/fs';
import { buildTree, join, keyAction, keyOf, nameOf, parentOf, rowAfterDelete, validateName, visibleRows, type TreeItem, type TreeNode } from './file-tree-model';

export interface FileTreeProps {
  /** Project-relative file paths. */
  files: readonly string[];
  selected?: string | undefined;
  onSelect(path: string): void;
  /** A new (empty) file. */
  onCreate(path: string): void;
  /** A file moved; called for each file under a renamed folder. */
  onRename(from: string, to: string): void;
  /** A file deleted, or a folder with every file under it. */
  onDelete(path: string): void;
  /** The tree's accessible name. */
  label?: string;
}

/** The name being typed: a new file or folder in `parent`, or a new name for `node`; `error` says why it was refused. */
export type Editing =
  | { kind: 'new-file' | 'new-folder'; parent: string; value: string; error?: string }
  | { kind: 'rename'; node: TreeItem; value: string; error?: string };

/** The file tree's state and actions for one `<FileTree>`: what it renders, and what its rows, fields and keys call. */
export function useFileTree({ files, selected, onSelect, onCreate, onRename, onDelete }: FileTreeProps) {
  const [placeholders, setPlaceholders] = useState<string[]>([]);
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(new Set());
  const [focused, setFocused] = useState<string | undefined>(undefined);
  const [editing, setEditing] = useState<Editing | undefined>(undefined);
  const [confirming, setConfirming] = useState<TreeItem | undefined>(undefined);
  const treeRef = useRef<HTMLUListElement>(null);
  /** Move DOM focus to `focused` after the next render (after keyboard moves, creates, renames). */
  const focusPending = useRef(false);

  // A placeholder becomes a real folder once it holds a file: forget it then.
  useEffect(() => {
    setPlaceholders((list) => {
      const kept = list.filter((p) => !files.some((f) => isInside(f, p)));
      return kept.length === list.length ? list : kept;
    });
  }, [files]);

  // The selected file's folders are open.
  useEffect(() => {
    if (!selected) return;
    setCollapsed((set) => {
      const next = new Set([...set].filter((folder) => !isInside(selected, folder)));
      return next.size === set.size ? set : next;
    });
  }, [selected]);

  const tree = useMemo(() => buildTree(files, placeholders), [files, placeholders]);

  /** The rows in display order (what arrow keys walk). */
  const visible = useMemo(() => visibleRows(tree, collapsed), [tree, collapsed]);

  const focusKey = focused && visible.some((v) => keyOf(v.node) === focused) ? focused : selected && visible.some((v) => v.node.kind === 'file' && v.node.path === selected) ? `f:${selected}` : visible[0] && keyOf(visible[0].node);

  // Synchronously after the render, so the next key press already lands on the new row.
  useLayoutEffect(() => {
    if (!focusPending.current || !focusKey) return;
    focusPending.current = false;
    treeRef.current?.querySelector<HTMLElement>(`[data-key="${CSS.escape(focusKey)}"]`)?.focus();
  });

  const focusRow = (key: string) => {
    focusPending.current = true;
    setFocused(key);
  };

  /** Where a new item goes: into the focused folder, or beside the focused or selected file. */
  const targetFolder = (): string => {
    const key = focusKey;
    if (key?.startsWith('d:')) return key.slice(2);
    if (key?.startsWith('f:')) return parentOf(key.slice(2));
    return selected ? parentOf(selected) : '';
  };

  const startCreate = (kind: 'new-file' | 'new-folder', parent = targetFolder()) => {
    setConfirming(undefined);
    if (parent) setCollapsed((set) => new Set([...set].filter((f) => f !== parent && !isInside(parent, f))));
    setEditing({ kind, parent, value: '' });
  };

  const startRename = (node: TreeItem) => {
    setConfirming(undefined);
    setEditing({ kind: 'rename', node, value: nameOf(node.path) });
  };

  const filesUnder = (folder: string) => files.filter((f) => isInside(f, folder));

  const commit = () => {
    if (!editing) return;
    if (editing.kind === 'rename') {
      const parent = parentOf(editing.node.path);
      if (editing.value === nameOf(editing.node.path)) return setEditing(undefined);
      const error = validateName(editing.value, parent, files, placeholders, editing.node);
      if (error) return setEditing({ ...editing, error });
      const to = join(parent, editing.value);
      const from = editing.node.path;
      if (editing.node.kind === 'file') onRename(from, to);
      else {
        for (const file of filesUnder(from)) onRename(file, to + file.slice(from.length));
        setPlaceholders((list) => list.map((p) => movedPath(p, from, to)));
        setCollapsed((set) => new Set([...set].map((f) => movedPath(f, from, to))));
      }
      setEditing(undefined);
      focusRow(keyOf({ kind: editing.node.kind, path: to }));
      return;
    }
    const kind = editing.kind === 'new-file' ? 'file' : 'folder';
    const error = validateName(editing.value, editing.parent, files, placeholders);
    if (error) return setEditing({ ...editing, error });
    const path = join(editing.parent, editing.value);
    if (kind === 'file') {
      onCreate(path);
      onSelect(path);
    } else setPlaceholders((list) => [...list, path]);
    setEditing(undefined);
    focusRow(keyOf({ kind, path }));
  };

  const cancelEditing = () => {
    setEditing(undefined);
    focusPending.current = true;
  };

  const remove = (node: TreeItem) => {
    setConfirming(undefined);
    // Found before the delete: what comes next (or before), outside the deleted item.
    const next = rowAfterDelete(visible, node);
    if (node.kind === 'file' || filesUnder(node.path).length > 0) onDelete(node.path);
    if (node.kind === 'folder') {
      setPlaceholders((list) => list.filter((p) => p !== node.path && !isInside(p, node.path)));
    }
    if (next) focusRow(keyOf(next.node));
  };

  const askDelete = (node: TreeItem) => {
    setEditing(undefined);
    // An empty placeholder holds nothing to lose: it goes at once.
    if (node.kind === 'folder' && filesUnder(node.path).length === 0) return remove(node);
    setConfirming(node);
  };

  const toggle = (path: string, open?: boolean) =>
    setCollapsed((set) => {
      const next = new Set(set);
      if (open ?? next.has(path)) next.delete(path);
      else next.add(path);
      return next;
    });

  const onKeyDown = (event: KeyboardEvent, node: TreeNode, parent: string) => {
    if (event.target !== event.currentTarget) return;
    const action = keyAction(event.key, { ctrl: event.ctrlKey, meta: event.metaKey, alt: event.altKey }, node, parent, visible, collapsed);
    if (!action) return;
    switch (action.kind) {
      case 'focus':
        focusRow(action.key);
        break;
      case 'toggle':
        toggle(action.path, action.open);
        break;
      case 'select':
        onSelect(action.path);
        break;
      case 'rename':
        startRename(action.item);
        break;
      case 'delete':
        askDelete(action.item);
        break;
      case 'none':
        break;
      default:
        action satisfies never;
    }
    event.preventDefault();
    event.stopPropagation();
  };

  return {
    tree,
    placeholders,
    collapsed,
    focusKey,
    treeRef,
    editing,
    confirming,
    /** A row took focus (by click or by the browser). */
    focusedOn: (key: string) => setFocused(key),
    startCreate,
    startRename,
    askDelete,
    remove,
    /** The delete question was answered no: focus goes back to its row. */
    keep: (node: TreeItem) => {
      setConfirming(undefined);
      focusRow(keyOf(node));
    },
    /** The name typed so far. */
    typed: (value: string) => editing && setEditing({ ...editing, value, error: undefined }),
    commit,
    cancelEditing,
    /** The name field lost focus: nothing is made or renamed. */
    leaveEditing: () => setEditing(undefined),
    filesUnder,
    toggle,
    onKeyDown,
  };
}
