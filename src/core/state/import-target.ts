/**
 * What both ends of a streamed state import agree on: the engine that takes it (`ImportTarget`, which
 * the admin route's import-* requests and `driverImportTarget` implement) and the size of a batch.
 */
import type { Diagnostic } from '../diagnostics/index.ts';
import type { JsonValue } from '../../modules/types.ts';

type Failure = { ok: false; diagnostic: Diagnostic };

/**
 * Rows one `import-rows` request carries at most; a batch also ends once past IMPORT_BATCH_BYTES of
 * JSON (with the row that passed it, whatever its size). Kept small for the same reason as an
 * export's pages (export-pages.ts): the engine holds a whole batch as objects (the request's text, the
 * parsed rows, the checked rows) while it stages it. Measured in workerd (issue 31), an import of
 * 100,000 rows took the engine's anonymous memory to 47 MB in batches of 5,000 rows or 4 MiB, and to
 * 38 MB in batches of 1,000 rows or 512 KiB.
 */
export const IMPORT_BATCH_ROWS = 1000;
/** JSON bytes past which an import batch ends. */
export const IMPORT_BATCH_BYTES = 512 * 1024;

/** An engine that takes a streamed import (the admin route's import-* requests, or a driver in process). */
export interface ImportTarget {
  begin(head: unknown): Promise<{ ok: true } | Failure>;
  rows(table: string, first: number, rows: JsonValue[]): Promise<{ ok: true } | Failure>;
  commit(): Promise<{ ok: true; counts: Record<string, number> } | Failure>;
  abort(): Promise<void>;
}
