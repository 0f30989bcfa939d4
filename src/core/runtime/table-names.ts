/** The tables of an app's database that an owner reads (the data browser, `platform db`, inspect). */
import type { SqlDriver } from './sql-driver.ts';
import { CHUNKS_TABLE } from './storage/index.ts';

/**
 * The names of the database's tables, by name: the app's and the runtime's own, but not SQLite's
 * (`sqlite_…`), a Durable Object's (`_cf_…`), which are the engine's, or the stored objects' chunks.
 */
export function listedTables(driver: SqlDriver): string[] {
  return driver
    .all("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name NOT LIKE '\\_cf\\_%' ESCAPE '\\' AND name != ? ORDER BY name", [CHUNKS_TABLE])
    .map((row) => String(row.name));
}
