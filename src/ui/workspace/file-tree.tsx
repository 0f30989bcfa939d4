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
 * The model (the tree, its rows, the name rules and what each key asks for) is in file-tree-model.ts,
 * tested without a DOM; the view state and the actions over it in file-tree-state.ts (`useFileTree`);
 * this file renders them: the rows, the name field (`NameField`) and the question before a delete
 * (`ConfirmDelete`).
 */
import { Fragment, type ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { keyOf, type FolderNode, type TreeItem } from './file-tree-model';
import { useFileTree, type Editing, type FileTreeProps } from './file-tree-state';



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
  const { tree, placeholders, collapsed, focusKey, treeRef, editing, confirming, focusedOn, startCreate, startRename, askDelete, remove, keep, typed, commit, cancelEditing, leaveEditing, filesUnder, toggle, onKeyDown } = useFileTree({ files, selected, onSelect, onCreate, onRename, onDelete });

  const nameField = (kind: 'file' | 'folder', depth: number, ariaLabel: string) =>
    editing ? (
      <NameField
        editing={editing}
        kind={kind}
        depth={depth}
        ariaLabel={ariaLabel}
        onChange={typed}
        onAccept={commit}
        onCancel={cancelEditing}
        onLeave={leaveEditing}
      />
    ) : null;

  const confirmRow = (node: TreeItem, depth: number) => (
    <ConfirmDelete node={node} files={node.kind === 'folder' ? filesUnder(node.path).length : 1} depth={depth} onDelete={() => remove(node)} onCancel={() => keep(node)} />
  );

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
              onFocus={(event) => event.target === event.currentTarget && focusedOn(key)}
            >
              {renaming ? (
                nameField(node.kind, depth, `Rename ${node.path}`)
              ) : (
              <div
                class="ws-tree-row"
                style={{ '--depth': depth }}
                onClick={() => {
                  focusedOn(key);
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
