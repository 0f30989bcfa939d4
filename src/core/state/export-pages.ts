/**
 * A state export read in pages: each page a bounded number of rows and bytes, read by keyset over the
 * table's (createdAt, id) order index from a cursor, so a page costs the same on the first and the
 * millionth row and no request reading one can reach the handler deadline. `exportState` (the whole
 * document in memory) and the streamed `platform export` / hosted export read through here.
 */
import type { Result } from '../result.ts';
import { diagnostic, type Diagnostic } from '../diagnostics/index.ts';
import type { Manifest } from '../manifest/index.ts';
import { quoteIdentifier, type SqlDriver, tableOrder, decodeRow } from '../runtime/index.ts';
import { encodeValue } from '../../modules/wire.ts';
import type { JsonValue } from '../../modules/types.ts';
import { refused, STATE_EXPORT_PROTOCOL, stateSchemaIdentity } from './document.ts';
import { storedIdentity } from './meta.ts';

/**
 * Rows one page holds at most (a page also ends past EXPORT_PAGE_BYTES). Pages are kept small because
 * the engine holds a whole page as objects while it answers, and what outlives two of V8's young
 * collections is promoted to its old generation, which V8 lets fill with garbage up to its own limit
 * before it collects it. Measured in workerd (issue 31; `platform dev`, V8's heap read with
 * --trace-gc): pages of 5,000 rows grew the engine's anonymous memory with every page (41 → 186 MB
 * over two exports of 200,000 rows); pages of 2,000 rows or 512 KiB still took it from 45 MB after an
 * import of 100,000 rows to 78 MB over two exports (V8's heap at 43 MB before a full collection that
 * left 2 MB live); pages of 500 rows or 128 KiB left it at the 47 MB the import had reached.
 */
export const EXPORT_PAGE_ROWS = 500;
/** JSON bytes past which a page ends. */
export const EXPORT_PAGE_BYTES = 128 * 1024;
/** The largest record a page carries (alone, when it is bigger than EXPORT_PAGE_BYTES); a larger one is `state_export_too_large`. */
export const EXPORT_RECORD_BYTES = 4 * 1024 * 1024;
/** Rows a page reads first, before it knows how big the table's rows are. */
const FIRST_READ_ROWS = 64;

/** Every key of the document but the rows, and its tables in document order. */
export interface ExportHead {
  protocol: typeof STATE_EXPORT_PROTOCOL;
  app: string;
  schema: string;
  database: JsonValue;
  exportedAt: string;
  tables: string[];
}

export interface ExportPage {
  /** The document's head: every page carries it, so a reader may start from any page. */
  head: ExportHead;
  /** Rows in document order, grouped by table (a table's rows may continue on the next page). */
  rows: Array<{ table: string; rows: JsonValue[] }>;
  /** The cursor of the next page, or null after the last. */
  next: string | null;
}

export interface PageOptions {
  /** The export's time, for the first page (later pages carry it in the cursor); now when not given. */
  now?: Date;
  maxRows?: number;
  /** JSON bytes past which the page ends (EXPORT_PAGE_BYTES). */
  maxBytes?: number;
  /** The largest record's JSON (EXPORT_RECORD_BYTES); at least maxBytes. */
  maxRecordBytes?: number;
}

export type ExportPageResult = Result<{ page: ExportPage }, { diagnostic: Diagnostic }>;

interface Cursor {
  /** The schema identity the export began under: a page under another is refused. */
  schema: string;
  exportedAt: string;
  /** Index into the head's tables. */
  table: number;
  /** The last row read of that table: (createdAt in ms, id). */
  after: [number, string] | null;
}

function encodeCursor(cursor: Cursor): string {
  return JSON.stringify([cursor.schema, cursor.exportedAt, cursor.table, cursor.after]);
}

function decodeCursor(text: string): Cursor | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    if (!Array.isArray(value) || value.length !== 4) return undefined;
    const [schema, exportedAt, table, after] = value as unknown[];
    if (typeof schema !== 'string' || typeof exportedAt !== 'string' || !Number.isInteger(table) || (table as number) < 0) return undefined;
    if (after !== null && !(Array.isArray(after) && after.length === 2 && typeof after[0] === 'number' && typeof after[1] === 'string')) return undefined;
    return { schema, exportedAt, table: table as number, after: after as [number, string] | null };
  } catch {
    return undefined;
  }
}

/**
 * One page of the export of `manifest`'s tables from `driver`, from `cursor` (none: the first page).
 * DG1824 `state_import_schema_mismatch` for a database created for another schema, or a schema changed
 * since the cursor was made; `state_export_too_large` for one row over EXPORT_RECORD_BYTES; DG1840 for a
 * cursor that is not one this function made. Generated fields are left out (SQLite computes them again
 * on import); a database the runtime never initialised exports as empty tables.
 *
 * Pages are read one request at a time: a write landing between two pages is in the export when it
 * lands after the cursor (a new row, an edit of a row not read yet), not when before it.
 */
export function exportPage(driver: SqlDriver, manifest: Pick<Manifest, 'name' | 'database'>, cursorText: string | undefined, options: PageOptions = {}): ExportPageResult {
  const schema = stateSchemaIdentity(manifest);
  let cursor: Cursor;
  if (cursorText === undefined) cursor = { schema, exportedAt: (options.now ?? new Date()).toISOString(), table: 0, after: null };
  else {
    const decoded = decodeCursor(cursorText);
    if (!decoded) return { ok: false, diagnostic: diagnostic('DG1840', 'The export cursor is not one an earlier page of this export gave.', { hint: 'Start the export again.' }) };
    cursor = decoded;
  }
  const stored = storedIdentity(driver);
  if ((stored !== undefined && stored !== schema) || cursor.schema !== schema) {
    const actual = cursor.schema !== schema ? cursor.schema : stored!;
    return {
      ok: false,
      diagnostic: refused('state_import_schema_mismatch', `The database was created for another schema (${actual.slice(0, 19)}…) than the manifest's (${schema.slice(0, 19)}…).`, { expected: schema, actual }),
    };
  }
  const database = manifest.database;
  const names = database ? tableOrder(database) : [];
  const head: ExportHead = { protocol: STATE_EXPORT_PROTOCOL, app: manifest.name, schema, database: (database ?? null) as unknown as JsonValue, exportedAt: cursor.exportedAt, tables: names };
  const maxRows = Math.max(1, options.maxRows ?? EXPORT_PAGE_ROWS);
  const maxBytes = Math.max(1, options.maxBytes ?? EXPORT_PAGE_BYTES);
  const maxRecordBytes = Math.max(maxBytes, options.maxRecordBytes ?? EXPORT_RECORD_BYTES);
  const rows: ExportPage['rows'] = [];
  let count = 0;
  let bytes = 0;
  let { table, after } = cursor;
  // A database the runtime never initialised has no tables yet: every table is empty.
  if (stored === undefined) table = names.length;
  while (table < names.length && count < maxRows && bytes < maxBytes) {
    const name = names[table]!;
    const fields = Object.entries(database!.tables[name]!.fields).filter(([, field]) => !field.generated);
    const columns = ['id', 'createdAt', 'updatedAt', ...fields.map(([field]) => field)].map(quoteIdentifier).join(', ');
    const where = after ? ' WHERE ("createdAt", "id") > (?, ?)' : '';
    // As many rows as the bytes left are likely to hold (by the rows read so far), so that a page of
    // big rows never reads far more than it keeps.
    const ask = Math.min(maxRows - count, count === 0 ? FIRST_READ_ROWS : Math.max(1, Math.ceil(((maxBytes - bytes) * count) / Math.max(1, bytes))));
    const records = driver.all(`SELECT ${columns} FROM ${quoteIdentifier(name)}${where} ORDER BY "createdAt", "id" LIMIT ?`, [...(after ?? []), ask]);
    let full = false;
    for (const record of records) {
      const row = encodeValue(decodeRow(fields, record)) as JsonValue;
      const size = JSON.stringify(row).length;
      if (size > maxRecordBytes) {
        return { ok: false, diagnostic: refused('state_export_too_large', `Record ${name}/${String(record.id).slice(0, 80)} is ${size} characters of JSON; one export page holds at most ${maxRecordBytes}.`, { table: name, id: String(record.id) }) };
      }
      if (bytes + size > maxBytes && count > 0) {
        full = true;
        break;
      }
      const group = rows.at(-1);
      if (group?.table === name) group.rows.push(row);
      else rows.push({ table: name, rows: [row] });
      count++;
      bytes += size;
      after = [Number(record.createdAt), String(record.id)];
    }
    if (full) break;
    // Fewer rows than asked for: the table is done.
    if (records.length < ask) {
      table++;
      after = null;
    }
  }
  return { ok: true, page: { head, rows, next: table < names.length ? encodeCursor({ schema, exportedAt: cursor.exportedAt, table, after }) : null } };
}
