/**
 * How the Data panel shows a stored value: by the manifest's field type where the column has one
 * (a `datetime` is milliseconds since the epoch in SQLite, a `boolean` 0 or 1), and sorting and
 * filtering of the rows a page holds. Pure functions over the grid the sandbox sent.
 */
import type { FieldType, Manifest } from '../../core/manifest';
import { OBJECTS_TABLE } from '../../core/runtime';
import type { GridCell } from '../../../worker/protocol/runtime';

/** Column → field type of a table, from the manifest (and the runtime's own timestamps). */
export function columnTypes(manifest: Manifest | undefined, table: string): Record<string, FieldType> {
  if (table === OBJECTS_TABLE) return { uploadedAt: 'datetime', bytes: 'bytes' };
  const declared = manifest?.database?.tables[table];
  if (!declared) return {};
  const types: Record<string, FieldType> = { createdAt: 'datetime', updatedAt: 'datetime' };
  for (const [name, field] of Object.entries(declared.fields)) types[name] = field.type;
  return types;
}

/** "1.5 KiB" from a byte count. */
export function formatBytes(size: number): string {
  if (size < 1024) return `${size} B`;
  const units = ['KiB', 'MiB', 'GiB'];
  let value = size / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/** A cell as text: an ISO date (UTC) for a datetime, true/false for a boolean, a size for bytes. */
export function formatCell(value: GridCell, type?: FieldType): string {
  if (value === null) return 'null';
  if (typeof value === 'object') return `${formatBytes(value.blob)} (${value.hex.slice(0, 16)}${value.hex.length > 16 || value.blob > 8 ? '…' : ''})`;
  if (type === 'datetime' && typeof value === 'number' && Number.isFinite(value)) {
    const date = new Date(value);
    if (!Number.isNaN(date.getTime())) return date.toISOString().replace('T', ' ').replace(/\.000Z$/, 'Z');
  }
  if (type === 'boolean' && (value === 0 || value === 1)) return value === 1 ? 'true' : 'false';
  return String(value);
}

/** SQLite's order of values: null, numbers, text, BLOBs. */
function rank(value: GridCell): number {
  return value === null ? 0 : typeof value === 'number' ? 1 : typeof value === 'string' ? 2 : 3;
}

export function compareCells(a: GridCell, b: GridCell): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra - rb;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'object' && a && typeof b === 'object' && b) return a.blob - b.blob;
  return 0;
}

export interface RowView {
  /** Column index to sort by, and the direction. */
  sort?: { column: number; descending: boolean };
  /** Text every shown row contains in one of its cells as shown (case-insensitive). */
  filter?: string;
}

/** The rows to show, filtered on their shown text and stably sorted by value; the original rows kept. */
export function viewRows(rows: readonly GridCell[][], columns: readonly string[], types: Record<string, FieldType>, view: RowView): GridCell[][] {
  const needle = view.filter?.trim().toLowerCase();
  const kept = needle ? rows.filter((row) => row.some((cell, i) => formatCell(cell, types[columns[i]!]).toLowerCase().includes(needle))) : [...rows];
  const sort = view.sort;
  if (!sort) return kept;
  return kept
    .map((row, index) => ({ row, index }))
    .sort((a, b) => (sort.descending ? -1 : 1) * compareCells(a.row[sort.column] ?? null, b.row[sort.column] ?? null) || a.index - b.index)
    .map(({ row }) => row);
}
