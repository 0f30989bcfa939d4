/**
 * Rows read from the app's database, as a table: NULL in italics, dates, booleans and bytes shown by
 * their field type (format.ts); sorted by a column (click its header) and filtered on the shown text,
 * over the rows the page holds. With `onEdit`, each row has an Edit button and a double-click on a
 * cell edits its row at that cell (the table's rows, not an SQL result).
 */
import { useMemo, useState } from 'preact/hooks';
import type { FieldType } from '../../core/manifest';
import type { Grid, GridCell } from '../../../worker/protocol/runtime';
import { formatCell, viewRows, type RowView } from './format';

function Cell({ value, type }: { value: GridCell; type: FieldType | undefined }) {
  if (value === null) return <em class="muted">null</em>;
  if (typeof value === 'object') return <span class="muted" title={value.hex}>{formatCell(value)}</span>;
  const shown = formatCell(value, type);
  return shown === String(value) ? <>{shown}</> : <span title={String(value)}>{shown}</span>;
}

export interface GridEdit {
  /** Edits a row (from the cell of `column`, when a cell was double-clicked). */
  onEdit(row: GridCell[], column?: string): void;
  /** How the row's Edit button is named (`Edit todos/<id>`). */
  label(row: GridCell[]): string;
}

export function GridView({ grid, label, types = {}, edit }: { grid: Grid; label: string; types?: Record<string, FieldType>; edit?: GridEdit }) {
  const [view, setView] = useState<RowView>({});
  const rows = useMemo(() => viewRows(grid.rows, grid.columns, types, view), [grid, types, view]);
  const sortBy = (column: number) =>
    setView((v) => ({ ...v, sort: v.sort?.column === column ? (v.sort.descending ? undefined : { column, descending: true }) : { column, descending: false } }));
  return (
    <div class="grid-scroll">
      {grid.rows.length > 1 && (
        <input
          type="search"
          class="grid-filter"
          placeholder="Filter these rows"
          aria-label={`Filter ${label}`}
          value={view.filter ?? ''}
          onInput={(e) => setView((v) => ({ ...v, filter: (e.target as HTMLInputElement).value }))}
        />
      )}
      <table class="data-grid" aria-label={label}>
        <thead>
          <tr>
            {edit && <th scope="col" class="edit-column" />}
            {grid.columns.map((c, i) => (
              <th key={i} scope="col" aria-sort={view.sort?.column === i ? (view.sort.descending ? 'descending' : 'ascending') : 'none'}>
                <button type="button" class="link" onClick={() => sortBy(i)} title={`Sort by ${c}`}>
                  {c}
                  {view.sort?.column === i ? (view.sort.descending ? ' ▼' : ' ▲') : ''}
                </button>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row, r) => (
            <tr key={r}>
              {edit && (
                <td class="edit-column">
                  <button type="button" class="link" aria-label={edit.label(row)} title="Edit this row as a persona" onClick={() => edit.onEdit(row)}>
                    Edit
                  </button>
                </td>
              )}
              {row.map((value, c) => (
                <td key={c} onDblClick={edit ? () => edit.onEdit(row, grid.columns[c]) : undefined}>
                  <Cell value={value} type={types[grid.columns[c]!]} />
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      {grid.rows.length === 0 && <p class="muted">No rows.</p>}
      {grid.rows.length > 0 && rows.length === 0 && <p class="muted">No row on this page matches the filter.</p>}
      {grid.truncated && <p class="muted">Some rows or long values were left out.</p>}
    </div>
  );
}
