/**
 * State import: a `platform.state-export.v0` document written into an application database through a
 * SqlDriver, in one transaction. Every table's rows are replaced by the document's; stored objects are
 * left as they are. All or nothing: on any refusal nothing is written.
 */
import type { Result } from '../result.ts';
import type { Diagnostic } from '../diagnostics/index.ts';
import type { FieldDeclaration, Manifest } from '../manifest/index.ts';
import { quoteIdentifier, type SqlDriver, type SqlValue, tableOrder, type DatabaseDeclaration, compareSchemas, describeProblems, type DataFacts, type PolicyKind, encodeValue } from '../runtime/index.ts';
import { parseStateExport, parseStateExportText, refused, stateSchemaIdentity, type ParsedStateExport, type StateRow } from './document.ts';
import { initialiseDatabase, storedIdentity } from './meta.ts';

export type StateImportResult = Result<{ counts: Record<string, number> }, { diagnostic: Diagnostic }>;

export interface ImportOptions {
  /** The server definition's table policies: a policy's field cannot change under imported rows. */
  policies?: ReadonlyMap<string, PolicyKind>;
}

interface PreparedInsert {
  table: string;
  id: string;
  sql: string;
  params: SqlValue[];
}

const RUNTIME_KEYS = new Set(['id', 'createdAt', 'updatedAt']);

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Whether a decoded value is the field's declared default (a datetime default is ISO text). */
function isDefault(field: FieldDeclaration, value: unknown): boolean {
  if (field.default === undefined) return false;
  if (value instanceof Date) return typeof field.default === 'string' && value.getTime() === Date.parse(field.default);
  return value === field.default;
}

/** The declaration the export's rows were stored under. */
function exportedDeclaration(state: ParsedStateExport): DatabaseDeclaration | null {
  const { document: exported } = state;
  return exported.database as DatabaseDeclaration | null;
}

/** What a document's rows hold, for the schema-change rules. */
function documentFacts(state: ParsedStateExport): DataFacts {
  return {
    rows: (table) => state.rows[table]?.length ?? 0,
    rowsHolding: (table, field, declaration) =>
      (state.rows[table] ?? []).filter((row) => Object.hasOwn(row, field) && row[field] !== null && row[field] !== undefined && !isDefault(declaration, row[field])).length,
  };
}

/** The columns and SQL values of one decoded row of `table`, checked against its declaration, or DG1824 `state_import_record_invalid`. */
export function prepareRow(table: string, fields: Record<string, FieldDeclaration>, row: StateRow): { columns: string[]; params: SqlValue[] } | Diagnostic {
  const invalid = (message: string, field?: string) =>
    refused('state_import_record_invalid', `Record ${table}/${row.id.slice(0, 80)} cannot be imported: ${message}`, { table, id: row.id, ...(field ? { field } : {}) });
  const columns = ['id', 'createdAt', 'updatedAt'];
  const params: SqlValue[] = [row.id, row.createdAt.getTime(), row.updatedAt.getTime()];
  for (const key of Object.keys(row)) {
    if (RUNTIME_KEYS.has(key)) continue;
    if (!Object.hasOwn(fields, key)) return invalid(`unknown field ${JSON.stringify(key.slice(0, 80))}.`, key);
    if (fields[key]!.generated) return invalid(`field "${key}" is generated; SQLite computes it.`, key);
  }
  for (const [name, field] of Object.entries(fields) as Array<[string, FieldDeclaration]>) {
    if (field.generated) continue;
    const value = Object.hasOwn(row, name) ? row[name] : undefined;
    if (value === null && !field.optional) return invalid(`the required field "${name}" is null.`, name);
    if (value === undefined || value === null) {
      // Absent: an optional field holds no value; a required one takes its default or is refused.
      if (!field.optional && field.default === undefined) return invalid(`the required field "${name}" has no value.`, name);
      if (field.optional) {
        columns.push(name);
        params.push(null);
      }
      continue;
    }
    try {
      params.push(encodeValue(table, name, field, value));
    } catch (error) {
      return invalid(errorText(error), name);
    }
    columns.push(name);
  }
  return { columns, params };
}

/**
 * Checks every row against the manifest's tables and encodes it for SQL; the first bad record is
 * DG1824 `state_import_record_invalid` naming its table and id.
 */
function prepareInserts(manifest: Pick<Manifest, 'database'>, state: ParsedStateExport): PreparedInsert[] | Diagnostic {
  const database = manifest.database;
  const out: PreparedInsert[] = [];
  if (!database) return out;
  for (const table of tableOrder(database)) {
    const fields = database.tables[table]!.fields;
    for (const row of state.rows[table] ?? []) {
      const prepared = prepareRow(table, fields, row);
      if (!('columns' in prepared)) return prepared;
      out.push({
        table,
        id: row.id,
        sql: `INSERT INTO ${quoteIdentifier(table)} (${prepared.columns.map(quoteIdentifier).join(', ')}) VALUES (${prepared.columns.map(() => '?').join(', ')})`,
        params: prepared.params,
      });
    }
  }
  return out;
}

/**
 * Whether a document of `app` exported under `exportedSchema` may replace the records of `driver`'s
 * database under `manifest`: DG1824 `state_import_application_mismatch`, or `state_import_schema_mismatch`
 * (the document's schema is not the manifest's; or the database was created for another). `facts`
 * says what the document's rows hold, to name what they could not follow; a streamed import, which has
 * not read its rows yet, names nothing. On success, whether the database was never initialised.
 */
export function checkImportTarget(
  driver: SqlDriver,
  manifest: Pick<Manifest, 'name' | 'database'>,
  exported: { app: string; schema: string; database: DatabaseDeclaration | null },
  facts: DataFacts | undefined,
  options: ImportOptions = {},
): { ok: true; initialise: boolean } | { ok: false; diagnostic: Diagnostic } {
  if (exported.app !== manifest.name) {
    return {
      ok: false,
      diagnostic: refused('state_import_application_mismatch', `The export belongs to the application "${exported.app}", not "${manifest.name}".`, {
        expected: manifest.name,
        actual: exported.app,
      }),
    };
  }
  const schema = stateSchemaIdentity(manifest);
  if (exported.schema !== schema) {
    // tooling.md, Versioning 4: an import succeeds only when the schema identities match, a compatible
    // change since the export included. What its records could not follow is named all the same.
    let problems: ReturnType<typeof compareSchemas>['problems'] = [];
    if (facts) {
      try {
        problems = compareSchemas(exported.database, manifest.database ?? null, facts, options.policies).problems;
      } catch (error) {
        return { ok: false, diagnostic: refused('state_import_schema_mismatch', `The export's database declaration cannot be read: ${errorText(error)}`, { expected: schema, actual: exported.schema }) };
      }
    }
    const why = problems.length > 0 ? `; besides, its records could not follow the change: ${describeProblems(problems)}` : '';
    return {
      ok: false,
      diagnostic: refused('state_import_schema_mismatch', `The export was made under another database declaration (${exported.schema.slice(0, 19)}…) than the one in force (${schema.slice(0, 19)}…)${why}.`, {
        expected: schema,
        actual: exported.schema,
        ...(problems.length > 0 ? { problems } : {}),
      }),
    };
  }
  let stored: string | undefined;
  try {
    stored = storedIdentity(driver);
  } catch (error) {
    return { ok: false, diagnostic: refused('state_import_schema_mismatch', `The database cannot be read: ${errorText(error)}`) };
  }
  if (stored !== undefined && stored !== schema) {
    return {
      ok: false,
      diagnostic: refused('state_import_schema_mismatch', 'The database was created for another schema than the manifest\'s: reset the state first.', { expected: schema, actual: stored }),
    };
  }
  return { ok: true, initialise: stored === undefined };
}

/**
 * Imports a document (the parsed JSON value, or a ParsedStateExport) into `driver`, whose database is
 * the application's (or empty: it is then initialised as the runtime would). In order:
 * DG1822 for an unusable document; DG1824 `state_import_application_mismatch` when `app` is not the
 * manifest's name; DG1824 `state_import_schema_mismatch` when the document was exported under
 * another schema identity than the manifest's (tooling.md, Versioning 4: a compatible change since
 * the export is refused too; `detail.problems` names what its records could not follow, by the
 * runtime's schema-change rules), or when the database's schema identity is not the manifest's; DG1824 `state_import_record_invalid` for a record the
 * tables refuse (a value of the wrong type, a constraint, a dangling reference); DG1824
 * `state_export_too_large` for text over MAX_STATE_EXPORT_BYTES (importStateText). Never throws for any document; the driver must not be
 * inside a transaction.
 *
 * @example
 * const result = importState(driver, manifest, JSON.parse(text));
 * if (!result.ok) show(result.diagnostic); // nothing was written
 */
export function importState(driver: SqlDriver, manifest: Pick<Manifest, 'name' | 'database'>, document: unknown, options: ImportOptions = {}): StateImportResult {
  let state: ParsedStateExport;
  if (isParsed(document)) state = document;
  else {
    const parsed = parseStateExport(document);
    if (!parsed.ok) return parsed;
    state = parsed.state;
  }
  const target = checkImportTarget(driver, manifest, { app: state.app, schema: state.schema, database: exportedDeclaration(state) }, documentFacts(state), options);
  if (!target.ok) return target;
  const inserts = prepareInserts(manifest, state);
  if (!Array.isArray(inserts)) return { ok: false, diagnostic: inserts };
  return write(driver, manifest, target.initialise, inserts);
}

/** Parses document text (size first, then JSON) and imports it. */
export function importStateText(driver: SqlDriver, manifest: Pick<Manifest, 'name' | 'database'>, text: string, options: ImportOptions = {}): StateImportResult {
  const parsed = parseStateExportText(text);
  return parsed.ok ? importState(driver, manifest, parsed.state, options) : parsed;
}

function isParsed(value: unknown): value is ParsedStateExport {
  return typeof value === 'object' && value !== null && 'rows' in value && 'document' in value && (value as ParsedStateExport).exportedAt instanceof Date;
}

/** Thrown inside the transaction to roll it back with a refusal already made. */
class Refused extends Error {
  constructor(readonly result: StateImportResult) {
    super('refused');
  }
}

/** The first row that refers to a missing row, where the engine can tell (a Durable Object may refuse the pragma; its deferred check at commit still holds). */
export function dangling(driver: SqlDriver): StateImportResult | undefined {
  let rows: ReturnType<SqlDriver['all']>;
  try {
    rows = driver.all('PRAGMA foreign_key_check');
  } catch {
    return undefined;
  }
  const first = rows[0];
  if (!first) return undefined;
  const table = String(first.table);
  const rowid = first.rowid;
  const id = rowid === null || rowid === undefined ? undefined : driver.all(`SELECT id FROM ${quoteIdentifier(table)} WHERE rowid = ?`, [rowid])[0]?.id;
  return {
    ok: false,
    diagnostic: refused('state_import_record_invalid', `Record ${table}/${String(id ?? '?').slice(0, 80)} cannot be imported: it refers to a missing row of ${String(first.parent)}.`, { table, ...(typeof id === 'string' ? { id } : {}) }),
  };
}

function write(driver: SqlDriver, manifest: Pick<Manifest, 'database'>, initialise: boolean, inserts: PreparedInsert[]): StateImportResult {
  const order = manifest.database ? tableOrder(manifest.database) : [];
  let current: PreparedInsert | undefined;
  try {
    // One transaction through the driver (a Durable Object refuses BEGIN). Foreign keys are checked
    // once, over the whole new state, at COMMIT: rows may arrive in any order and refer to each other in cycles.
    driver.transactionSync(() => {
      driver.exec('PRAGMA defer_foreign_keys = ON');
      if (initialise) initialiseDatabase(driver, manifest.database ?? null);
      for (const table of [...order].reverse()) driver.exec(`DELETE FROM ${quoteIdentifier(table)}`);
      for (const insert of inserts) {
        current = insert;
        driver.exec(insert.sql, insert.params);
      }
      current = undefined;
      const refusal = dangling(driver);
      if (refusal) throw new Refused(refusal);
    });
  } catch (error) {
    if (error instanceof Refused) return error.result;
    const where = current ? `Record ${current.table}/${current.id.slice(0, 80)} cannot be imported: ` : 'The import failed: ';
    return {
      ok: false,
      diagnostic: refused('state_import_record_invalid', `${where}${errorText(error)}`, current ? { table: current.table, id: current.id } : {}),
    };
  }
  const counts: Record<string, number> = {};
  for (const table of order) counts[table] = 0;
  for (const insert of inserts) counts[insert.table] = (counts[insert.table] ?? 0) + 1;
  return { ok: true, counts };
}
