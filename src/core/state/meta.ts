/** The runtime's own bookkeeping in an application database that state export and import read and write. */
import type { Manifest } from '../manifest';
import type { SqlDriver } from '../runtime/sql-driver';
import { SqlObjectStore } from '../runtime/storage';
import { createSchema } from '../runtime/tables/schema';

/** The table in which the runtime records the schema identity it created a database for (runtime.ts). */
export const META_TABLE = '__platform_meta';

/**
 * The schema identity the runtime stamped on this database, as `sha256:<hex>`; undefined when the
 * runtime never initialised it (an empty database).
 */
export function storedIdentity(driver: SqlDriver): string | undefined {
  const meta = driver.all(`SELECT name FROM sqlite_master WHERE type = 'table' AND name = ?`, [META_TABLE]);
  if (meta.length === 0) return undefined;
  const value = driver.all(`SELECT value FROM ${META_TABLE} WHERE key = 'schema'`)[0]?.value;
  return typeof value === 'string' ? `sha256:${value}` : 'sha256:unknown';
}

/**
 * Initialises an empty database exactly as the runtime does on first start (meta row, tables and
 * indexes, the object store's table), so that a runtime opened on it afterwards accepts it.
 * Runs inside the caller's transaction.
 */
export function initialiseDatabase(driver: SqlDriver, manifest: Pick<Manifest, 'database'>, identityHex: string): void {
  driver.exec(`CREATE TABLE ${META_TABLE} (key TEXT PRIMARY KEY, value TEXT NOT NULL)`);
  driver.exec(`INSERT INTO ${META_TABLE} (key, value) VALUES ('schema', ?)`, [identityHex]);
  if (manifest.database) createSchema(driver, manifest.database);
  new SqlObjectStore(driver);
}
