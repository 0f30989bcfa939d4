/**
 * A state import in bounded steps, for documents of any size (`platform import`): begin (the head is
 * checked as importState checks it), rows in batches (each checked and written to a staging table of
 * the engine's own database, never the app's), then commit: one transaction replaces every table's
 * rows with its staged rows (INSERT … SELECT inside SQLite) and checks references over the whole new
 * state. All or nothing: until the commit nothing of the app's is touched, and a commit that fails is
 * rolled back whole; staging tables are dropped at commit, abort, or the next begin.
 */
import type { Result } from '../result.ts';
import { diagnostic, type Diagnostic } from '../diagnostics/index.ts';
import type { FieldDeclaration, Manifest } from '../manifest/index.ts';
import { quoteIdentifier, type SqlDriver, defaultLiteral, PLATFORM_PREFIX, tableOrder } from '../runtime/index.ts';
import { checkStateExportHead, decodeExportRow, MAX_STATE_EXPORT_DEPTH, nestedDeeperThan, refused, repeatedId, stateSchemaIdentity, tableProblem, unusable } from './document.ts';
import { checkImportTarget, dangling, prepareRow, type ImportOptions } from './import.ts';
import { initialiseDatabase, storedIdentity } from './meta.ts';
import type { ImportTarget } from './import-target.ts';

const SESSION_TABLE = `${PLATFORM_PREFIX}import`;
const stagingName = (table: string) => `${PLATFORM_PREFIX}import__${table}`;

/** What begins a streamed import: the document's head, its `tables` an object of table name → [] for the tables it holds. */
export type StagedImportHead = unknown;

/** A step of a staged import: its fields, or the diagnostic that stopped it. */
type Staged<T extends object> = Result<T, { diagnostic: Diagnostic }>;

function staleSession(): Diagnostic {
  return diagnostic('DG1840', 'The import was begun again or ended meanwhile: this import is no longer open.', { hint: 'Run platform import again; nothing was written.' });
}

function dropStaging(driver: SqlDriver, manifest: Pick<Manifest, 'database'>): void {
  for (const table of Object.keys(manifest.database?.tables ?? {})) driver.exec(`DROP TABLE IF EXISTS ${quoteIdentifier(stagingName(table))}`);
  driver.exec(`DROP TABLE IF EXISTS ${quoteIdentifier(SESSION_TABLE)}`);
}

function openSession(driver: SqlDriver, session: string): boolean {
  try {
    return driver.all(`SELECT 1 AS open FROM ${quoteIdentifier(SESSION_TABLE)} WHERE session = ?`, [session]).length === 1;
  } catch {
    return false;
  }
}

/**
 * Checks a document's head against the app (DG1822, DG1824 `state_import_application_mismatch` or
 * `state_import_schema_mismatch`) and opens a staging table per declared table, replacing any import
 * left open. `session` names the import in the later steps (the caller makes it: random, unguessable).
 */
export function beginStagedImport(driver: SqlDriver, manifest: Pick<Manifest, 'name' | 'database'>, head: StagedImportHead, session: string, options: ImportOptions = {}): Staged<object> {
  const checked = checkStateExportHead(head);
  if (!checked.ok) return checked;
  const target = checkImportTarget(driver, manifest, checked.head, undefined, options);
  if (!target.ok) return target;
  driver.transactionSync(() => {
    dropStaging(driver, manifest);
    driver.exec(`CREATE TABLE ${quoteIdentifier(SESSION_TABLE)} (session TEXT PRIMARY KEY NOT NULL)`);
    driver.exec(`INSERT INTO ${quoteIdentifier(SESSION_TABLE)} (session) VALUES (?)`, [session]);
    for (const [table, declaration] of Object.entries(manifest.database?.tables ?? {})) {
      // The table's columns with their defaults (an absent required field takes it), none of its other
      // constraints: those hold at commit, on the table itself. `id` is unique here already.
      const columns = ['"__seq" INTEGER PRIMARY KEY', '"id" TEXT NOT NULL UNIQUE', '"createdAt" INTEGER NOT NULL', '"updatedAt" INTEGER NOT NULL'];
      for (const [name, field] of Object.entries(declaration.fields) as Array<[string, FieldDeclaration]>) {
        if (field.generated) continue;
        columns.push(`${quoteIdentifier(name)}${field.default !== undefined ? ` DEFAULT ${defaultLiteral(table, name, field, field.default)}` : ''}`);
      }
      driver.exec(`CREATE TABLE ${quoteIdentifier(stagingName(table))} (${columns.join(', ')})`);
    }
  });
  return { ok: true };
}

/**
 * Checks rows of `table` (wire-encoded, as in the document, `first` the index of the first in its
 * table) and stages them: DG1822 for a row the format refuses (an id held twice included), DG1824
 * `state_import_record_invalid` for one the table refuses. Nothing of the app's is written.
 */
export function stageRows(driver: SqlDriver, manifest: Pick<Manifest, 'name' | 'database'>, session: string, table: string, first: number, rows: readonly unknown[]): Staged<{ staged: number }> {
  if (!openSession(driver, session)) return { ok: false, diagnostic: staleSession() };
  const declared = manifest.database?.tables ?? {};
  const problem = tableProblem(declared, table);
  if (problem) return { ok: false, diagnostic: problem };
  const fields = declared[table]!.fields;
  const staging = quoteIdentifier(stagingName(table));
  let failure: Diagnostic | undefined;
  try {
    driver.transactionSync(() => {
      for (let i = 0; i < rows.length; i++) {
        if (nestedDeeperThan(rows[i], MAX_STATE_EXPORT_DEPTH - 3)) throw (failure = unusable(`The state export nests deeper than ${MAX_STATE_EXPORT_DEPTH} levels.`, { table, index: first + i }));
        const decoded = decodeExportRow(table, first + i, rows[i]);
        if (!decoded.ok) throw (failure = decoded.diagnostic);
        const prepared = prepareRow(table, fields, decoded.row);
        if (!('columns' in prepared)) throw (failure = prepared);
        try {
          driver.exec(`INSERT INTO ${staging} (${prepared.columns.map(quoteIdentifier).join(', ')}) VALUES (${prepared.columns.map(() => '?').join(', ')})`, prepared.params);
        } catch (error) {
          const repeated = driver.all(`SELECT 1 AS taken FROM ${staging} WHERE id = ?`, [decoded.row.id]).length > 0;
          throw (failure = repeated ? repeatedId(table, decoded.row.id) : refused('state_import_record_invalid', `Record ${table}/${decoded.row.id.slice(0, 80)} cannot be imported: ${error instanceof Error ? error.message : String(error)}`, { table, id: decoded.row.id }));
        }
      }
    });
  } catch (error) {
    if (failure) return { ok: false, diagnostic: failure };
    throw error;
  }
  return { ok: true, staged: rows.length };
}

/**
 * Replaces every table's rows with the staged rows in one transaction (its references checked over
 * the whole new state, as importState does), then drops the staging tables. On a refusal nothing of
 * the app's changed. The counts per table.
 */
export function commitStagedImport(driver: SqlDriver, manifest: Pick<Manifest, 'name' | 'database'>, session: string): Staged<{ counts: Record<string, number> }> {
  if (!openSession(driver, session)) return { ok: false, diagnostic: staleSession() };
  const database = manifest.database;
  const order = database ? tableOrder(database) : [];
  const counts: Record<string, number> = {};
  let current: string | undefined;
  let refusal: Diagnostic | undefined;
  try {
    driver.transactionSync(() => {
      driver.exec('PRAGMA defer_foreign_keys = ON');
      // Checked again inside the transaction: the app's schema or data may have changed since begin.
      const stored = storedIdentity(driver);
      const schema = stateSchemaIdentity(manifest);
      if (stored !== undefined && stored !== schema) {
        throw (refusal = refused('state_import_schema_mismatch', 'The database was created for another schema than the manifest\'s: reset the state first.', { expected: schema, actual: stored }));
      }
      if (stored === undefined) initialiseDatabase(driver, database ?? null);
      for (const table of [...order].reverse()) driver.exec(`DELETE FROM ${quoteIdentifier(table)}`);
      for (const table of order) {
        current = table;
        const columns = ['id', 'createdAt', 'updatedAt', ...Object.entries(database!.tables[table]!.fields).filter(([, field]) => !field.generated).map(([name]) => name)].map(quoteIdentifier).join(', ');
        driver.exec(`INSERT INTO ${quoteIdentifier(table)} (${columns}) SELECT ${columns} FROM ${quoteIdentifier(stagingName(table))} ORDER BY "__seq"`);
        counts[table] = driver.changes();
      }
      current = undefined;
      const missing = dangling(driver);
      if (missing && !missing.ok) throw (refusal = missing.diagnostic);
    });
  } catch (error) {
    if (refusal) return { ok: false, diagnostic: refusal };
    const where = current ? `The rows of ${current} cannot be imported: ` : 'The import failed: ';
    return { ok: false, diagnostic: refused('state_import_record_invalid', `${where}${error instanceof Error ? error.message : String(error)}`, current ? { table: current } : {}) };
  }
  dropStaging(driver, manifest);
  return { ok: true, counts };
}

/** Drops an open import's staging tables (a failed or abandoned import); nothing of the app's is touched. */
export function abortStagedImport(driver: SqlDriver, manifest: Pick<Manifest, 'database'>, session: string): void {
  if (openSession(driver, session)) dropStaging(driver, manifest);
}

/** The staged import over a driver in this process, as a streamed import's target (tests; a host holding the database itself). */
export function driverImportTarget(driver: SqlDriver, manifest: Pick<Manifest, 'name' | 'database'>, options: ImportOptions = {}): ImportTarget {
  const session = `local-${Math.random().toString(36).slice(2)}`;
  return {
    begin: async (head) => beginStagedImport(driver, manifest, head, session, options),
    rows: async (table, first, rows) => stageRows(driver, manifest, session, table, first, rows),
    commit: async () => commitStagedImport(driver, manifest, session),
    abort: async () => abortStagedImport(driver, manifest, session),
  };
}
