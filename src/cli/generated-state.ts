/**
 * A state-export document of the todo app with any number of rows, for the transfer bench
 * (bench/transfer.ts) and the tests of `platform export` / `platform import` at size
 * (src/cli/state-transfer.test.ts). It is written as `platform export` writes one (two-space
 * indentation, the keys of each row in the order an export gives them: id, the declared fields, then
 * the timestamps), a piece at a time, so a million rows never sit in memory; exporting what it imports
 * gives the same bytes but for `exportedAt`. The same options give the same text.
 */
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { validateManifestText } from '../core/manifest';
import { stateSchemaIdentity } from '../core/state';

export interface GeneratedStateOptions {
  /** Rows of the `todos` table. */
  rows: number;
  /** The document's `exportedAt`. */
  exportedAt: string;
  /** The index of a row the table refuses (its title over the template's 200 characters), if any. */
  bad?: number;
}

/** Rows written at once. */
const CHUNK = 10_000;

/** The `todos` row at `index`, as an export writes it. */
function todo(index: number, bad: boolean): Record<string, unknown> {
  const at = new Date(Date.UTC(2026, 0, 1) + index).toISOString();
  return { id: `t${String(index).padStart(8, '0')}`, ownerId: `user-${index % 97}`, title: bad ? 'x'.repeat(300) : `todo number ${index}`, done: index % 2 === 0, createdAt: { $date: at }, updatedAt: { $date: at } };
}

/** Writes the document for the app of the project at `root` (its manifest names the app and its schema) to `path`; its size in bytes. */
export function writeStateDocument(path: string, root: string, options: GeneratedStateOptions): number {
  const manifest = validateManifestText(readFileSync(join(root, 'app.manifest.json'), 'utf8')).manifest!;
  const head = JSON.stringify({ protocol: 'platform.state-export.v0', app: manifest.name, schema: stateSchemaIdentity(manifest), database: manifest.database, exportedAt: options.exportedAt }, null, 2);
  const fd = openSync(path, 'w');
  let bytes = 0;
  const write = (text: string) => (bytes += writeSync(fd, text));
  try {
    write(`${head.slice(0, -2)},\n  "tables": {\n    "todos": [`);
    for (let first = 0; first < options.rows; first += CHUNK) {
      let text = '';
      for (let index = first; index < Math.min(options.rows, first + CHUNK); index++) {
        text += `${index === 0 ? '' : ','}\n      ${JSON.stringify(todo(index, index === options.bad), null, 2).replace(/\n/g, '\n      ')}`;
      }
      write(text);
    }
    write('\n    ]\n  }\n}\n');
  } finally {
    closeSync(fd);
  }
  return bytes;
}
