/**
 * The `platform.state-export.v0` document: its shape, its limits, and the parser that turns any value
 * into a checked document or one DG1822/DG1824 diagnostic. Never throws.
 *
 * ```json
 * { "protocol": "platform.state-export.v0", "app": "todo", "schema": "sha256:<64 hex>",
 *   "database": { "tables": { … } }, "exportedAt": "2026-01-02T03:04:05.000Z",
 *   "tables": { "todos": [ { "id": "…", "createdAt": { "$date": "…" }, "updatedAt": { "$date": "…" }, "title": "milk" } ] } }
 * ```
 * Rows hold values in the wire encoding (`$date`, `$bytes`, `$escape`). Database records only: no
 * stored objects, not even their metadata (docs/decisions.md).
 */
import type { Result } from '../result.ts';
import { type DatabaseDeclaration, databaseIdentity } from '../runtime/index.ts';
import { diagnostic, type Diagnostic } from '../diagnostics/index.ts';
import type { Manifest } from '../manifest/index.ts';
import { decodeValue } from '../../modules/wire.ts';
import type { JsonValue } from '../../modules/types.ts';

export const STATE_EXPORT_PROTOCOL = 'platform.state-export.v0';

/**
 * Largest document held whole in memory, as JSON text (UTF-8 bytes): the playground's Data panel and a
 * share link. `platform export`/`import` and a hosted export stream a document of any size in pages
 * (stream.ts); there `state_export_too_large` is only a single record over EXPORT_PAGE_BYTES.
 */
export const MAX_STATE_EXPORT_BYTES = 32 * 1024 * 1024;
/** Deepest nesting of arrays and objects anywhere in a document (a json field's value included). */
export const MAX_STATE_EXPORT_DEPTH = 64;
/** Longest row id accepted. */
export const MAX_ROW_ID_LENGTH = 1024;

/** The `detail.code` values of DG1824. */
export type StateRefusalCode =
  | 'state_import_schema_mismatch'
  | 'state_import_application_mismatch'
  | 'state_import_record_invalid'
  | 'state_export_too_large';

/** The document as JSON. */
export interface StateExportDocument {
  protocol: typeof STATE_EXPORT_PROTOCOL;
  /** The manifest `name` of the application it was exported from. */
  app: string;
  /** The schema identity: `sha256:` + SHA-256 hex of canonical JSON of `{ database }` (see `stateSchemaIdentity`). */
  schema: string;
  /** The manifest's `database` block the rows were stored under, or null for an app without one. */
  database: JsonValue;
  /** ISO 8601. */
  exportedAt: string;
  /** Declared table name → its rows ordered by (createdAt, id), values wire-encoded. */
  tables: Record<string, JsonValue[]>;
}

/** A row decoded from the wire: `id`, `createdAt`, `updatedAt` (Dates) and the fields it holds. */
export type StateRow = { id: string; createdAt: Date; updatedAt: Date } & Record<string, unknown>;

/** A document that passed every check that needs no manifest. */
export interface ParsedStateExport {
  document: StateExportDocument;
  app: string;
  schema: string;
  exportedAt: Date;
  /** Decoded rows per table, in document order. */
  rows: Record<string, StateRow[]>;
  rowCount: number;
}

export type StateParseResult = Result<{ state: ParsedStateExport }, { diagnostic: Diagnostic }>;

const APP_NAME = /^[a-z][a-z0-9-]{1,62}$/;
const SCHEMA = /^sha256:[0-9a-f]{64}$/;
const TABLE_NAME = /^[A-Za-z][A-Za-z0-9_]*$/;
const KEYS = ['protocol', 'app', 'schema', 'database', 'exportedAt', 'tables'];

/**
 * The schema identity of a manifest: the same SHA-256 the runtime stamps on a database it creates
 * (`schemaIdentity` in runtime.ts), written `sha256:<hex>`. An export imports as it is under the same
 * identity; under another, its records follow the change when the runtime's schema-change rules allow
 * it (docs/runtime.md, "Schema changes"), as a database's rows would.
 */
export function stateSchemaIdentity(manifest: Pick<Manifest, 'database'>): string {
  return `sha256:${databaseIdentity(manifest.database ?? null)}`;
}

/** DG1822: not a usable document. */
export function unusable(message: string, detail?: Record<string, unknown>): Diagnostic {
  return diagnostic('DG1822', message, {
    hint: 'Import a document made by an export, unmodified; export it again if it was edited or cut short.',
    ...(detail ? { detail } : {}),
  });
}

/** DG1824: the runtime refused the transfer, with `detail.code`. */
export function refused(code: StateRefusalCode, message: string, detail: Record<string, unknown> = {}): Diagnostic {
  const hints: Record<StateRefusalCode, string> = {
    state_import_schema_mismatch: 'Export again from an application with the same database declaration, or change the manifest back; there is no forced import.',
    state_import_application_mismatch: 'Import the document into the application it was exported from (same manifest name).',
    state_import_record_invalid: 'Fix or remove the record named in the message and import again; nothing was written.',
    state_export_too_large: `A document held whole in memory (the playground's Data panel, a share link) is at most ${MAX_STATE_EXPORT_BYTES} bytes of JSON; platform export and platform import stream any size.`,
  };
  return diagnostic('DG1824', message, { hint: hints[code], detail: { code, ...detail } });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** Whether nesting goes deeper than `max`; iterative, so hostile depth cannot overflow the stack. */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (item === null || typeof item !== 'object') continue;
    if (depth >= max) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item as object)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}

function isDate(value: unknown): value is Date {
  return Object.prototype.toString.call(value) === '[object Date]' && !Number.isNaN((value as Date).getTime());
}

/**
 * Parses document text: refuses text over MAX_STATE_EXPORT_BYTES (DG1824 `state_export_too_large`)
 * before parsing, and text that is not JSON (DG1822).
 */
export function parseStateExportText(text: string): StateParseResult {
  if (typeof text !== 'string') return { ok: false, diagnostic: unusable('A state export must be JSON text.') };
  // UTF-8 is at most 3 bytes per UTF-16 code unit: only count bytes when the text could be too large.
  if (text.length * 3 > MAX_STATE_EXPORT_BYTES && new TextEncoder().encode(text).length > MAX_STATE_EXPORT_BYTES) {
    return { ok: false, diagnostic: refused('state_export_too_large', `The state export is larger than ${MAX_STATE_EXPORT_BYTES} bytes.`) };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, diagnostic: unusable(`The state export is not JSON: ${error instanceof Error ? error.message : String(error)}.`) };
  }
  return parseStateExport(value);
}

/**
 * Checks a parsed JSON value against the document format, without a manifest: the protocol, every
 * key's type, that `schema` is the identity of the document's own `database` and that every table and
 * row agrees with it (else DG1822, "self-contradicting"); the row limit (DG1824
 * `state_export_too_large`). Field values are checked against the schema in force by `importState`.
 */
export function parseStateExport(value: unknown): StateParseResult {
  try {
    return parseChecked(value);
  } catch (error) {
    // Unreachable by design; a last line so that nothing throws past the parser.
    return { ok: false, diagnostic: unusable(`The state export could not be read: ${error instanceof Error ? error.message : String(error)}.`) };
  }
}

/** A document's head (every key but the rows) that passed its checks: what a streamed import begins with. */
export interface StateExportHead {
  app: string;
  schema: string;
  exportedAt: Date;
  /** The document's own `database` block. */
  database: DatabaseDeclaration | null;
  /** The tables it declares, by name. */
  declared: Record<string, unknown>;
}

/**
 * Checks everything of a document but its rows (`value.tables` may hold empty arrays): the protocol,
 * every key's type, that `schema` is the identity of its own `database`, and that each table it holds
 * is declared there. One rule for the whole-document parser and the streamed import.
 */
export function checkStateExportHead(value: unknown): { ok: true; head: StateExportHead } | { ok: false; diagnostic: Diagnostic } {
  const fail = (message: string, detail?: Record<string, unknown>) => ({ ok: false as const, diagnostic: unusable(message, detail) });
  if (!isRecord(value)) return fail('A state export must be a JSON object.');
  if (value.protocol !== STATE_EXPORT_PROTOCOL) {
    return fail(
      typeof value.protocol === 'string'
        ? `The document's protocol is ${JSON.stringify(value.protocol.slice(0, 80))}, not "${STATE_EXPORT_PROTOCOL}".`
        : `The document has no "protocol": "${STATE_EXPORT_PROTOCOL}".`,
    );
  }
  const unknown = Object.keys(value).filter((key) => !KEYS.includes(key));
  if (unknown.length > 0) return fail(`Unknown key ${JSON.stringify(unknown[0]!.slice(0, 80))} in the state export.`);
  if (typeof value.app !== 'string' || !APP_NAME.test(value.app)) return fail('"app" must be an application name (the manifest name).');
  if (typeof value.schema !== 'string' || !SCHEMA.test(value.schema)) return fail('"schema" must be "sha256:" followed by 64 lowercase hex digits.');
  if (typeof value.exportedAt !== 'string' || Number.isNaN(Date.parse(value.exportedAt))) return fail('"exportedAt" must be an ISO 8601 date.');
  if (!('database' in value) || (value.database !== null && !isRecord(value.database))) return fail('"database" must be the manifest\'s database block or null.');
  if (!isRecord(value.tables)) return fail('"tables" must be an object of table name → rows.');
  if (nestedDeeperThan(value, MAX_STATE_EXPORT_DEPTH)) return fail(`The state export nests deeper than ${MAX_STATE_EXPORT_DEPTH} levels.`);

  const database = value.database as Record<string, unknown> | null;
  if (`sha256:${databaseIdentity(database as DatabaseDeclaration | null)}` !== value.schema) {
    return fail('The document contradicts itself: "schema" is not the identity of its own "database" block.');
  }
  const declared = database && isRecord(database.tables) ? database.tables : {};
  if (database && !isRecord(database.tables)) return fail('"database.tables" must be an object.');
  for (const [table, rows] of Object.entries(value.tables)) {
    const problem = tableProblem(declared, table);
    if (problem) return { ok: false, diagnostic: problem };
    if (!Array.isArray(rows)) return fail(`"tables.${table}" must be an array of rows.`, { table });
  }
  return { ok: true, head: { app: value.app, schema: value.schema, exportedAt: new Date(value.exportedAt), database: database as DatabaseDeclaration | null, declared } };
}

/** DG1822 when a document holds rows of a table its own `database` does not declare. */
export function tableProblem(declared: Record<string, unknown>, table: string): Diagnostic | undefined {
  if (TABLE_NAME.test(table) && Object.hasOwn(declared, table)) return undefined;
  return unusable(`The document contradicts itself: it holds rows of table ${JSON.stringify(table.slice(0, 80))}, which its "database" does not declare.`, { table });
}

/**
 * Decodes one row of `tables.<table>[index]` from the wire and checks what the format itself says of
 * it (an object, `id` of 1 to MAX_ROW_ID_LENGTH characters, `createdAt`/`updatedAt` dates); a
 * StateRow or DG1822. Whether an id is repeated is the caller's (a Set, or a staging table's key).
 */
export function decodeExportRow(table: string, index: number, row: unknown): { ok: true; row: StateRow } | { ok: false; diagnostic: Diagnostic } {
  const at = `tables.${table}[${index}]`;
  const fail = (message: string, detail: Record<string, unknown>) => ({ ok: false as const, diagnostic: unusable(message, detail) });
  if (!isRecord(row)) return fail(`${at} must be an object.`, { table, index });
  let item: unknown;
  try {
    item = decodeValue(row);
  } catch (error) {
    return fail(`${at}: ${error instanceof Error ? error.message : String(error)}`, { table, index });
  }
  const record = item as Record<string, unknown>;
  if (typeof record.id !== 'string' || record.id === '' || record.id.length > MAX_ROW_ID_LENGTH) {
    return fail(`${at}.id must be a string of 1 to ${MAX_ROW_ID_LENGTH} characters.`, { table, index });
  }
  if (!isDate(record.createdAt) || !isDate(record.updatedAt)) {
    return fail(`${at} must have "createdAt" and "updatedAt" as {"$date": ISO 8601}.`, { table, index, id: record.id });
  }
  return { ok: true, row: record as StateRow };
}

/** DG1822 for an id a table holds twice. */
export function repeatedId(table: string, id: string): Diagnostic {
  return unusable(`The document contradicts itself: ${table} holds the id ${JSON.stringify(id.slice(0, 80))} twice.`, { table, id });
}

function parseChecked(value: unknown): StateParseResult {
  const head = checkStateExportHead(value);
  if (!head.ok) return head;
  const checked = value as Record<string, unknown> & { tables: Record<string, unknown[]> };

  let rowCount = 0;
  for (const rows of Object.values(checked.tables)) rowCount += rows.length;
  const decoded: Record<string, StateRow[]> = {};
  for (const [table, rows] of Object.entries(checked.tables)) {
    const ids = new Set<string>();
    const out: StateRow[] = [];
    for (let index = 0; index < rows.length; index++) {
      const decoded = decodeExportRow(table, index, rows[index]);
      if (!decoded.ok) return decoded;
      const record = decoded.row;
      if (ids.has(record.id)) return { ok: false, diagnostic: repeatedId(table, record.id) };
      ids.add(record.id);
      out.push(record);
    }
    decoded[table] = out;
  }
  return {
    ok: true,
    state: {
      document: value as unknown as StateExportDocument,
      app: head.head.app,
      schema: head.head.schema,
      exportedAt: head.head.exportedAt,
      rows: decoded,
      rowCount,
    },
  };
}
