/**
 * The database side of `platform db`, `export` and `import` against a running local server: requests of
 * protocol `platform.local-admin.v0`, answered inside the engine over the app's own SqlDriver. The
 * local server passes them on only with its admin secret, signed as the `admin` identity, which the
 * control plane never signs for a visitor; hosted, this route does not exist.
 */
import { listedTables, quoteIdentifier, type SqlDriver, type SqlValue } from '../runtime/index.ts';
import { diagnostic, type Diagnostic } from '../diagnostics/index.ts';
import type { Manifest } from '../manifest/index.ts';
import { abortStagedImport, beginStagedImport, commitStagedImport, EXPORT_PAGE_ROWS, exportPage, IMPORT_BATCH_ROWS, stageRows, type ExportPage } from '../state/index.ts';
import type { CallRecord } from '../deploy/index.ts';

export const ADMIN_PROTOCOL = 'platform.local-admin.v0';
/** The path of the admin route on a local server (under the reserved `/_platform/`). */
export const ADMIN_PATH = '/_platform/admin/v0';
/** The header carrying a local server's admin secret. */
export const ADMIN_SECRET_HEADER = 'x-platform-admin-secret';
/** Rows one `db exec` answer holds at most. */
export const ADMIN_MAX_ROWS = 1000;

export type AdminRequest =
  | { protocol: typeof ADMIN_PROTOCOL; op: 'tables' }
  | { protocol: typeof ADMIN_PROTOCOL; op: 'schema'; table?: string }
  | { protocol: typeof ADMIN_PROTOCOL; op: 'sql'; sql: string }
  /** One page of the state export (`cursor` from the previous page; `maxRows` at most EXPORT_PAGE_ROWS). */
  | { protocol: typeof ADMIN_PROTOCOL; op: 'export-page'; cursor?: string; maxRows?: number }
  /** A streamed import: the document's head, then its rows in batches, then commit (or abort). */
  | { protocol: typeof ADMIN_PROTOCOL; op: 'import-begin'; head: unknown }
  | { protocol: typeof ADMIN_PROTOCOL; op: 'import-rows'; session: string; table: string; first: number; rows: unknown[] }
  | { protocol: typeof ADMIN_PROTOCOL; op: 'import-commit'; session: string }
  | { protocol: typeof ADMIN_PROTOCOL; op: 'import-abort'; session: string }
  /** Answered by the local server itself, not the engine: what it serves, and its recent calls. */
  | { protocol: typeof ADMIN_PROTOCOL; op: 'manifest' }
  | { protocol: typeof ADMIN_PROTOCOL; op: 'logs'; after?: string };

export interface TableSummary {
  name: string;
  declared: boolean;
  rows: number;
}
export interface TableSchema {
  name: string;
  declared: boolean;
  columns: Array<{ name: string; type: string; notNull: boolean; primaryKey: boolean }>;
  indexes: Array<{ name: string; unique: boolean; columns: string[] }>;
}
export type AdminResult =
  | { op: 'tables'; tables: TableSummary[] }
  | { op: 'schema'; tables: TableSchema[] }
  | { op: 'sql'; columns: string[]; rows: SqlValue[][]; truncated: boolean }
  | { op: 'export-page'; page: ExportPage }
  | { op: 'import-begin'; session: string }
  | { op: 'import-rows'; staged: number }
  | { op: 'import-commit'; counts: Record<string, number> }
  | { op: 'import-abort' }
  | { op: 'manifest'; manifest: Manifest }
  | { op: 'logs'; calls: CallRecord[]; cursor: string };

export type AdminAnswer = { protocol: typeof ADMIN_PROTOCOL; ok: true; result: AdminResult } | { protocol: typeof ADMIN_PROTOCOL; ok: false; diagnostic: Diagnostic };

/** The app's declared tables first (in the manifest's order), then the runtime's own. */
function ordered(driver: SqlDriver, manifest: Pick<Manifest, 'database'>): Array<{ name: string; declared: boolean }> {
  const declared = Object.keys(manifest.database?.tables ?? {});
  const present = listedTables(driver);
  return [...declared.filter((name) => present.includes(name)).map((name) => ({ name, declared: true })), ...present.filter((name) => !declared.includes(name)).map((name) => ({ name, declared: false }))];
}

/** An SQL string literal. */
const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;

function schemaOf(driver: SqlDriver, name: string, declared: boolean): TableSchema {
  const columns = driver.all(`SELECT name, type, "notnull" AS nn, pk FROM pragma_table_info(${literal(name)})`).map((c) => ({ name: String(c.name), type: String(c.type ?? ''), notNull: Number(c.nn) === 1, primaryKey: Number(c.pk) > 0 }));
  const indexes = driver.all(`SELECT name, "unique" AS u FROM pragma_index_list(${literal(name)})`).map((i) => ({
    name: String(i.name),
    unique: Number(i.u) === 1,
    columns: driver.all(`SELECT name FROM pragma_index_info(${literal(String(i.name))})`).map((c) => String(c.name ?? '(expression)')),
  }));
  return { name, declared, columns, indexes };
}

const READING = /^\s*(?:SELECT|WITH|VALUES|EXPLAIN)\b/i;

/** Why an admin request body is not one, or undefined. */
export function adminRequestProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return 'not an object';
  const request = value as Record<string, unknown>;
  if (request.protocol !== ADMIN_PROTOCOL) return `protocol is not ${ADMIN_PROTOCOL}`;
  switch (request.op) {
    case 'tables':
    case 'manifest':
      return undefined;
    case 'export-page':
      if (request.cursor !== undefined && typeof request.cursor !== 'string') return 'cursor is not a string';
      return request.maxRows === undefined || (Number.isInteger(request.maxRows) && (request.maxRows as number) >= 1) ? undefined : 'maxRows is not a positive integer';
    case 'import-begin':
      return 'head' in request ? undefined : 'head is missing';
    case 'import-rows':
      if (typeof request.session !== 'string' || typeof request.table !== 'string') return 'session or table is not a string';
      if (!Number.isInteger(request.first) || (request.first as number) < 0) return 'first is not a row index';
      return Array.isArray(request.rows) && request.rows.length <= IMPORT_BATCH_ROWS ? undefined : `rows is not an array of at most ${IMPORT_BATCH_ROWS}`;
    case 'import-commit':
    case 'import-abort':
      return typeof request.session === 'string' ? undefined : 'session is not a string';
    case 'logs':
      return request.after === undefined || typeof request.after === 'string' ? undefined : 'after is not a string';
    case 'schema':
      return request.table === undefined || typeof request.table === 'string' ? undefined : 'table is not a string';
    case 'sql':
      return typeof request.sql === 'string' ? undefined : 'sql is not a string';
    default:
      return `unknown op ${JSON.stringify(request.op)}`;
  }
}

/** Answers one admin request over the app's database. */
export async function answerAdmin(driver: SqlDriver, manifest: Manifest, request: AdminRequest): Promise<AdminAnswer> {
  const ok = (result: AdminResult): AdminAnswer => ({ protocol: ADMIN_PROTOCOL, ok: true, result });
  const refused = (d: Diagnostic): AdminAnswer => ({ protocol: ADMIN_PROTOCOL, ok: false, diagnostic: d });
  switch (request.op) {
    case 'tables':
      return ok({ op: 'tables', tables: ordered(driver, manifest).map(({ name, declared }) => ({ name, declared, rows: Number(driver.all(`SELECT count(*) AS n FROM ${quoteIdentifier(name)}`)[0]?.n ?? 0) })) });
    case 'schema': {
      const tables = ordered(driver, manifest).filter((t) => request.table === undefined || t.name === request.table);
      if (request.table !== undefined && tables.length === 0) return refused(diagnostic('DG1840', `The running app's database has no table "${request.table}".`, { hint: 'List its tables with platform db tables.' }));
      return ok({ op: 'schema', tables: tables.map(({ name, declared }) => schemaOf(driver, name, declared)) });
    }
    case 'sql': {
      if (!READING.test(request.sql)) return refused(diagnostic('DG1840', 'platform db exec runs reading SQL only (SELECT, WITH, VALUES, EXPLAIN).', { hint: 'Change data through a mutation of the app, or replace it whole with platform import.' }));
      try {
        // The driver refuses any statement that writes inside a read-only transaction, and rolls it back.
        const rows = await driver.transaction(async () => driver.all(request.sql), { readOnly: true });
        const columns = rows[0] ? Object.keys(rows[0]) : [];
        return ok({ op: 'sql', columns, rows: rows.slice(0, ADMIN_MAX_ROWS).map((row) => columns.map((c) => row[c] ?? null)), truncated: rows.length > ADMIN_MAX_ROWS });
      } catch (error) {
        return refused(diagnostic('DG1840', `The statement failed: ${error instanceof Error ? error.message : String(error)}`, { hint: 'Only reading statements run; check the table and column names with platform db schema.' }));
      }
    }
    case 'export-page': {
      const result = exportPage(driver, manifest, request.cursor, { maxRows: Math.min(request.maxRows ?? EXPORT_PAGE_ROWS, EXPORT_PAGE_ROWS) });
      return result.ok ? ok({ op: 'export-page', page: result.page }) : refused(result.diagnostic);
    }
    case 'import-begin': {
      const session = crypto.randomUUID();
      const result = beginStagedImport(driver, manifest, request.head, session);
      return result.ok ? ok({ op: 'import-begin', session }) : refused(result.diagnostic);
    }
    case 'import-rows': {
      const result = stageRows(driver, manifest, request.session, request.table, request.first, request.rows);
      return result.ok ? ok({ op: 'import-rows', staged: result.staged }) : refused(result.diagnostic);
    }
    case 'import-commit': {
      const result = commitStagedImport(driver, manifest, request.session);
      return result.ok ? ok({ op: 'import-commit', counts: result.counts }) : refused(result.diagnostic);
    }
    case 'import-abort':
      abortStagedImport(driver, manifest, request.session);
      return ok({ op: 'import-abort' });
    case 'manifest':
    case 'logs':
      return refused(diagnostic('DG1842', `The engine does not answer ${request.op}: the local server does.`));
    default: {
      const unknown: never = request;
      return refused(diagnostic('DG1842', `Unknown admin request ${JSON.stringify(unknown)}.`));
    }
  }
}
