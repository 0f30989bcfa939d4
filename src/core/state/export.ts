/** State export: an application's database records, read through a SqlDriver, as a `platform.state-export.v0` document. */
import type { Diagnostic } from '../diagnostics';
import type { Manifest } from '../manifest';
import { quoteIdentifier, type SqlDriver } from '../runtime/sql-driver';
import { tableOrder } from '../runtime/tables/schema';
import { decodeRow } from '../runtime/tables/values';
import { encodeValue } from '../../modules/wire';
import type { JsonValue } from '../../modules/types';
import {
  MAX_STATE_EXPORT_BYTES,
  MAX_STATE_EXPORT_ROWS,
  refused,
  STATE_EXPORT_PROTOCOL,
  stateSchemaIdentity,
  type StateExportDocument,
} from './document';
import { storedIdentity } from './meta';

export interface ExportOptions {
  /** The export's time; now when not given. */
  now?: Date;
}

export type StateExportResult = { ok: true; document: StateExportDocument } | { ok: false; diagnostic: Diagnostic };

/**
 * Reads every declared table (rows ordered by createdAt, then id) into a document. Generated fields
 * are left out: SQLite computes them again on import. A database the runtime never initialised is
 * exported as empty tables. Refuses (DG1824) a database created for another schema
 * (`state_import_schema_mismatch`) and a state over the limits (`state_export_too_large`).
 *
 * @example
 * const result = exportState(driver, manifest);
 * if (result.ok) download(JSON.stringify(result.document));
 */
export function exportState(driver: SqlDriver, manifest: Pick<Manifest, 'name' | 'database'>, options: ExportOptions = {}): StateExportResult {
  const schema = stateSchemaIdentity(manifest);
  const stored = storedIdentity(driver);
  if (stored !== undefined && stored !== schema) {
    return {
      ok: false,
      diagnostic: refused('state_import_schema_mismatch', `The database was created for another schema (${stored.slice(0, 19)}…) than the manifest's (${schema.slice(0, 19)}…).`, {
        expected: schema,
        actual: stored,
      }),
    };
  }
  const database = manifest.database;
  const tables: Record<string, JsonValue[]> = {};
  let rowCount = 0;
  if (database) {
    for (const name of tableOrder(database)) {
      const declaration = database.tables[name]!;
      const fields = Object.entries(declaration.fields).filter(([, field]) => !field.generated);
      if (stored === undefined) {
        tables[name] = [];
        continue;
      }
      const columns = ['id', 'createdAt', 'updatedAt', ...fields.map(([field]) => field)].map(quoteIdentifier).join(', ');
      const count = Number(driver.all(`SELECT count(*) AS n FROM ${quoteIdentifier(name)}`)[0]?.n ?? 0);
      rowCount += count;
      if (rowCount > MAX_STATE_EXPORT_ROWS) {
        return { ok: false, diagnostic: refused('state_export_too_large', `The state holds more than ${MAX_STATE_EXPORT_ROWS} rows, the most one export takes.`) };
      }
      const records = driver.all(`SELECT ${columns} FROM ${quoteIdentifier(name)} ORDER BY "createdAt", "id"`);
      tables[name] = records.map((record) => encodeValue(decodeRow(fields, record)) as JsonValue);
    }
  }
  const document: StateExportDocument = {
    protocol: STATE_EXPORT_PROTOCOL,
    app: manifest.name,
    schema,
    database: (database ?? null) as unknown as JsonValue,
    exportedAt: (options.now ?? new Date()).toISOString(),
    tables,
  };
  const size = new TextEncoder().encode(JSON.stringify(document)).length;
  if (size > MAX_STATE_EXPORT_BYTES) {
    return { ok: false, diagnostic: refused('state_export_too_large', `The state export would be ${size} bytes; at most ${MAX_STATE_EXPORT_BYTES} are allowed.`, { bytes: size }) };
  }
  return { ok: true, document };
}


