/**
 * The data browser's side inside the runtime sandbox: tables with their schema, indexes and rows,
 * read-only SQL, stored objects, state export/import, and an edit of a row as a persona (through the
 * runtime's table API, so the table's policy holds), over the running app's own database.
 * Everything is cut to INSPECT_LIMITS here; the trusted side checks them again (isInspectResult).
 */
import { listedTables, OBJECTS_TABLE, SqlObjectStore, quoteIdentifier, type SqlDriver, isPersona, type Auth, type PersonaName, type AppRuntime, isPlainObject } from '../src/core/runtime';
import type { Database, Statement } from 'sql.js';
import type { Manifest } from '../src/core/manifest';
import { exportState, importStateText } from '../src/core/state';
import { isProjectDataDocument, MAX_ZIP_OBJECT_BYTES, parseProjectData, type ObjectEntry } from '../src/core/share';
import { describeError } from '../src/core/host';
import { decodeJson } from '../src/modules/wire';
import type { Diagnostic } from '../src/core/diagnostics';
import { INSPECT_LIMITS, type ColumnInfo, type Grid, type GridCell, type IndexInfo, type InspectDiagnostic, type InspectQuery, type InspectResult, type OperationInfo, type TableInfo } from './protocol/runtime';

export interface Inspected {
  /** sql.js's database, for read-only SQL; an engine without one (a Durable Object) answers every other view. */
  db?: Database;
  driver: SqlDriver;
  manifest: Manifest;
  operations: OperationInfo[];
  /** The server definition's table policies (state import keeps their fields as they are). */
  policies?: ReadonlyMap<string, 'ownedTable' | 'workspaceTable'>;
  /** The app's runtime and each persona's `ctx.auth`, for edits of rows (none: rows are not edited here). */
  runtime?: AppRuntime;
  caller?(persona: PersonaName): Auth;
}

const refused = (message: string, diagnostic?: InspectDiagnostic): InspectResult => ({ kind: 'refused', message: message.slice(0, INSPECT_LIMITS.message), ...(diagnostic ? { diagnostic } : {}) });

/** Queries and mutations a server definition declares (read once at start, as AppRuntime reads them). */
export function operationsOf(definition: unknown): OperationInfo[] {
  const operations: OperationInfo[] = [];
  if (typeof definition !== 'object' || definition === null) return operations;
  const d = definition as Record<string, unknown>;
  for (const [group, kind] of [['queries', 'query'], ['mutations', 'mutation']] as const) {
    const entries = d[group];
    if (typeof entries !== 'object' || entries === null) continue;
    for (const name of Object.keys(entries)) if (operations.length < INSPECT_LIMITS.operations) operations.push({ kind, name: name.slice(0, 1000) });
  }
  return operations.sort((a, b) => a.kind.localeCompare(b.kind) || a.name.localeCompare(b.name));
}

let cut = false;
function cell(value: unknown): GridCell {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return String(value);
  if (value instanceof Uint8Array) return { blob: value.length, hex: Array.from(value.subarray(0, 32), (b) => b.toString(16).padStart(2, '0')).join('') };
  const text = String(value);
  if (text.length <= INSPECT_LIMITS.text) return text;
  cut = true;
  return `${text.slice(0, INSPECT_LIMITS.text - 1)}…`;
}

/** Steps a prepared statement into a grid of at most INSPECT_LIMITS.rows rows. */
function gridOf(statement: Statement, maxRows: number = INSPECT_LIMITS.rows): Grid {
  cut = false;
  const columns = statement.getColumnNames().slice(0, INSPECT_LIMITS.columns).map((c) => c.slice(0, 1000));
  const rows: GridCell[][] = [];
  let truncated = statement.getColumnNames().length > INSPECT_LIMITS.columns;
  while (statement.step()) {
    if (rows.length >= maxRows) {
      truncated = true;
      break;
    }
    rows.push(statement.get().slice(0, columns.length).map(cell));
  }
  return { columns, rows, truncated: truncated || cut };
}

function overview({ driver, manifest, operations }: Inspected): InspectResult {
  const declared = new Set(Object.keys(manifest.database?.tables ?? {}));
  const tables: TableInfo[] = [];
  for (const name of listedTables(driver).slice(0, INSPECT_LIMITS.tables)) {
    const q = quoteIdentifier(name);
    const columns: ColumnInfo[] = driver.all(`PRAGMA table_info(${q})`).slice(0, INSPECT_LIMITS.columns).map((c) => ({
      name: String(c.name).slice(0, 1000),
      type: String(c.type ?? '').slice(0, 1000),
      notNull: Number(c.notnull) === 1,
      primaryKey: Number(c.pk) > 0,
      default: c.dflt_value === null || c.dflt_value === undefined ? null : String(c.dflt_value).slice(0, INSPECT_LIMITS.text),
    }));
    const indexes: IndexInfo[] = driver
      .all(`PRAGMA index_list(${q})`)
      .slice(0, 1000)
      .map((i) => ({
        name: String(i.name).slice(0, 1000),
        unique: Number(i.unique) === 1,
        columns: driver.all(`PRAGMA index_info(${quoteIdentifier(String(i.name))})`).slice(0, INSPECT_LIMITS.columns).map((c) => String(c.name ?? '(expression)').slice(0, 1000)),
      }));
    const rowCount = Number(driver.all(`SELECT count(*) AS n FROM ${q}`)[0]?.n ?? 0);
    tables.push({ name: name.slice(0, 1000), declared: declared.has(name), rowCount, columns, indexes });
  }
  // The app's tables first, in the manifest's order; then the runtime's own.
  const order = [...declared];
  tables.sort((a, b) => (a.declared === b.declared ? (a.declared ? order.indexOf(a.name) - order.indexOf(b.name) : a.name.localeCompare(b.name)) : a.declared ? -1 : 1));
  return { kind: 'overview', tables, operations };
}

function rows({ driver, manifest }: Inspected, table: string, offset: number, limit: number): InspectResult {
  if (!listedTables(driver).includes(table)) return refused(`There is no table "${table}".`);
  const q = quoteIdentifier(table);
  const total = Number(driver.all(`SELECT count(*) AS n FROM ${q}`)[0]?.n ?? 0);
  const order = manifest.database?.tables[table] ? ' ORDER BY "createdAt", "id"' : table === OBJECTS_TABLE ? ' ORDER BY "key"' : '';
  const names = driver.all(`PRAGMA table_info(${q})`).map((c) => String(c.name));
  const page = Math.min(Math.max(1, Math.floor(limit)), INSPECT_LIMITS.rows);
  const found = driver.all(`SELECT * FROM ${q}${order} LIMIT ? OFFSET ?`, [page, Math.max(0, Math.floor(offset))]);
  cut = false;
  const columns = names.slice(0, INSPECT_LIMITS.columns);
  const grid = { columns: columns.map((c) => c.slice(0, 1000)), rows: found.map((row) => columns.map((c) => cell(row[c]))) };
  return { kind: 'rows', table, total, grid: { ...grid, truncated: names.length > columns.length || cut } };
}

/** Pragmas that only read (no `=`): the rest may change the connection or the file. */
const READ_PRAGMAS = /^pragma\s+(?:(?:"?main"?|"?temp"?)\s*\.\s*)?(table_info|table_xinfo|table_list|index_list|index_info|index_xinfo|foreign_key_list|foreign_key_check|integrity_check|quick_check|database_list|collation_list|function_list|pragma_list|compile_options|user_version|schema_version|page_count|page_size|freelist_count|encoding)\b[^=;]*;?\s*$/i;
const READING = /^(select|with|values|explain)\b/i;

/** Leading white space and SQL comments. */
function withoutLeadingComments(sql: string): string {
  let text = sql.trimStart();
  for (;;) {
    if (text.startsWith('--')) text = text.slice(text.indexOf('\n') === -1 ? text.length : text.indexOf('\n') + 1).trimStart();
    else if (text.startsWith('/*')) text = text.slice(text.indexOf('*/') === -1 ? text.length : text.indexOf('*/') + 2).trimStart();
    else return text;
  }
}

/**
 * One reading statement. Two locks: the statement must begin as a read (SELECT, WITH, VALUES,
 * EXPLAIN, a reading PRAGMA), and it runs with `PRAGMA query_only` on, so SQLite itself refuses any
 * write (`WITH … DELETE`, a write hidden anywhere) with "attempt to write a readonly database".
 */
function sql({ db }: Inspected, text: string): InspectResult {
  if (!db) return refused('SQL runs on the local database only.');
  const body = withoutLeadingComments(text);
  if (!body) return refused('Write a statement to run.');
  if (!READING.test(body) && !READ_PRAGMAS.test(body)) return refused('The dev database is read-only here: only SELECT, WITH, VALUES, EXPLAIN and reading PRAGMAs run. Change data through a mutation.');
  db.exec('PRAGMA query_only = ON');
  let statements: ReturnType<Database['iterateStatements']> | undefined;
  try {
    statements = db.iterateStatements(text);
    const first = statements.next();
    if (first.done || !first.value) return refused('Write a statement to run.');
    if (withoutLeadingComments(statements.getRemainingSQL().replace(/^[\s;]+/, '')).replace(/^[\s;]+/, '') !== '') return refused('One statement at a time.');
    return { kind: 'sql', grid: gridOf(first.value) };
  } catch (error) {
    return refused(describeError(error));
  } finally {
    (statements as unknown as { return?(): void } | undefined)?.return?.();
    db.exec('PRAGMA query_only = OFF');
  }
}

function diagnosticInfo(d: Diagnostic): InspectDiagnostic {
  const detail: Record<string, string | number | boolean | null> = {};
  for (const [key, value] of Object.entries((d as { detail?: Record<string, unknown> }).detail ?? {}).slice(0, 32)) {
    detail[key.slice(0, 100)] = value === null || typeof value === 'number' || typeof value === 'boolean' ? value : (typeof value === 'string' ? value : JSON.stringify(value) ?? '').slice(0, 2000);
  }
  return { code: d.code, severity: d.severity, message: d.message.slice(0, INSPECT_LIMITS.message), ...(Object.keys(detail).length ? { detail } : {}) };
}

/** A project-data document (its prefix is checked before the text is parsed twice), or undefined. */
function projectDataOf(text: string): unknown {
  if (!/^\s*\{\s*"protocol"\s*:\s*"platform\.project-data\.v0"/.test(text.slice(0, 200))) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return isProjectDataDocument(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A state export's records, or a project-data document's records and then its stored objects. The
 * objects are checked before anything is written; a refused state writes no object either.
 */
async function importData(target: Inspected, text: string): Promise<InspectResult> {
  const document = projectDataOf(text);
  let stateText: string | undefined = text;
  let objects: ObjectEntry[] = [];
  if (document !== undefined) {
    const parsed = parseProjectData(document, MAX_ZIP_OBJECT_BYTES);
    if (!parsed.ok) return refused(`The stored objects are refused (${parsed.error.code}): ${parsed.error.message}.`);
    stateText = parsed.data.state === undefined ? undefined : JSON.stringify(parsed.data.state);
    objects = parsed.data.objects;
  }
  let counts: Record<string, number> = {};
  if (stateText !== undefined) {
    const result = importStateText(target.driver, target.manifest, stateText, target.policies ? { policies: target.policies } : {});
    if (!result.ok) return refused(result.diagnostic.message, diagnosticInfo(result.diagnostic));
    counts = result.counts;
  }
  const store = new SqlObjectStore(target.driver);
  for (const object of objects) await store.put({ ...object, size: object.bytes.length });
  return { kind: 'import-state', counts, ...(document !== undefined ? { objects: objects.length } : {}) };
}

/** One row changed as a persona, by the runtime's table API under the table's policy (AppRuntime.updateRow). */
async function updateRow(target: Inspected, query: Extract<InspectQuery, { kind: 'update-row' }>): Promise<InspectResult> {
  if (!target.runtime || !target.caller) return refused('Rows are edited in the running app only.');
  if (!isPersona(query.persona)) return refused(`Unknown persona "${String(query.persona).slice(0, 100)}".`);
  let patch: unknown;
  try {
    patch = decodeJson(query.patch);
  } catch (error) {
    return refused(`The edit is not wire JSON: ${describeError(error)}`);
  }
  if (!isPlainObject(patch)) return refused('An edit is an object of field values.');
  const outcome = await target.runtime.updateRow(target.caller(query.persona), String(query.table), String(query.id), patch);
  const error = outcome.error ? { code: outcome.error.code.slice(0, 100), message: outcome.error.message.slice(0, INSPECT_LIMITS.message), errorId: outcome.error.errorId.slice(0, 100) } : undefined;
  return { kind: 'update-row', status: outcome.status, ...(error ? { error } : {}), wrote: { tables: [...outcome.wrote.tables], storage: outcome.wrote.storage } };
}

export async function inspect(target: Inspected, query: InspectQuery): Promise<InspectResult> {
  switch (query.kind) {
    case 'overview':
      return overview(target);
    case 'rows':
      return rows(target, query.table, query.offset, query.limit);
    case 'sql':
      return sql(target, query.sql);
    case 'storage-list': {
      const limit = Math.min(Math.max(1, Math.floor(query.limit)), INSPECT_LIMITS.objects);
      const listed = await new SqlObjectStore(target.driver).list({ prefix: '', ...(query.after !== undefined ? { after: query.after } : {}), limit: limit + 1 });
      return { kind: 'storage-list', objects: listed.slice(0, limit), more: listed.length > limit };
    }
    case 'storage-get': {
      const object = await new SqlObjectStore(target.driver).get(query.key);
      if (object && object.bytes.length > INSPECT_LIMITS.objectBytes) return refused(`The object is larger than ${INSPECT_LIMITS.objectBytes} bytes.`);
      return { kind: 'storage-get', object: object ? { key: object.key, size: object.size, contentType: object.contentType, uploadedAt: object.uploadedAt, bytes: object.bytes.slice() } : null };
    }
    case 'export-state': {
      const result = exportState(target.driver, target.manifest);
      if (!result.ok) return refused(result.diagnostic.message, diagnosticInfo(result.diagnostic));
      const text = JSON.stringify(result.document, null, 2);
      if (text.length > INSPECT_LIMITS.exportChars) return refused('The state export is over 32 MiB.');
      return { kind: 'export-state', text };
    }
    case 'import-state':
      return importData(target, query.text);
    case 'update-row':
      return updateRow(target, query);
    default: {
      const unknown: never = query;
      return refused(`Unknown inspection ${JSON.stringify(unknown)}`);
    }
  }
}
