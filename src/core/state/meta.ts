/** The runtime's own bookkeeping in an application database that state export and import read and write. */
import { readStoredSchema, type SqlDriver } from '../runtime/index.ts';

export { initialiseDatabase } from '../runtime/index.ts';

/**
 * The schema identity the runtime stamped on this database, as `sha256:<hex>`; undefined when the
 * runtime never initialised it (an empty database).
 */
export function storedIdentity(driver: SqlDriver): string | undefined {
  const stored = readStoredSchema(driver);
  if (!stored) return undefined;
  return stored.identity !== undefined ? `sha256:${stored.identity}` : 'sha256:unknown';
}
