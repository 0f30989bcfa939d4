/**
 * `<FileTree>`: the project's files as a tree of folders. Pure UI: it reports what the user asks for
 * and stores nothing but view state.
 *
 * Folders are not stored anywhere: a folder exists when it holds files. "New folder" therefore makes a
 * placeholder that lives only in this component (shown in italics, "empty") until a file is created in
 * it; then it is an ordinary folder, and it disappears with its last file. Placeholders are never
 * reported to the host.
 *
 * Renaming a folder renames every file under it: `onRename(from, to)` is called once per file, always
 * with file paths, in one go. Hosts should apply the calls as functional updates (`setFiles((files) =>
 * …)`) so they compose. Deleting a folder is one `onDelete(folder)`: everything under it goes (and an
 * undo brings it back as one).
 *
 * Names are typed relative to their folder and may contain `/` to create or move into subfolders.
 * Refused, with a message under the field: an empty name or segment (`a//b`, a trailing `/`), `.` or
 * `..`, a leading `/`, a backslash, a name already taken by a file or folder, a file used as a folder,
 * and moving a folder into itself.
 *
 * Keyboard: arrows move (Right opens a folder, Left closes it or goes to its parent), Home/End, Enter
 * or Space opens a file or toggles a folder, F2 renames, Delete asks to delete; in the name field
 * Enter accepts and Escape cancels.
 *
 * The model (the tree, its rows, the name rules, renames and what each key asks for) is in
 * file-tree-model.ts, tested without a DOM; this file holds the view state and renders it: the rows,
 * the name field (`NameField`) and the question before a delete (`ConfirmDelete`).
 */
import { Fragment, type ComponentChildren } from 'preact';
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { isInside, movedPath } from '../../core/fs';
import { buildTree, join, keyAction, keyOf, nameOf, parentOf, rowAfterDelete, validateName, visibleRows, type FolderNode, type TreeItem, type TreeNode } from './file-tree-model';

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

type Editing =
  | { kind: 'new-file' | 'new-folder'; parent: string; value: string; error?: string }
  | { kind: 'rename'; node: TreeItem; value: string; error?: string };

function Icon({ name }: { name: 'file' | 'folder' | 'folder-open' | 'chevron' | 'new-file' | 'new-folder' | 'rename' | 'delete' }) {
  const paths: Record<typeof name, ComponentChildren> = {
    file: <path d="M4 1.5h5l3.5 3.5v9.5h-8.5z M9 1.5v3.5h3.5" />,
    folder: <path d="M1.5 3.5h4.5l1.5 1.5h7v8.5h-13z" />,
    'folder-open': <path d="M1.5 3.5h4.5l1.5 1.5h6v2 M1.5 13.5v-10 M1.5 13.5l2.5-6.5h11l-2.5 6.5z" />,
    chevron: <path d="M6 4l4 4-4 4" />,
    'new-file': <path d="M3.5 1.5h5l3.5 3.5v3 M8.5 1.5v3.5h3.5 M3.5 1.5v13h5 M12 10v5 M9.5 12.5h5" />,
    'new-folder': <path d="M1.5 3.5h4.5l1.5 1.5h7v3 M1.5 3.5v10h7 M12 10v5 M9.5 12.5h5" />,
    rename: <path d="M10.5 2.5l3 3-8 8h-3v-3z M9 4l3 3" />,
    delete: <path d="M2.5 4.5h11 M6 4.5v-2h4v2 M4 4.5l.8 9.5h6.4l.8-9.5 M6.8 7v4.5 M9.2 7v4.5" />,
  };
  return (
    <svg class={`ws-icon ws-icon-${name}`} viewBox="0 0 16 16" width="16" height="16" aria-hidden="true" fill="none" stroke="currentColor" stroke-width="1.2" stroke-linejoin="round" stroke-linecap="round">
      {paths[name]}
    </svg>
  );
}

/** The name field of a new or a renamed item: Enter accepts, Escape cancels, an error shows under it. */
function NameField({ editing, kind, depth, ariaLabel, onChange, onAccept, onCancel, onLeave }: {
  editing: Editing;
  kind: 'file' | 'folder';
  depth: number;
  ariaLabel: string;
  onChange(value: string): void;
  onAccept(): void;
  onCancel(): void;
  /** The field was left untouched: it goes. */
  onLeave(): void;
}) {
  const errorId = 'ws-tree-name-error';
  return (
    <div class="ws-tree-edit" style={{ '--depth': depth }}>
      <div class="ws-tree-row ws-tree-editing">
        <span class="ws-tree-twisty" />
        <Icon name={kind} />
        <input
          class="ws-tree-input"
          aria-label={ariaLabel}
          aria-invalid={editing.error ? 'true' : undefined}
          aria-describedby={editing.error ? errorId : undefined}
          value={editing.value}
          spellcheck={false}
          autocomplete="off"
          ref={(input) => {
            if (input && document.activeElement !== input && !input.dataset.focused) {
              input.dataset.focused = '1';
              input.focus();
              // Select the name without its extension, as editors do.
              const dot = editing.kind === 'rename' && kind === 'file' ? editing.value.lastIndexOf('.') : -1;
              input.setSelectionRange(0, dot > 0 ? dot : editing.value.length);
            }
          }}
          onInput={(event) => onChange((event.currentTarget as HTMLInputElement).value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter') {
              event.preventDefault();
              onAccept();
            } else if (event.key === 'Escape') {
              event.preventDefault();
              onCancel();
            }
          }}
          onBlur={() => {
            // Leaving an untouched field cancels; one with an error stays so the message can be read.
            if (!editing.error && editing.value.trim() === '' && editing.kind !== 'rename') onLeave();
          }}
        />
      </div>
      {editing.error && (
        <p class="ws-tree-error" id={errorId} role="alert" data-testid="tree-error">
          {editing.error}
        </p>
      )}
    </div>
  );
}

/** The question under a row before it is deleted, with what it holds: Delete, or Cancel (and Escape). */
function ConfirmDelete({ node, files, depth, onDelete, onCancel }: { node: TreeItem; files: number; depth: number; onDelete(): void; onCancel(): void }) {
  const what = node.kind === 'folder' ? `the folder “${node.path}” and its ${files} file${files === 1 ? '' : 's'}` : `“${node.path}”`;
  return (
    <div class="ws-tree-confirm" style={{ '--depth': depth }}>
      <div role="alertdialog" aria-label={`Delete ${node.path}?`} aria-describedby="ws-tree-confirm-text" class="ws-tree-confirm-box" onKeyDown={(event) => event.key === 'Escape' && onCancel()}>
        <p id="ws-tree-confirm-text">Delete {what}?</p>
        <div class="ws-tree-confirm-actions">
          <button type="button" class="ws-button ws-danger" ref={(b) => {
              if (b && !b.dataset.focused) {
                b.dataset.focused = '1';
                b.focus();
              }
            }} onClick={onDelete}>
            Delete
          </button>
          <button type="button" class="ws-button" onClick={onCancel}>
            Cancel
          </button>
        </div>
      </div>
    </div>
  );
}

export function FileTree({ files, selected, onSelect, onCreate, onRename, onDelete, label = 'Files' }: FileTreeProps) {
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

  const nameField = (kind: 'file' | 'folder', depth: number, ariaLabel: string) =>
    editing ? (
      <NameField
        editing={editing}
        kind={kind}
        depth={depth}
        ariaLabel={ariaLabel}
        onChange={(value) => setEditing({ ...editing, value, error: undefined })}
        onAccept={commit}
        onCancel={cancelEditing}
        onLeave={() => setEditing(undefined)}
      />
    ) : null;

  const confirmRow = (node: TreeItem, depth: number) => {
    const dismiss = () => {
      setConfirming(undefined);
      focusRow(keyOf(node));
    };
    return <ConfirmDelete node={node} files={node.kind === 'folder' ? filesUnder(node.path).length : 1} depth={depth} onDelete={() => remove(node)} onCancel={dismiss} />;
  };

  const renderNodes = (folder: FolderNode, depth: number): ComponentChildren => {
    const creating =
      editing && editing.kind !== 'rename' && editing.parent === folder.path ? (
        <li role="none" key="ws-new">
          {nameField(editing.kind === 'new-file' ? 'file' : 'folder', depth, editing.kind === 'new-file' ? 'New file name' : 'New folder name')}
        </li>
      ) : null;
    return [
      creating,
      ...folder.children.map((node) => {
        const key = keyOf(node);
        const renaming = editing?.kind === 'rename' && keyOf(editing.node) === key;
        const isSelected = node.kind === 'file' && node.path === selected;
        const open = node.kind === 'folder' && !collapsed.has(node.path);
        const confirm = confirming && keyOf(confirming) === key ? confirmRow(confirming, depth) : null;
        const actions = (
          <span class="ws-tree-actions">
            {node.kind === 'folder' && (
              <>
                <button type="button" class="ws-icon-button" tabIndex={-1} aria-label={`New file in ${node.path}`} title="New file" onClick={(e) => (e.stopPropagation(), startCreate('new-file', node.path))}>
                  <Icon name="new-file" />
                </button>
                <button type="button" class="ws-icon-button" tabIndex={-1} aria-label={`New folder in ${node.path}`} title="New folder" onClick={(e) => (e.stopPropagation(), startCreate('new-folder', node.path))}>
                  <Icon name="new-folder" />
                </button>
              </>
            )}
            <button type="button" class="ws-icon-button" tabIndex={-1} aria-label={`Rename ${node.path}`} title="Rename (F2)" onClick={(e) => (e.stopPropagation(), startRename(node))}>
              <Icon name="rename" />
            </button>
            <button type="button" class="ws-icon-button" tabIndex={-1} aria-label={`Delete ${node.path}`} title="Delete (Del)" onClick={(e) => (e.stopPropagation(), askDelete(node))}>
              <Icon name="delete" />
            </button>
          </span>
        );
        return (
          <Fragment key={key}>
            <li
              role="treeitem"
              data-key={key}
              data-path={node.path}
              aria-level={depth + 1}
              aria-selected={node.kind === 'file' ? isSelected : undefined}
              aria-expanded={node.kind === 'folder' ? open : undefined}
              aria-label={node.kind === 'folder' && node.empty ? `${node.name} (empty folder)` : node.name}
              tabIndex={key === focusKey ? 0 : -1}
              class={`ws-tree-item ${node.kind}${isSelected ? ' selected' : ''}${node.kind === 'folder' && node.empty ? ' empty' : ''}`}
              onKeyDown={(event) => onKeyDown(event, node, folder.path)}
              onFocus={(event) => event.target === event.currentTarget && setFocused(key)}
            >
              {renaming ? (
                nameField(node.kind, depth, `Rename ${node.path}`)
              ) : (
              <div
                class="ws-tree-row"
                style={{ '--depth': depth }}
                onClick={() => {
                  setFocused(key);
                  if (node.kind === 'file') onSelect(node.path);
                  else toggle(node.path);
                }}
              >
                <span class={`ws-tree-twisty${open ? ' open' : ''}`}>{node.kind === 'folder' && <Icon name="chevron" />}</span>
                <Icon name={node.kind === 'file' ? 'file' : open ? 'folder-open' : 'folder'} />
                <span class="ws-tree-name">{node.name}</span>
                {node.kind === 'folder' && node.empty && <span class="ws-tree-note">empty</span>}
                {actions}
              </div>
              )}
              {confirm}
            </li>
            {/* The folder's group follows its item instead of sitting in it: an item's text is then its own
                name only (inside, every child's name was part of the folder's text, and its label did not
                match it: label-content-name-mismatch). aria-level says each item's depth. */}
            {node.kind === 'folder' && open && (
              <li role="none">
                <ul role="group" class="ws-tree-group" aria-label={node.path}>
                  {renderNodes(node, depth + 1)}
                </ul>
              </li>
            )}
          </Fragment>
        );
      }),
    ];
  };

  return (
    <div class="ws-tree-pane">
      <div class="ws-tree-toolbar">
        <span class="ws-tree-title">{label}</span>
        <button type="button" class="ws-icon-button" aria-label="New file" title="New file" onClick={() => startCreate('new-file')}>
          <Icon name="new-file" />
        </button>
        <button type="button" class="ws-icon-button" aria-label="New folder" title="New folder" onClick={() => startCreate('new-folder')}>
          <Icon name="new-folder" />
        </button>
      </div>
      <ul role="tree" aria-label={label} class="ws-tree" ref={treeRef}>
        {renderNodes(tree, 0)}
      </ul>
      {files.length === 0 && placeholders.length === 0 && !editing && <p class="ws-tree-blank">No files yet. Use “New file” to add one.</p>}
    </div>
  );
}
