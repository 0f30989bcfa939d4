/**
 * The Data panel: the running app's tables (rows paged, schema, indexes; a row edited as a persona
 * through the runtime), its stored objects, read-only SQL, calls as any persona, and the state tools
 * (export, import, reset, restore). All of it is read in the sandbox (RuntimeHost.inspect) and
 * arrives as checked data.
 */
import { rovingTab, tabListKeys } from '../tab-list';
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { PersonaName } from '../../core/runtime';
import type { ProjectSession } from '../playground/project-session';
import type { InspectResult, RuntimeHost } from '../runtime/runtime-host';
import type { TableInfo } from '../../../worker/protocol/runtime';
import { CallTool, SqlTool, StateTools, StorageTool } from './data-tools';
import { GridView, type GridEdit } from './grid-view';
import { columnTypes } from './format';
import { editableFields } from './row-edit';
import { RowEditor } from './row-editor';
import type { GridCell } from '../../../worker/protocol/runtime';

export const PAGE_SIZE = 50;

type Overview = Extract<InspectResult, { kind: 'overview' }>;
type View = 'tables' | 'storage' | 'sql' | 'call' | 'state';

function TableDetail({ session, table, version, persona }: { session: ProjectSession; table: TableInfo; version: number; persona: PersonaName }) {
  const [offset, setOffset] = useState(0);
  const [rows, setRows] = useState<Extract<InspectResult, { kind: 'rows' | 'refused' }> | undefined>();
  const [editing, setEditing] = useState<{ id: string; values: Record<string, GridCell>; focus?: string } | undefined>();
  const [saved, setSaved] = useState<string | undefined>();
  useEffect(() => (setOffset(0), setEditing(undefined), setSaved(undefined)), [table.name]);
  useEffect(() => {
    let live = true;
    void session.inspect({ kind: 'rows', table: table.name, offset, limit: PAGE_SIZE }).then((result) => live && setRows(result));
    return () => {
      live = false;
    };
  }, [session, table.name, offset, version]);
  const total = rows?.kind === 'rows' ? rows.total : table.rowCount;
  const manifest = session.state.generation?.manifest;
  const types = useMemo(() => columnTypes(manifest, table.name), [manifest, table.name]);
  const fields = useMemo(() => editableFields(manifest, table.name), [manifest, table.name]);
  const grid = rows?.kind === 'rows' ? rows.grid : undefined;
  const idColumn = grid?.columns.indexOf('id') ?? -1;
  // The app's own tables are edited (a row by its id); the runtime's are only read.
  const edit: GridEdit | undefined =
    table.declared && fields.length > 0 && grid && idColumn >= 0
      ? {
          label: (row) => `Edit ${table.name}/${String(row[idColumn])}`,
          onEdit: (row, column) => {
            setSaved(undefined);
            setEditing({ id: String(row[idColumn]), values: Object.fromEntries(grid.columns.map((c, i) => [c, row[i] ?? null])), ...(column && fields.some((f) => f.name === column) ? { focus: column } : {}) });
          },
        }
      : undefined;
  return (
    <div class="table-detail" data-table={table.name}>
      <h3>
        {table.name} <span class="muted">{table.declared ? '' : '(the runtime’s own)'}</span>
      </h3>
      {rows?.kind === 'refused' ? (
        <p role="alert" class="error-text">{rows.message}</p>
      ) : rows ? (
        <>
          <GridView grid={rows.grid} label={`Rows of ${table.name}`} types={types} {...(edit ? { edit } : {})} />
          {editing && (
            <RowEditor
              key={`${editing.id}:${editing.focus ?? ''}`}
              session={session}
              table={table.name}
              id={editing.id}
              values={editing.values}
              fields={fields}
              {...(editing.focus ? { focus: editing.focus } : {})}
              persona={persona}
              onSaved={(message) => (setEditing(undefined), setSaved(message))}
              onClose={() => setEditing(undefined)}
            />
          )}
          {saved && (
            <p role="status" class="edit-saved" data-testid="edit-saved">
              {saved}
            </p>
          )}
          <div class="pager">
            <button type="button" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE_SIZE))}>
              Previous
            </button>
            <span data-testid="row-range">
              {total === 0 ? 'No rows' : `Rows ${offset + 1}–${Math.min(offset + PAGE_SIZE, total)} of ${total}`}
            </span>
            <button type="button" disabled={offset + PAGE_SIZE >= total} onClick={() => setOffset(offset + PAGE_SIZE)}>
              Next
            </button>
          </div>
        </>
      ) : (
        <p class="muted">Reading…</p>
      )}
      <details class="schema" open>
        <summary>Schema and indexes</summary>
        <table class="data-grid schema-grid" aria-label={`Schema of ${table.name}`}>
          <thead>
            <tr>
              <th scope="col">column</th>
              <th scope="col">type</th>
              <th scope="col">not null</th>
              <th scope="col">key</th>
              <th scope="col">default</th>
            </tr>
          </thead>
          <tbody>
            {table.columns.map((c) => (
              <tr key={c.name}>
                <td>{c.name}</td>
                <td>{c.type}</td>
                <td>{c.notNull ? 'yes' : ''}</td>
                <td>{c.primaryKey ? 'primary' : ''}</td>
                <td>{c.default ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <ul class="indexes" aria-label={`Indexes of ${table.name}`}>
          {table.indexes.length === 0 && <li class="muted">No indexes.</li>}
          {table.indexes.map((index) => (
            <li key={index.name}>
              <code>{index.name}</code> {index.unique ? 'unique ' : ''}({index.columns.join(', ')})
            </li>
          ))}
        </ul>
      </details>
    </div>
  );
}

export function DataPanel({ session, runtime, persona }: { session: ProjectSession; runtime: RuntimeHost; persona: PersonaName }) {
  const [view, setView] = useState<View>('tables');
  const [version, setVersion] = useState(0);
  const [overview, setOverview] = useState<Overview | Extract<InspectResult, { kind: 'refused' }> | undefined>();
  const [selected, setSelected] = useState<string | undefined>();
  const generation = session.state.generation?.number;

  // What the app writes, or a restart, shows at once.
  useEffect(() => {
    const bump = () => setVersion((n) => n + 1);
    const offs = [runtime.onCommit(bump), runtime.onWrite(bump), runtime.onRestart(bump)];
    return () => offs.forEach((off) => off());
  }, [runtime]);
  useEffect(() => {
    if (generation === undefined) return undefined;
    let live = true;
    void session.inspect({ kind: 'overview' }).then((result) => live && setOverview(result));
    return () => {
      live = false;
    };
  }, [session, generation, version]);

  const tables = overview?.kind === 'overview' ? overview.tables : [];
  const table = tables.find((t) => t.name === selected) ?? tables[0];
  const refresh = () => setVersion((n) => n + 1);

  return (
    <div class="data-panel">
      <div class="data-views">
        {/* The tab list holds its tabs only (Refresh inside it was an ARIA violation, aria-required-children). */}
        <div role="tablist" aria-label="Data views" class="data-view-tabs" onKeyDown={tabListKeys}>
          {(
            [
              ['tables', 'Tables'],
              ['storage', 'Storage'],
              ['sql', 'SQL'],
              ['call', 'Run an operation'],
              ['state', 'Export, import, reset'],
            ] as const
          ).map(([id, label]) => (
            <button key={id} type="button" role="tab" aria-selected={view === id} tabIndex={rovingTab(view === id)} onClick={() => setView(id)}>
              {label}
            </button>
          ))}
        </div>
        <button type="button" class="link refresh" onClick={refresh} title="Read the data again">
          Refresh
        </button>
      </div>
      {generation === undefined ? (
        <p class="muted">The data appears when the app runs.</p>
      ) : view === 'tables' ? (
        overview?.kind === 'refused' ? (
          <p role="alert" class="error-text">{overview.message}</p>
        ) : (
          <div class="data-tables">
            <ul class="table-list" aria-label="Tables">
              {tables.map((t) => (
                <li key={t.name}>
                  <button type="button" aria-pressed={t === table} class={t.declared ? '' : 'muted'} onClick={() => setSelected(t.name)}>
                    {t.name} <span class="count">{t.rowCount}</span>
                  </button>
                </li>
              ))}
            </ul>
            {table ? <TableDetail session={session} table={table} version={version} persona={persona} /> : <p class="muted">{overview ? 'No tables.' : 'Reading…'}</p>}
          </div>
        )
      ) : view === 'storage' ? (
        <StorageTool session={session} version={version} />
      ) : view === 'sql' ? (
        <SqlTool session={session} />
      ) : view === 'call' ? (
        <CallTool session={session} runtime={runtime} persona={persona} operations={overview?.kind === 'overview' ? overview.operations : []} />
      ) : (
        <StateTools session={session} onChanged={refresh} />
      )}
    </div>
  );
}
