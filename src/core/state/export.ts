/** State export: an application's database records, read through a SqlDriver, as a whole `platform.state-export.v0` document in memory. */
import type { Result } from '../result.ts';
import type { Diagnostic } from '../diagnostics/index.ts';
import type { Manifest } from '../manifest/index.ts';
import type { SqlDriver } from '../runtime/index.ts';
import type { JsonValue } from '../../modules/types.ts';
import { MAX_STATE_EXPORT_BYTES, refused, type StateExportDocument } from './document.ts';
import { exportPage } from './export-pages.ts';

export interface ExportOptions {
  /** The export's time; now when not given. */
  now?: Date;
}

export type StateExportResult = Result<{ document: StateExportDocument }, { diagnostic: Diagnostic }>;

/**
 * Reads every declared table (rows ordered by createdAt, then id) into a document held in memory, page
 * by page (exportPage). Generated fields are left out: SQLite computes them again on import. Refuses
 * (DG1824) a database created for another schema (`state_import_schema_mismatch`) and a document over
 * MAX_STATE_EXPORT_BYTES (`state_export_too_large`: the playground's Data panel and share links hold
 * the document whole; `platform export` streams it instead, with no limit).
 *
 * @example
 * const result = exportState(driver, manifest);
 * if (result.ok) download(JSON.stringify(result.document));
 */
export function exportState(driver: SqlDriver, manifest: Pick<Manifest, 'name' | 'database'>, options: ExportOptions = {}): StateExportResult {
  const tables: Record<string, JsonValue[]> = {};
  let cursor: string | undefined;
  let bytes = 0;
  let head: StateExportDocument | undefined;
  do {
    const result = exportPage(driver, manifest, cursor, options);
    if (!result.ok) return result;
    const { page } = result;
    if (!head) {
      const { tables: names, ...rest } = page.head;
      head = { ...rest, tables };
      for (const name of names) tables[name] = [];
    }
    for (const { table, rows } of page.rows) {
      for (const row of rows) {
        bytes += JSON.stringify(row).length;
        tables[table]!.push(row);
      }
    }
    if (bytes > MAX_STATE_EXPORT_BYTES) break;
    cursor = page.next ?? undefined;
  } while (cursor !== undefined);
  const size = new TextEncoder().encode(JSON.stringify(head)).length;
  if (size > MAX_STATE_EXPORT_BYTES) {
    return { ok: false, diagnostic: refused('state_export_too_large', `The state export would be over ${MAX_STATE_EXPORT_BYTES} bytes, the most a document held in memory takes; platform export streams any size.`, { bytes: size }) };
  }
  return { ok: true, document: head! };
}
