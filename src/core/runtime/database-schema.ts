/**
 * The schema an application database is made for, and how it follows a new declaration: created in an
 * empty database; changed in one transaction, keeping every row, when the change is compatible
 * (tables/schema-change.ts has the rules); refused, leaving the database untouched, when it is not.
 *
 * The meta table records the schema identity (SHA-256 of canonical JSON of `{ database }`) and the
 * declaration itself (canonical JSON), so the next change is judged against what the data was stored
 * under. A database that records only the identity (made before the declaration was kept) is judged
 * against the declaration read back from its own SQL (tables/schema-read.ts).
 */
import { canonicalJson } from '../hash/index.ts';
import type { FieldDeclaration } from '../manifest/index.ts';
import { quoteIdentifier, type SqlDriver } from './sql-driver.ts';
import { SqlObjectStore } from './storage/index.ts';
import { createIndexStatements, createSchema, createTableStatement, defaultLiteral, tableOrder, type DatabaseDeclaration, type TablePolicies } from './tables/schema.ts';
import { compareSchemas, databaseIdentity, schemaChangeRefused, isSchemaChangeRefused, type DataFacts, type SchemaProblem } from './tables/schema-change.ts';

export { databaseIdentity } from './tables/schema-change.ts';
import { declarationFromSql, readStoredSql, type StoredSql } from './tables/schema-read.ts';

/** The table in which the runtime records the schema a database is made for. */
export const META_TABLE = '__platform_meta';
/** Where a rebuilt table's old rows wait while they are copied. */
const OLD_PREFIX = '__platform_old_';

export interface StoredSchema {
  /** The identity recorded (hex), or undefined when the meta table has none. */
  identity: string | undefined;
  /** The declaration recorded with it; undefined when only the identity is (or it does not match it). */
  database: DatabaseDeclaration | null | undefined;
}

/** What the meta table records; undefined for a database the runtime never initialised. */
export function readStoredSchema(driver: SqlDriver): StoredSchema | undefined {
  if (driver.all(`SELECT name FROM sqlite_master WHERE type = 'table' AND name = ?`, [META_TABLE]).length === 0) return undefined;
  const values = new Map(driver.all(`SELECT key, value FROM ${META_TABLE} WHERE key IN ('schema', 'database')`).map((row) => [row.key, row.value]));
  const identity = typeof values.get('schema') === 'string' ? (values.get('schema') as string) : undefined;
  let database: DatabaseDeclaration | null | undefined;
  const text = values.get('database');
  if (typeof text === 'string') {
    try {
      const parsed = JSON.parse(text) as DatabaseDeclaration | null;
      if (databaseIdentity(parsed) === identity) database = parsed;
    } catch {
      // Unreadable: judged by the SQL, as a database recording only its identity.
    }
  }
  return { identity, database };
}

function recordSchema(driver: SqlDriver, database: DatabaseDeclaration | null): void {
  driver.exec(`INSERT OR REPLACE INTO ${META_TABLE} (key, value) VALUES ('schema', ?), ('database', ?)`, [databaseIdentity(database), canonicalJson(database)]);
}

/**
 * Initialises an empty database: the meta table, every table and index of `database`, the object
 * store's tables. Runs inside the caller's transaction.
 */
export function initialiseDatabase(driver: SqlDriver, database: DatabaseDeclaration | null, policies?: TablePolicies): void {
  driver.exec(`CREATE TABLE ${META_TABLE} (key TEXT PRIMARY KEY, value TEXT NOT NULL)`);
  recordSchema(driver, database);
  if (database) createSchema(driver, database, policies);
  new SqlObjectStore(driver);
}

/** What the stored rows hold, read with SQL. */
function databaseFacts(driver: SqlDriver, stored: StoredSql): DataFacts {
  const count = (sql: string) => Number(driver.all(sql)[0]?.n ?? 0);
  return {
    rows: (table) => (stored.tables.has(table) ? count(`SELECT count(*) AS n FROM ${quoteIdentifier(table)}`) : 0),
    rowsHolding: (table: string, field: string, declaration: FieldDeclaration) => {
      if (!stored.tables.has(table) || declaration.generated) return 0;
      const column = quoteIdentifier(field);
      const notDefault = declaration.default === undefined ? '' : ` AND ${column} IS NOT ${defaultLiteral(table, field, declaration, declaration.default)}`;
      return count(`SELECT count(*) AS n FROM ${quoteIdentifier(table)} WHERE ${column} IS NOT NULL${notDefault}`);
    },
  };
}

/** `names` ordered so that a table comes after every table of `names` it refers to (cycles keep their order). */
function parentsFirst(names: readonly string[], parents: ReadonlyMap<string, readonly string[]>): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name)) return;
    seen.add(name);
    for (const parent of parents.get(name) ?? []) if (names.includes(parent)) visit(parent);
    out.push(name);
  };
  for (const name of names) visit(name);
  return out;
}

/**
 * Makes the database's tables and indexes those of `database`. A table whose CREATE TABLE changed is
 * rebuilt (renamed aside, made again, its rows copied with the `carried` fields, the old one dropped);
 * so is every table that refers to one rebuilt, since renaming or dropping a parent would rewrite its
 * children's references or run their ON DELETE actions. Indexes of other tables are dropped and made
 * as they changed. Foreign keys are deferred to COMMIT and checked before it.
 */
function applySchema(driver: SqlDriver, stored: StoredSql, database: DatabaseDeclaration | null, carried: Record<string, string[]>, policies: TablePolicies): void {
  const desired = database?.tables ?? {};
  const q = quoteIdentifier;
  const parents = new Map<string, string[]>();
  for (const name of stored.tables.keys()) parents.set(name, driver.all(`PRAGMA foreign_key_list(${q(name)})`).map((row) => String(row.table)));
  const rebuilt = new Set<string>();
  for (const [name, sql] of stored.tables) {
    const next = Object.hasOwn(desired, name) ? desired[name] : undefined;
    if (!next || createTableStatement(name, next) !== sql) rebuilt.add(name);
  }
  for (let grew = true; grew; ) {
    grew = false;
    for (const [child, of] of parents) {
      if (!rebuilt.has(child) && of.some((parent) => rebuilt.has(parent))) {
        rebuilt.add(child);
        grew = true;
      }
    }
  }
  let current = '';
  try {
    const aside = parentsFirst([...rebuilt], parents);
    for (const name of aside) {
      current = name;
      for (const index of stored.indexes.get(name)?.keys() ?? []) driver.exec(`DROP INDEX ${q(index)}`);
      driver.exec(`ALTER TABLE ${q(name)} RENAME TO ${q(OLD_PREFIX + name)}`);
    }
    const order = database ? tableOrder(database) : [];
    for (const name of order) {
      current = name;
      const fresh = !stored.tables.has(name) || rebuilt.has(name);
      if (fresh) driver.exec(createTableStatement(name, desired[name]!));
      if (rebuilt.has(name)) {
        const columns = ['id', 'createdAt', 'updatedAt', ...(carried[name] ?? [])].map(q).join(', ');
        driver.exec(`INSERT INTO ${q(name)} (${columns}) SELECT ${columns} FROM ${q(OLD_PREFIX + name)}`);
      }
    }
    for (const name of [...aside].reverse()) {
      current = name;
      driver.exec(`DROP TABLE ${q(OLD_PREFIX + name)}`);
    }
    for (const name of order) {
      current = name;
      const fresh = !stored.tables.has(name) || rebuilt.has(name);
      const existing = fresh ? new Map<string, string>() : (stored.indexes.get(name) ?? new Map<string, string>());
      applyIndexes(driver, existing, createIndexStatements(name, desired[name]!, policies.get(name)));
    }
  } catch (error) {
    if (isSchemaChangeRefused(error)) throw error;
    throw schemaChangeRefused([{ table: current, reason: `the stored rows do not fit the new declaration: ${error instanceof Error ? error.message : String(error)}` }]);
  }
  const dangling = driver.all('PRAGMA foreign_key_check');
  if (dangling.length > 0) {
    const problems: SchemaProblem[] = dangling.slice(0, 5).map((row) => ({ table: String(row.table), reason: `a stored row would refer to a missing row of ${String(row.parent)}` }));
    throw schemaChangeRefused(problems);
  }
}

/** Drops the `existing` indexes (name → SQL) that are not `wanted`, then creates the wanted ones missing. */
function applyIndexes(driver: SqlDriver, existing: ReadonlyMap<string, string>, wanted: readonly string[]): void {
  for (const [index, sql] of existing) if (!wanted.includes(sql)) driver.exec(`DROP INDEX ${quoteIdentifier(index)}`);
  const kept = new Set(existing.values());
  for (const sql of wanted) if (!kept.has(sql)) driver.exec(sql);
}

/**
 * Makes the indexes of a database already made for `database` those this runtime makes for it: a
 * database made before declared indexes ended in (createdAt, id), or before a table's policy had its
 * index, gets them here, in one transaction, rows untouched. Reads sqlite_master only (its cost does
 * not grow with rows); when every index is as wanted it writes nothing, so it runs on every open and
 * does its work once. Returns whether it changed anything.
 */
export function syncIndexes(driver: SqlDriver, database: DatabaseDeclaration | null, policies: TablePolicies = new Map()): boolean {
  if (!database) return false;
  const stored = readStoredSql(driver);
  const work: Array<[ReadonlyMap<string, string>, string[]]> = [];
  for (const name of tableOrder(database)) {
    if (!stored.tables.has(name)) continue;
    const existing = stored.indexes.get(name) ?? new Map<string, string>();
    const wanted = createIndexStatements(name, database.tables[name]!, policies.get(name));
    const have = new Set(existing.values());
    if (wanted.length !== existing.size || wanted.some((sql) => !have.has(sql))) work.push([existing, wanted]);
  }
  if (work.length === 0) return false;
  driver.transactionSync(() => {
    for (const [existing, wanted] of work) applyIndexes(driver, existing, wanted);
  });
  return true;
}

export type SchemaOutcome = 'created' | 'unchanged' | 'changed';

/**
 * Makes `driver`'s database serve `database`: creates it when empty, changes it in one transaction
 * when the change is compatible (every row kept), or throws a SchemaChangeRefused naming each table,
 * field and reason, having changed nothing. `policies` are the table policies of the server
 * definition (their fields cannot change under stored rows).
 */
export function ensureSchema(driver: SqlDriver, database: DatabaseDeclaration | null, policies: TablePolicies = new Map()): SchemaOutcome {
  const identity = databaseIdentity(database);
  const stored = readStoredSchema(driver);
  if (!stored) {
    driver.transactionSync(() => initialiseDatabase(driver, database, policies));
    return 'created';
  }
  if (stored.identity === identity && stored.database !== undefined) {
    syncIndexes(driver, database, policies);
    return 'unchanged';
  }
  driver.transactionSync(() => {
    // Deferred until COMMIT (reset by it): rows are copied table by table, references in any order.
    driver.exec('PRAGMA defer_foreign_keys = ON');
    const sql = readStoredSql(driver);
    let before: DatabaseDeclaration | null;
    if (stored.database !== undefined) before = stored.database;
    else if (stored.identity === identity) before = database;
    else {
      const read = declarationFromSql(sql, database);
      if (read.problems.length > 0) throw schemaChangeRefused(read.problems);
      before = read.database;
    }
    const { problems, carried } = compareSchemas(before, database, databaseFacts(driver, sql), policies);
    if (problems.length > 0) throw schemaChangeRefused(problems);
    applySchema(driver, sql, database, carried, policies);
    recordSchema(driver, database);
  });
  return stored.identity === identity ? 'unchanged' : 'changed';
}
