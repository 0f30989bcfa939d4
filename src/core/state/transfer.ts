/**
 * The two ends of a streamed state transfer, over any engine: an export written as document text page
 * by page, and a document read in chunks and imported in batches (begin, rows, commit). The CLI runs
 * them against a local server's admin route; tests run them against a SqlDriver in process. Memory
 * holds one page or one batch, whatever the number of rows.
 */
import type { Diagnostic } from '../diagnostics/index.ts';
import type { JsonValue } from '../../modules/types.ts';
import { checkStateExportHead, MAX_STATE_EXPORT_DEPTH, nestedDeeperThan, unusable } from './document.ts';
import { DocumentTextError, malformed, StateDocumentScanner, StateDocumentWriter, type ScannedItem } from './document-text.ts';
import type { ExportPageResult } from './export-pages.ts';
import { IMPORT_BATCH_BYTES, IMPORT_BATCH_ROWS, type ImportTarget } from './import-target.ts';

type Failure = { ok: false; diagnostic: Diagnostic };

/**
 * Reads every page from `page` (called with the previous page's cursor) and writes the document's text
 * to `write` as it goes. The rows per table, or the first refusal (the text written so far is then
 * not a document: the caller discards it).
 */
export async function streamExport(page: (cursor: string | undefined) => Promise<ExportPageResult>, write: (text: string) => Promise<void>): Promise<{ ok: true; tables: Record<string, number> } | Failure> {
  let cursor: string | undefined;
  let writer: StateDocumentWriter | undefined;
  const tables: Record<string, number> = {};
  do {
    const result = await page(cursor);
    if (!result.ok) return result;
    if (!writer) {
      writer = new StateDocumentWriter(result.page.head);
      for (const name of result.page.head.tables) tables[name] = 0;
      await write(writer.start());
    }
    let text = '';
    for (const { table, rows } of result.page.rows) {
      text += writer.rows(table, rows);
      tables[table] = (tables[table] ?? 0) + rows.length;
    }
    if (text) await write(text);
    cursor = result.page.next ?? undefined;
  } while (cursor !== undefined);
  await write(writer.end());
  return { ok: true, tables };
}

export interface StreamImportOptions {
  /** Rows per batch (default IMPORT_BATCH_ROWS); a batch also ends past IMPORT_BATCH_BYTES of JSON. */
  batchRows?: number;
}

const HEAD_KEYS = ['protocol', 'app', 'schema', 'database', 'exportedAt'];

/** Parses a value's JSON text, or DG1822. */
function parsed(text: string): { ok: true; value: unknown } | Failure {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, diagnostic: malformed(error) };
  }
}

/**
 * Scans a document read by `open` (a fresh pass over its text each call), checks its head here
 * (DG1822) and imports it into `target` in batches. The head is what comes before "tables" in every
 * document an export writes; when a document puts keys after it, a first pass reads them all before
 * the rows are sent. All or nothing: on any refusal the target is told to abort and nothing was written.
 */
export async function streamImport(open: () => AsyncIterable<string>, target: ImportTarget, options: StreamImportOptions = {}): Promise<{ ok: true; counts: Record<string, number> } | Failure> {
  const batchRows = Math.max(1, options.batchRows ?? IMPORT_BATCH_ROWS);
  // Pass 1: the head, up to the first table (or to the end, when keys come after "tables").
  const head: Record<string, unknown> = {};
  let tablesFirst = false;
  try {
    const scanner = new StateDocumentScanner();
    scan: for await (const chunk of open()) {
      for (const item of scanner.feed(chunk)) {
        if (item.kind === 'key') {
          const value = parsed(item.text);
          if (!value.ok) return value;
          head[item.key] = value.value;
        } else if (HEAD_KEYS.every((key) => key in head)) break scan;
        else tablesFirst = true;
      }
    }
  } catch (error) {
    if (error instanceof DocumentTextError) return { ok: false, diagnostic: malformed(error) };
    throw error;
  }
  const checked = checkStateExportHead({ ...head, tables: {} });
  if (!checked.ok) return checked;

  const begun = await target.begin({ ...head, tables: {} });
  if (!begun.ok) return begun;
  const fail = async (diagnostic: Diagnostic): Promise<Failure> => {
    await target.abort();
    return { ok: false, diagnostic };
  };
  // Pass 2: the rows, in batches.
  let batch: JsonValue[] = [];
  let batchTable = '';
  let batchFirst = 0;
  let batchBytes = 0;
  const seen = new Set<string>();
  const flush = async (): Promise<Failure | undefined> => {
    if (batch.length === 0) return undefined;
    const sent = await target.rows(batchTable, batchFirst, batch);
    batch = [];
    batchBytes = 0;
    return sent.ok ? undefined : sent;
  };
  const take = async (item: ScannedItem): Promise<Failure | undefined> => {
    switch (item.kind) {
      case 'key': {
        if (!tablesFirst && !(item.key in head)) {
          // A key after "tables" that the first pass did not read: the head check names what is wrong with it.
          const value = parsed(item.text);
          if (!value.ok) return value;
          const again = checkStateExportHead({ ...head, [item.key]: value.value, tables: {} });
          if (!again.ok) return again;
        }
        return undefined;
      }
      case 'table-value':
        return { ok: false, diagnostic: unusable(`"tables.${item.table}" must be an array of rows.`, { table: item.table }) };
      case 'table': {
        const failed = await flush();
        if (failed) return failed;
        if (seen.has(item.table)) return { ok: false, diagnostic: unusable(`The document holds the table ${JSON.stringify(item.table.slice(0, 80))} twice.`, { table: item.table }) };
        seen.add(item.table);
        batchTable = item.table;
        batchFirst = 0;
        return undefined;
      }
      case 'row': {
        const value = parsed(item.text);
        if (!value.ok) return value;
        if (nestedDeeperThan(value.value, MAX_STATE_EXPORT_DEPTH - 3)) return { ok: false, diagnostic: unusable(`The state export nests deeper than ${MAX_STATE_EXPORT_DEPTH} levels.`) };
        if (batch.length === 0) batchFirst = item.index;
        batch.push(value.value as JsonValue);
        batchBytes += item.text.length;
        if (batch.length >= batchRows || batchBytes >= IMPORT_BATCH_BYTES) return flush();
        return undefined;
      }
    }
  };
  try {
    const scanner = new StateDocumentScanner();
    for await (const chunk of open()) {
      for (const item of scanner.feed(chunk)) {
        const failed = await take(item);
        if (failed) return fail(failed.diagnostic);
      }
    }
    scanner.finish();
  } catch (error) {
    if (error instanceof DocumentTextError) return fail(malformed(error));
    await target.abort();
    throw error;
  }
  const last = await flush();
  if (last) return fail(last.diagnostic);
  const committed = await target.commit();
  if (!committed.ok) return fail(committed.diagnostic);
  return committed;
}

/** Chunks of a whole text, for a host that can only read a file at once (and for tests). */
export async function* chunksOf(text: string, size = 1 << 20): AsyncIterable<string> {
  for (let at = 0; at < text.length; at += size) yield text.slice(at, at + size);
}
