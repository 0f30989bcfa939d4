/**
 * Where a workerd engine keeps an app environment's data, for the benches that fill it or weigh it on
 * disk (data-workerd, hosting): the Durable Object SQLite files under a storage folder.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** The files under `dir`, recursively (none when it does not exist). */
export function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true }).filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}

/**
 * The app databases under `dir`: the Durable Object SQLite files (workerd names each by its object's
 * id; metadata.sqlite is its own). Where a pool keeps them, only its environments' facet files
 * (`<id>.1.sqlite`), not their host objects' own files beside them.
 */
export function appDatabases(dir: string): string[] {
  const found = filesUnder(dir).filter((path) => path.endsWith('.sqlite') && !path.endsWith('/metadata.sqlite'));
  const facets = found.filter((path) => path.endsWith('.1.sqlite'));
  return facets.length > 0 ? facets : found;
}
