/**
 * Messages between the playground (trusted) and the runtime sandbox: a `sandbox="allow-scripts"`
 * iframe whose bootstrap starts a classic blob worker running `worker/runtime-sandbox.ts` and the
 * app's server bundle. Everything is structured-clone-safe and tagged by `type`; requests carry ids.
 *
 * Two channels:
 * - the frame channel (`FrameBoot` → bootstrap, `FrameEvent` ← bootstrap): booting the worker and
 *   reporting a worker that failed;
 * - the runtime channel (`RuntimeRequest` → worker, `RuntimeMessage` ← worker), a MessagePort the
 *   bootstrap hands to the worker untouched;
 * - a preview channel per preview frame (`PreviewCall` → worker, `PreviewAnswer` ← worker): the page
 *   makes it, hands one end to the worker tagged with the preview's persona (`preview-port`, on the
 *   runtime channel, which only the page holds) and the other to the preview, whose queries and
 *   mutations then go straight to the worker. The worker runs them in turn with the page's requests
 *   and tells the page on the runtime channel when each begins and ends (`preview-began`,
 *   `preview-called`): the page's watchdog, Console, Events and live updates. A call is the wire
 *   route's request without HTTP (its body, its live connection) and its answer is the route's answer
 *   as data (`CallAnswer`: result or error, what was read or written). A call that wrote is answered by
 *   the page, once its commit is durable (`relay`); any other is answered on the port.
 *
 * The sandbox runs a stranger's code: the trusted side checks the shape of everything it receives
 * (`isRuntimeMessage`) and never evaluates it.
 */
import type { Manifest } from '../../src/core/manifest';
import type { PersonaName, JournalBatch } from '../../src/core/runtime';
import { isTestRunMessage, type TestRunMessage, type BodyMessage } from '../../src/core/host';
import type { CallAnswer } from '../../src/modules/wire';
import type { RuntimeErrorInfo, TableSet } from '../../src/modules/types';

/** A journal batch as structured clone delivers it: statements with SQLite values. */
function isJournalBatch(value: unknown): value is JournalBatch {
  const isValue = (v: unknown) => v === null || typeof v === 'number' || typeof v === 'bigint' || typeof v === 'string' || v instanceof Uint8Array;
  return Array.isArray(value) && value.every((s: unknown) => Array.isArray(s) && s.length === 2 && typeof s[0] === 'string' && Array.isArray(s[1]) && (s[1] as unknown[]).every(isValue));
}

export type { RuntimeErrorInfo, TableSet };

/** Parent page → the iframe's bootstrap (window.postMessage, ports: [runtime port, frame port]). */
export interface FrameBoot {
  type: 'boot';
  /** The sandbox worker's code (classic script). */
  code: string;
}

/** The iframe's bootstrap → parent page, over the frame port. */
export type FrameEvent =
  /** The worker threw something it did not handle itself, or failed to load: the runtime is lost. */
  { type: 'worker-error'; message: string };

export interface StartTimings {
  /** sql.js: instantiating its wasm. */
  sqljs: number;
  /** Opening the database and creating or checking the schema (AppRuntime's constructor). */
  database: number;
  /** Importing the server bundle. */
  server: number;
  /** From the start request's arrival to the answer. */
  total: number;
}

export type RuntimeRequest =
  /**
   * Before any app: sql.js's wasm, compiled now so that a later `start` only loads the server bundle
   * (a sandbox loaded ahead of need). Ignored once the sandbox started an app or tests.
   */
  | { type: 'warm'; wasm: ArrayBuffer }
  | {
      type: 'start';
      id: number;
      /** sql.js's wasm (fetched by the trusted side: the sandbox has no network). */
      wasm: ArrayBuffer;
      manifest: Manifest;
      /** The server bundle: ESM whose default export is the server definition. */
      serverCode: string;
      /** The last checkpoint of the committed database (an SQLite file), or none for an empty one. */
      state?: Uint8Array;
      /** What committed after that checkpoint, replayed on it in order before the app starts. */
      journal?: readonly JournalBatch[];
      env: Record<string, string>;
      /** The handler deadline AppRuntime enforces itself (async handlers). */
      handlerDeadlineMs: number;
      /** A write's journal batch is sent at most this long after it committed (0: before its answer). */
      commitDelayMs: number;
      /** The whole database is checkpointed once no write came for this long (never on an answer's path). */
      checkpointDelayMs: number;
    }
  /** A query or mutation; `input` is wire JSON (`encodeJson(input)`), or absent for undefined. */
  | { type: 'call'; id: number; persona: PersonaName; kind: 'query' | 'mutation'; name: string; input?: string }
  /** An HTTP request (wire routes and endpoints); the body is buffered (bounded by requestBytes anyway). */
  | { type: 'fetch'; id: number; persona: PersonaName; method: string; url: string; headers: Array<[string, string]>; body: Uint8Array | null }
  /** The trusted side stopped reading a streamed response body. */
  | { type: 'cancel-body'; id: number }
  /** The trusted side's reader took `bytes` of a streamed response body: room for that much more (src/core/host/body-stream.ts). */
  | { type: 'body-grant'; id: number; bytes: number }
  /** `ctx.env` for later calls. */
  | { type: 'set-env'; id: number; values: Record<string, string> }
  /** Send what committed and was not sent yet; with `checkpoint`, the whole database too. Answered `flushed`. */
  | { type: 'flush'; id: number; checkpoint?: boolean }
  /**
   * Runs one test file's tests, each against a fresh empty database and a fresh copy of the server
   * module. A sandbox that runs tests is never an app's runtime: `start` and `run-tests` exclude each
   * other. Answered by `test` messages: the kernel's test run messages (src/core/host/test-run.ts).
   */
  | {
      type: 'run-tests';
      id: number;
      wasm: ArrayBuffer;
      manifest: Manifest;
      serverCode: string;
      /** The server bundle's source map: where handlers called by the tests wrote their console lines. */
      serverMap?: string;
      /** The test file, project-relative, and its bundle (ESM) and source map. */
      file: string;
      code: string;
      map: string;
      /** Only this test; and tests not to run again (run by a sandbox that had to be stopped). */
      only?: string;
      skip: string[];
      timeoutMs: number;
    }
  /** The data browser and state export/import: see `InspectQuery`; answered `inspected`. */
  | { type: 'inspect'; id: number; query: InspectQuery }
  /** A preview's port (transferred with this message): its calls run as `persona`, whatever they say. */
  | { type: 'preview-port'; preview: number; persona: PersonaName }
  /** The preview is gone: its port is closed. */
  | { type: 'preview-close'; preview: number };

/**
 * A preview → the worker, on its port: a query or mutation as the platform/client module sends its
 * wire route, without HTTP: `body` is the request body (`{"input": …}` in wire JSON) and `live` the
 * live connection it is sent under (the header `x-platform-live`).
 */
export interface PreviewCall {
  type: 'call';
  id: number;
  kind: 'query' | 'mutation';
  name: string;
  body: string;
  live?: string;
}

/** The worker (or the page, for a call that wrote or was interrupted) → a preview: a call's answer, as the wire route would give it. */
export interface PreviewAnswer {
  type: 'answer';
  id: number;
  answer: CallAnswer;
}

/** The answer a preview gets (`result` decoded from wire JSON already). */
export function previewAnswer(id: number, answer: CallAnswer): PreviewAnswer {
  return { type: 'answer', id, answer };
}

/** True when a message on a preview's port is a call the worker runs (anything else is ignored). */
export function isPreviewCall(value: unknown): value is PreviewCall {
  if (typeof value !== 'object' || value === null) return false;
  const m = value as Record<string, unknown>;
  return (
    m.type === 'call' &&
    isId(m.id) &&
    (m.kind === 'query' || m.kind === 'mutation') &&
    isText(m.name, 1000) &&
    isString(m.body) &&
    (m.live === undefined || isText(m.live, 1000))
  );
}

export type RuntimeMessage =
  | { type: 'started'; id: number; timings: StartTimings }
  /** `code` is the refusal's stable code when there is one (`schema_change_refused`). */
  | { type: 'start-failed'; id: number; message: string; code?: string }
  /** A query or mutation's outcome; `result` is wire JSON, absent when the handler returned nothing. */
  /** `report`: what the handler wrote with console and how it failed (core/runtime/console-capture.ts, as a fetch's x-platform-call header). */
  | { type: 'called'; id: number; status: number; result?: string; error?: RuntimeErrorInfo; wrote: TableSet; report?: string }
  /** The status line and headers of a fetch; the body follows as chunks when `hasBody`. */
  | { type: 'response-head'; id: number; status: number; statusText: string; headers: Array<[string, string]>; hasBody: boolean }
  | BodyMessage<Uint8Array>
  | { type: 'env-set'; id: number }
  | { type: 'flushed'; id: number }
  /** What one or more commits changed, in order (`sequence` increases with every journal and checkpoint message). */
  | { type: 'journal'; sequence: number; batch: JournalBatch }
  /** The whole database, holding every journal batch sent before it. */
  | { type: 'checkpoint'; sequence: number; state: Uint8Array }
  /** Something the app's code threw outside any call (a timer, an unhandled rejection): logged, not fatal. */
  | { type: 'fault'; message: string }
  /** A test file's run, as every engine tells it (src/core/host/test-run.ts). */
  | { type: 'test'; id: number; message: TestRunMessage }
  /** The answer to an `inspect` request: a result of the query's kind, or `refused`. */
  | { type: 'inspected'; id: number; result: InspectResult }
  /**
   * A preview's call `id` (on port `preview`) is about to run: the page's watchdog watches it. `at`:
   * where its handler is in the server bundle, as a stack frame's place (`platform-app/server/index.js:12:20`),
   * when the worker found it: what the page shows for a call it had to stop (it cannot ask then).
   */
  | { type: 'preview-began'; preview: number; id: number; kind: 'query' | 'mutation'; name: string; at?: string }
  /**
   * That call ended. Its outcome as the Console and Events need it; `relay` when it wrote: the page
   * answers it (once the commit sent before this is durable), else the worker answered on the port.
   */
  | {
      type: 'preview-called';
      preview: number;
      id: number;
      kind: 'query' | 'mutation';
      name: string;
      status: number;
      durationMs: number;
      wrote: TableSet;
      report?: string;
      /** The answer, `result` as wire JSON. */
      relay?: CallAnswer & { result?: string };
    };

// ---- inspection (the data browser) ---------------------------------------------------------------

/**
 * What the data browser asks a running app's sandbox. Everything reads, except `import-state`,
 * which replaces the records (core `importState`, one transaction) and commits at once, and
 * `update-row`, an edit of one row as a persona through the table API and its policies
 * (AppRuntime.updateRow), committed at once. `sql` is read-only: one reading statement, run with
 * SQLite's `query_only` on.
 */
export type InspectQuery =
  /** Every table (schema, indexes, row count) and the server's queries and mutations. */
  | { kind: 'overview' }
  | { kind: 'rows'; table: string; offset: number; limit: number }
  | { kind: 'sql'; sql: string }
  | { kind: 'storage-list'; after?: string; limit: number }
  | { kind: 'storage-get'; key: string }
  /** A `platform.state-export.v0` document as JSON text (core `exportState`). */
  | { kind: 'export-state' }
  /**
   * A `platform.state-export.v0` document, or a `platform.project-data.v0` one (a link's or a zip's
   * data: the state export and the stored objects beside it), whose objects are written after the records.
   */
  | { kind: 'import-state'; text: string }
  /** `patch` is wire JSON (`encodeJson`) of the fields to change: a Date as `{"$date": …}`. */
  | { kind: 'update-row'; persona: PersonaName; table: string; id: string; patch: string };

/** A value in a grid: SQLite's values, a BLOB as its size and first bytes in hex. */
export type GridCell = null | number | string | { blob: number; hex: string };

/** Rows as the sandbox read them; `truncated` when more rows (or longer text) were left out. */
export interface Grid {
  columns: string[];
  rows: GridCell[][];
  truncated: boolean;
}

export interface ColumnInfo {
  name: string;
  type: string;
  notNull: boolean;
  primaryKey: boolean;
  default: string | null;
}

export interface IndexInfo {
  name: string;
  unique: boolean;
  columns: string[];
}

export interface TableInfo {
  name: string;
  /** Declared in the manifest (not one of the runtime's own `__platform_*` tables). */
  declared: boolean;
  rowCount: number;
  columns: ColumnInfo[];
  indexes: IndexInfo[];
}

export interface OperationInfo {
  kind: 'query' | 'mutation';
  name: string;
}

export interface StoredObjectInfo {
  key: string;
  size: number;
  contentType: string;
  /** Milliseconds since the epoch. */
  uploadedAt: number;
}

/** A refusal's diagnostic (DG1822/DG1824 from state export and import), as data to show. */
export interface InspectDiagnostic {
  code: string;
  severity: string;
  message: string;
  detail?: Record<string, string | number | boolean | null>;
}

export type InspectResult =
  | { kind: 'overview'; tables: TableInfo[]; operations: OperationInfo[] }
  | { kind: 'rows'; table: string; total: number; grid: Grid }
  | { kind: 'sql'; grid: Grid }
  | { kind: 'storage-list'; objects: StoredObjectInfo[]; more: boolean }
  | { kind: 'storage-get'; object: (StoredObjectInfo & { bytes: Uint8Array }) | null }
  | { kind: 'export-state'; text: string }
  /** Records imported per table; `objects`: stored objects written (a project-data document's). */
  | { kind: 'import-state'; counts: Record<string, number>; objects?: number }
  /** How the edit ended, as a mutation's call does: 200 and what it wrote, or the runtime's error. */
  | { kind: 'update-row'; status: number; error?: RuntimeErrorInfo; wrote: TableSet }
  | { kind: 'refused'; message: string; diagnostic?: InspectDiagnostic };

/** The answer to an inspection of kind K, or a refusal (of the sandbox, or of the host when it is not running). */
export type InspectAnswer<K extends InspectQuery['kind']> = Extract<InspectResult, { kind: K | 'refused' }>;

/** Limits of what the trusted side accepts from an inspection (the sandbox keeps under them). */
export const INSPECT_LIMITS = {
  /** Rows in one grid (a page of a table, an SQL result). */
  rows: 500,
  columns: 256,
  /** Characters of one text cell or name; the sandbox cuts longer text and marks the grid truncated. */
  text: 10_000,
  tables: 500,
  operations: 2_000,
  objects: 1_000,
  /** Bytes of one downloaded object. */
  objectBytes: 64 * 1024 * 1024,
  /** Characters of an exported state document (core MAX_STATE_EXPORT_BYTES). */
  exportChars: 32 * 1024 * 1024,
  message: 4_000,
} as const;

const isString = (value: unknown): value is string => typeof value === 'string';
const isId = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value);
const isPairs = (value: unknown): value is Array<[string, string]> =>
  Array.isArray(value) && value.every((pair) => Array.isArray(pair) && pair.length === 2 && isString(pair[0]) && isString(pair[1]));
const isTableSet = (value: unknown): value is TableSet => {
  if (typeof value !== 'object' || value === null) return false;
  const { tables, storage } = value as Record<string, unknown>;
  return Array.isArray(tables) && tables.every(isString) && typeof storage === 'boolean';
};
const isError = (value: unknown): value is RuntimeErrorInfo => {
  if (typeof value !== 'object' || value === null) return false;
  const { code, message, errorId } = value as Record<string, unknown>;
  return isString(code) && isString(message) && isString(errorId);
};

const isText = (value: unknown, max: number = INSPECT_LIMITS.text): value is string => typeof value === 'string' && value.length <= max;
const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array);
const isListOf = (value: unknown, max: number, check: (item: unknown) => boolean) => Array.isArray(value) && value.length <= max && value.every(check);

function isCell(value: unknown): boolean {
  if (value === null || typeof value === 'number') return true;
  if (typeof value === 'string') return value.length <= INSPECT_LIMITS.text;
  if (!isRecord(value)) return false;
  const keys = Object.keys(value);
  return keys.length === 2 && isCount(value.blob) && isText(value.hex, 64) && /^[0-9a-f]*$/.test(value.hex as string);
}

function isGrid(value: unknown): value is Grid {
  if (!isRecord(value) || typeof value.truncated !== 'boolean') return false;
  const { columns, rows } = value;
  if (!isListOf(columns, INSPECT_LIMITS.columns, (c) => isText(c, 1000))) return false;
  const width = (columns as unknown[]).length;
  return isListOf(rows, INSPECT_LIMITS.rows, (row) => Array.isArray(row) && row.length === width && row.every(isCell));
}

const isColumn = (c: unknown) =>
  isRecord(c) && isText(c.name, 1000) && isText(c.type, 1000) && typeof c.notNull === 'boolean' && typeof c.primaryKey === 'boolean' && (c.default === null || isText(c.default));
const isIndex = (i: unknown) => isRecord(i) && isText(i.name, 1000) && typeof i.unique === 'boolean' && isListOf(i.columns, INSPECT_LIMITS.columns, (c) => isText(c, 1000));
const isTable = (t: unknown) =>
  isRecord(t) && isText(t.name, 1000) && typeof t.declared === 'boolean' && isCount(t.rowCount) && isListOf(t.columns, INSPECT_LIMITS.columns, isColumn) && isListOf(t.indexes, 1000, isIndex);
const isObjectInfo = (o: unknown): o is StoredObjectInfo =>
  isRecord(o) && isText(o.key, 4096) && isCount(o.size) && isText(o.contentType, 1000) && isCount(o.uploadedAt);

const isStoredBytes = (bytes: unknown) => bytes instanceof Uint8Array && bytes.length <= INSPECT_LIMITS.objectBytes;

function isInspectDiagnostic(value: unknown): value is InspectDiagnostic {
  if (!isRecord(value)) return false;
  if (!isText(value.code, 16) || !/^DG\d{4}$/.test(value.code) || !isText(value.severity, 16) || !isText(value.message, INSPECT_LIMITS.message)) return false;
  if (value.detail === undefined) return true;
  if (!isRecord(value.detail) || Object.keys(value.detail).length > 32) return false;
  return Object.values(value.detail).every((v) => v === null || typeof v === 'number' || typeof v === 'boolean' || isText(v, 2000));
}

/** An inspection result of the shape its `kind` promises, within INSPECT_LIMITS. */
export function isInspectResult(value: unknown): value is InspectResult {
  if (!isRecord(value)) return false;
  const r = value;
  const kind = r.kind as InspectResult['kind'];
  switch (kind) {
    case 'overview':
      return isListOf(r.tables, INSPECT_LIMITS.tables, isTable) && isListOf(r.operations, INSPECT_LIMITS.operations, (o) => isRecord(o) && (o.kind === 'query' || o.kind === 'mutation') && isText(o.name, 1000));
    case 'rows':
      return isText(r.table, 1000) && isCount(r.total) && isGrid(r.grid);
    case 'sql':
      return isGrid(r.grid);
    case 'storage-list':
      return isListOf(r.objects, INSPECT_LIMITS.objects, isObjectInfo) && typeof r.more === 'boolean';
    case 'storage-get':
      return r.object === null || (isObjectInfo(r.object) && isStoredBytes((r.object as unknown as Record<string, unknown>).bytes));
    case 'export-state':
      return isText(r.text, INSPECT_LIMITS.exportChars);
    case 'import-state':
      return isRecord(r.counts) && Object.keys(r.counts).length <= INSPECT_LIMITS.tables && Object.values(r.counts).every(isCount) && (r.objects === undefined || isCount(r.objects));
    case 'update-row':
      return (
        isId(r.status) &&
        isTableSet(r.wrote) &&
        (r.error === undefined || (isError(r.error) && isText(r.error.code, 100) && isText(r.error.message, INSPECT_LIMITS.message) && isText(r.error.errorId, 100)))
      );
    case 'refused':
      return isText(r.message, INSPECT_LIMITS.message) && (r.diagnostic === undefined || isInspectDiagnostic(r.diagnostic));
    default: {
      const unknown: never = kind;
      void unknown;
      return false;
    }
  }
}

/** True when a message from the sandbox has the shape its `type` promises (the sandbox is not trusted). */
export function isRuntimeMessage(value: unknown): value is RuntimeMessage {
  if (typeof value !== 'object' || value === null) return false;
  const m = value as Record<string, unknown>;
  const type = m.type as RuntimeMessage['type'];
  switch (type) {
    case 'started': {
      const t = m.timings as Record<string, unknown> | null;
      return isId(m.id) && typeof t === 'object' && t !== null && ['sqljs', 'database', 'server', 'total'].every((k) => typeof t[k] === 'number');
    }
    case 'start-failed':
      return isId(m.id) && isString(m.message) && (m.code === undefined || isString(m.code));
    case 'body-error':
      return isId(m.id) && isString(m.message);
    case 'called':
      return (
        isId(m.id) &&
        typeof m.status === 'number' &&
        Number.isInteger(m.status) &&
        (m.result === undefined || isString(m.result)) &&
        (m.error === undefined || isError(m.error)) &&
        isTableSet(m.wrote) &&
        (m.report === undefined || isString(m.report))
      );
    case 'response-head':
      return isId(m.id) && typeof m.status === 'number' && isString(m.statusText) && isPairs(m.headers) && typeof m.hasBody === 'boolean';
    case 'body-chunk':
      return isId(m.id) && m.chunk instanceof Uint8Array;
    case 'body-end':
    case 'env-set':
    case 'flushed':
      return isId(m.id);
    case 'journal':
      return isId(m.sequence) && isJournalBatch(m.batch);
    case 'checkpoint':
      return isId(m.sequence) && m.state instanceof Uint8Array;
    case 'fault':
      return isString(m.message);
    case 'test':
      return isId(m.id) && isTestRunMessage(m.message);
    case 'inspected':
      return isId(m.id) && isInspectResult(m.result);
    case 'preview-began':
      return isId(m.preview) && isId(m.id) && (m.kind === 'query' || m.kind === 'mutation') && isText(m.name, 1000) && (m.at === undefined || isText(m.at, 200));
    case 'preview-called': {
      const relay = m.relay as Record<string, unknown> | undefined;
      return (
        isId(m.preview) &&
        isId(m.id) &&
        (m.kind === 'query' || m.kind === 'mutation') &&
        isText(m.name, 1000) &&
        isId(m.status) &&
        typeof m.durationMs === 'number' &&
        isTableSet(m.wrote) &&
        (m.report === undefined || isString(m.report)) &&
        (relay === undefined ||
          (isRecord(relay) &&
            relay.status === m.status &&
            (relay.result === undefined || isString(relay.result)) &&
            (relay.error === undefined || isError(relay.error)) &&
            (relay.read === undefined || isTableSet(relay.read)) &&
            (relay.wrote === undefined || isTableSet(relay.wrote))))
      );
    }
    default: {
      const unknown: never = type;
      void unknown;
      return false;
    }
  }
}
