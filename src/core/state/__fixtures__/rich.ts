/** A manifest that exercises every field type and constraint, and a database fingerprint for "nothing was written" checks. */
import type { Manifest } from '../../manifest';
import type { SqlDriver } from '../../runtime';

/** Every field type, optional and default values, a generated column, refs with actions (one to itself), checks and unique groups. */
export const RICH: Manifest = {
  format: 'platform.application-source.v0',
  name: 'rich-app',
  entrypoints: { client: 'src/client/main.tsx', server: 'src/server/index.ts' },
  capabilities: ['database'],
  database: {
    tables: {
      folders: {
        fields: {
          name: { type: 'string', maxLength: 40, unique: true },
          parent: { type: 'ref', table: 'folders', optional: true, onDelete: 'cascade' },
        },
      },
      notes: {
        fields: {
          folder: { type: 'ref', table: 'folders', onDelete: 'cascade' },
          title: { type: 'string', maxLength: 80, collate: 'nocase' },
          kind: { type: 'string', enum: ['plain', 'todo'], default: 'plain' },
          score: { type: 'number', optional: true },
          pinned: { type: 'boolean', default: false },
          due: { type: 'datetime', optional: true },
          blob: { type: 'bytes', optional: true },
          meta: { type: 'json', optional: true },
          titleLength: { type: 'number', generated: { expression: 'length(title)' } },
        },
        indexes: { byFolder: ['folder'] },
        unique: [['folder', 'title']],
        checks: { positive: 'score IS NULL OR score >= 0' },
      },
    },
  },
};

/** Every table of the database, its schema included, as text: equal text means nothing was written. */
export function fingerprint(driver: SqlDriver): string {
  const out: unknown[] = [driver.all('SELECT type, name, sql FROM sqlite_master ORDER BY name')];
  for (const { name } of driver.all("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")) {
    const rows = driver.all(`SELECT * FROM "${String(name).replace(/"/g, '""')}" ORDER BY rowid`);
    out.push(rows.map((row) => Object.entries(row).map(([k, v]) => [k, v instanceof Uint8Array ? Array.from(v) : typeof v === 'bigint' ? String(v) : v])));
  }
  return JSON.stringify(out);
}
