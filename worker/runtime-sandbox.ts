/// <reference lib="webworker" />
/**
 * The runtime sandbox: the code of the classic blob worker inside the sandboxed iframe
 * (`sandbox="allow-scripts"`, opaque origin, CSP without network). It runs sql.js, the core runtime
 * and the app's server bundle, a stranger's code: it holds nothing but the app's own database and a
 * MessagePort to the trusted side (see worker/protocol/runtime.ts and src/ui/runtime/runtime-host.ts).
 *
 * Built by vite/runtime-sandbox-plugin.ts into one IIFE (sql.js included) that the page imports as a
 * string (`virtual:runtime-sandbox`). sql.js's wasm arrives as bytes: the sandbox cannot fetch.
 *
 * Commits: after a call that changed the database is answered, the database is exported and sent to
 * the trusted side, at most `commitDelayMs` after the write (a burst of writes exports once). An
 * export never runs while a call is running (sql.js refuses to export inside a transaction).
 */
import initSqlJs from 'sql.js';
import { SqlJsDriver, sqlJsFactory } from '../src/adapters/sqljs/sqljs-driver';
import { randomId, systemClock, failedCall, localPlatformResponse, isPersona, personaAuth, type Auth, type PersonaName, AppRuntime, callAnswer, errorResponse, type CallOutcome, ConsoleCapture, encodeCallReport, isSchemaChangeRefused, type SqlDriver, JournalingDriver, replayJournal, type JournalStatement } from '../src/core/runtime';
import { loadModuleMap, type LoadedModule } from '../src/core/testing';
import { BodySender, bodyPoster, describeError, runTestsInEngine, type TestRunMessage, handlerPlaces } from '../src/core/host';
import { decodeJson, encodeJson } from '../src/modules/wire';
import { isPreviewCall, previewAnswer, type PreviewCall, type RuntimeMessage, type RuntimeRequest } from './protocol/runtime';
import { inspect, operationsOf, type Inspected } from './runtime-inspect';

declare const self: DedicatedWorkerGlobalScope;

let port: MessagePort | undefined;
let runtime: AppRuntime | undefined;
let driver: SqlJsDriver | undefined;
let manifestName = '';
/** The running app's database, manifest and operations, for the data browser (runtime-inspect.ts). */
let inspected: Inspected | undefined;
let commitDelayMs = 250;
/** Per persona, for `ctx.auth.sessionId`: fresh for every sandbox. */
const sessions = new Map<PersonaName, Auth>();

function post(message: RuntimeMessage, transfer: Transferable[] = []): void {
  port?.postMessage(message, transfer);
}

// What the app's code throws outside a call (a timer, a forgotten promise) is reported, not fatal:
// the runtime's state is intact. An error this handler does not catch reaches the bootstrap, which
// reports the worker as lost.
self.addEventListener('error', (event) => {
  event.preventDefault();
  post({ type: 'fault', message: event.message || describeError(event.error) });
});
self.addEventListener('unhandledrejection', (event) => {
  event.preventDefault();
  post({ type: 'fault', message: `Unhandled rejection: ${describeError(event.reason)}` });
});

// ---- commits ------------------------------------------------------------------------------------

/** The runtime's driver: it keeps what each transaction committed, for the journal. */
let journaling: JournalingDriver | undefined;
let sequence = 0;
/** Statements committed and not sent yet (with commitDelayMs above 0, a burst goes as one batch). */
let unsent: JournalStatement[] = [];
let sendTimer: ReturnType<typeof setTimeout> | undefined;
/** The send timer fired while a call was running: send as soon as it ends. */
let sendDue = false;
/** Whether a call (a transaction) is running: requests run one at a time, see `enqueue`. */
let busy = false;

/** A checkpoint is made once no write came for this long (the database exported whole, off any answer's path). */
let checkpointDelayMs = 1000;
/** Past this much journal since the last checkpoint, one is made as soon as the running call is answered. */
const CHECKPOINT_AFTER_BATCHES = 500;
const CHECKPOINT_AFTER_BYTES = 4 * 1024 * 1024;
let sinceCheckpoint = { batches: 0, bytes: 0 };
let checkpointTimer: ReturnType<typeof setTimeout> | undefined;
let checkpointDue = false;

function collect(): void {
  if (journaling?.pending) unsent.push(...journaling.take());
}

/** About how many bytes a batch takes (its SQL text and parameters): what bounds the journal. */
function batchBytes(batch: readonly JournalStatement[]): number {
  let bytes = 0;
  for (const [sql, params] of batch) {
    bytes += sql.length + 8;
    for (const p of params) bytes += p instanceof Uint8Array ? p.length : typeof p === 'string' ? p.length : 8;
  }
  return bytes;
}

/** Sends what committed since the last send as one journal batch. */
function sendJournal(): void {
  collect();
  sendDue = false;
  if (sendTimer !== undefined) {
    clearTimeout(sendTimer);
    sendTimer = undefined;
  }
  if (unsent.length === 0) return;
  const batch = unsent;
  unsent = [];
  sinceCheckpoint = { batches: sinceCheckpoint.batches + 1, bytes: sinceCheckpoint.bytes + batchBytes(batch) };
  post({ type: 'journal', sequence: ++sequence, batch });
  scheduleCheckpoint();
}

/** Exports the whole database: it holds every batch sent before, and what was not sent yet. */
function checkpointNow(): void {
  checkpointDue = false;
  if (checkpointTimer !== undefined) {
    clearTimeout(checkpointTimer);
    checkpointTimer = undefined;
  }
  if (sendTimer !== undefined) {
    clearTimeout(sendTimer);
    sendTimer = undefined;
  }
  sendDue = false;
  if (!driver) return;
  journaling?.discard();
  unsent = [];
  sinceCheckpoint = { batches: 0, bytes: 0 };
  const state = driver.export();
  post({ type: 'checkpoint', sequence: ++sequence, state }, [state.buffer as ArrayBuffer]);
}

/** After a batch went out: a checkpoint once writes pause, or right after this call when the journal grew long. */
function scheduleCheckpoint(): void {
  if (sinceCheckpoint.batches >= CHECKPOINT_AFTER_BATCHES || sinceCheckpoint.bytes >= CHECKPOINT_AFTER_BYTES) {
    if (busy) checkpointDue = true;
    else checkpointNow();
    return;
  }
  if (checkpointTimer !== undefined) clearTimeout(checkpointTimer);
  checkpointTimer = setTimeout(() => {
    checkpointTimer = undefined;
    if (busy) checkpointDue = true;
    else checkpointNow();
  }, checkpointDelayMs);
}

/**
 * Before a call is answered, with `commitDelayMs` 0: what it committed goes out as a journal batch
 * first, so it reaches the trusted side ahead of the answer (the port keeps order) and can be made
 * durable before anyone sees the answer. Says whether the database has changes not sent before this call's.
 */
function commitBeforeAnswer(): boolean {
  const sent = sequence;
  collect();
  const changed = unsent.length > 0;
  if (commitDelayMs <= 0) sendJournal();
  return changed || sequence !== sent;
}

/** After a call is answered: send what it wrote (now, or within commitDelayMs), and a checkpoint if one is due. */
function afterCall(): void {
  collect();
  if (sendDue || (unsent.length > 0 && commitDelayMs <= 0)) sendJournal();
  else if (unsent.length > 0) {
    sendTimer ??= setTimeout(() => {
      sendTimer = undefined;
      if (busy) sendDue = true;
      else sendJournal();
    }, commitDelayMs);
  }
  if (checkpointDue) checkpointNow();
}

// ---- requests ------------------------------------------------------------------------------------

const failure = (status: number, code: string, message: string): CallOutcome => failedCall(status, code, message);

function authOf(persona: PersonaName): Auth {
  let auth = sessions.get(persona);
  if (!auth) {
    auth = personaAuth(manifestName, persona, randomId(systemClock));
    sessions.set(persona, auth);
  }
  return auth;
}

/** Imports ESM source: a blob: URL is importable here (script-src blob:), eval is not (no 'unsafe-eval'). */
async function importCode(code: string, keepUrl?: (url: string) => void): Promise<{ default?: unknown }> {
  const url = URL.createObjectURL(new Blob([code], { type: 'text/javascript' }));
  keepUrl?.(url);
  try {
    return (await import(/* @vite-ignore */ url)) as { default?: unknown };
  } finally {
    URL.revokeObjectURL(url);
  }
}

/** The server bundle's name in stacks (the playground maps frames of it through the bundle's map). */
const SERVER_URL = 'platform-app/server/index.js';
/** Where each handler of the running app is in its bundle (handler-place.ts). */
let handlerPlace: ReturnType<typeof handlerPlaces> | undefined;

/** Set once this sandbox started an app or a test run: each sandbox does one of them, once. */
let used = false;

/** sql.js, compiled once: ahead of the app by `warm`, or by the start that needs it. */
let sqlJs: ReturnType<typeof initSqlJs> | undefined;
const loadSqlJs = (wasm: ArrayBuffer) => (sqlJs ??= initSqlJs({ wasmBinary: wasm }));

/**
 * Compiles sql.js and runs SQLite's common paths once on a scratch database (tables, an index, writes,
 * reads, an export), so that the app's start does not compile them on first use. No app code runs.
 */
async function warm(wasm: ArrayBuffer): Promise<void> {
  const SQL = await loadSqlJs(wasm);
  const db = new SQL.Database();
  try {
    db.exec("CREATE TABLE warm (id TEXT PRIMARY KEY, body TEXT NOT NULL, at INTEGER); CREATE INDEX warm_at ON warm (at); BEGIN; INSERT INTO warm VALUES ('a', '{}', 1); UPDATE warm SET at = 2 WHERE id = 'a'; COMMIT;");
    db.exec('SELECT id, body FROM warm WHERE at > 0 ORDER BY at; SELECT name FROM sqlite_master');
    db.export();
  } finally {
    db.close();
  }
}

async function start(request: Extract<RuntimeRequest, { type: 'start' }>): Promise<void> {
  const started = performance.now();
  if (used) {
    post({ type: 'start-failed', id: request.id, message: 'This sandbox already runs an app or tests: start a new one.' });
    return;
  }
  used = true;
  try {
    const SQL = await loadSqlJs(request.wasm);
    const sqljsReady = performance.now();
    const module = await importCode(`${request.serverCode}\n//# sourceURL=${SERVER_URL}\n`);
    const serverReady = performance.now();
    const db = request.state ? new SQL.Database(request.state) : new SQL.Database();
    const opened = new SqlJsDriver(db);
    const journal = new JournalingDriver(opened);
    try {
      // What committed after the checkpoint, in order, before the runtime looks at the schema.
      if (request.journal?.length) replayJournal(opened, request.journal);
      runtime = new AppRuntime({
        manifest: request.manifest,
        definition: module.default,
        driver: journal,
        // Each call carries what its handler wrote with console (a fetch's answer in its x-platform-call header).
        console: handlerConsole(),
        env: request.env,
        limits: { handlerDeadlineMs: request.handlerDeadlineMs },
      });
    } catch (error) {
      opened.close();
      throw error;
    }
    driver = opened;
    journaling = journal;
    manifestName = request.manifest.name;
    inspected = { db, driver: opened, manifest: request.manifest, operations: operationsOf(module.default), policies: runtime.policies, runtime, caller: authOf };
    handlerPlace = handlerPlaces(module.default, request.serverCode, SERVER_URL);
    commitDelayMs = request.commitDelayMs;
    checkpointDelayMs = request.checkpointDelayMs;
    // A database the runtime brought to a new declaration (rows kept) is checkpointed now, so what is
    // kept is what runs. A schema it created (or anything else it wrote) is the journal's next batch;
    // a replayed journal is folded into a checkpoint once writes pause.
    if (runtime.schemaChange === 'changed') checkpointNow();
    else {
      sendJournal();
      if (request.journal?.length) scheduleCheckpoint();
    }
    const done = performance.now();
    post({ type: 'started', id: request.id, timings: { sqljs: sqljsReady - started, server: serverReady - sqljsReady, database: done - serverReady, total: done - started } });
  } catch (error) {
    const code = isSchemaChangeRefused(error) ? error.code : undefined;
    post({ type: 'start-failed', id: request.id, message: describeError(error), ...(code ? { code } : {}) });
  }
}

/**
 * Runs a test file with the host kernel's engine side, as `platform test` does in workerd: each test on
 * a fresh database and a fresh copy of the server module, calls through the wire codec.
 */
async function runTests(request: Extract<RuntimeRequest, { type: 'run-tests' }>): Promise<void> {
  const postTest = (message: TestRunMessage) => post({ type: 'test', id: request.id, message });
  if (used) {
    postTest({ type: 'failed', error: 'This sandbox already ran something: the tests need a fresh one.' });
    return;
  }
  used = true;
  let moduleUrl = '';
  let serverModule: LoadedModule | undefined;
  try {
    if (request.serverMap) serverModule = loadModuleMap(SERVER_URL, request.serverMap);
  } catch {
    // A map that does not parse: the lines keep no place in the server's files.
  }
  let factory: () => SqlDriver;
  try {
    factory = sqlJsFactory(await loadSqlJs(request.wasm));
  } catch (error) {
    postTest({ type: 'failed', error: `sql.js did not start: ${describeError(error)}` });
    return;
  }
  await runTestsInEngine(
    {
      file: request.file,
      appName: request.manifest.name,
      get module() {
        return loadModuleMap(moduleUrl, request.map);
      },
      moduleUrl: () => moduleUrl,
      // What the file and its tests write with console, their handlers' lines included, goes to the Console.
      console: handlerConsole(),
      ...(request.only !== undefined ? { only: request.only } : {}),
      skip: request.skip,
      async importTests() {
        await importCode(request.code, (url) => (moduleUrl = url));
      },
      ...(serverModule ? { serverModule } : {}),
      async newRuntime() {
        const server = await importCode(`${request.serverCode}\n//# sourceURL=${SERVER_URL}\n`);
        return new AppRuntime({ manifest: request.manifest, definition: server.default, driver: factory() });
      },
      sessionId: () => randomId(systemClock),
      now: () => performance.now(),
    },
    postTest,
  );
}

let capture: ConsoleCapture | undefined;

/** The worker's console, captured per call: installed once (it cannot be replaced again). Each line keeps where it was written, for the playground to map. */
function handlerConsole(): ConsoleCapture {
  capture ??= new ConsoleCapture({ callSites: true }).install();
  return capture;
}

interface CallDone {
  outcome: CallOutcome;
  /** The result as wire JSON. */
  result?: string;
  /** The owner's report: console lines and a thrown error's frames. */
  report?: string;
  /** The database changed: its commit was sent ahead of the answer (with commitDelayMs 0). */
  wrote: boolean;
}

/** Runs a query or mutation as `persona` (`run` gives its outcome), up to what its answer carries. */
async function runCall(persona: unknown, run: (runtime: AppRuntime, auth: Auth) => Promise<CallOutcome>): Promise<CallDone> {
  let outcome: CallOutcome;
  if (!runtime) outcome = failure(503, 'runtime_unavailable', 'The runtime has not started.');
  else if (!isPersona(persona)) outcome = failure(400, 'operation_failed', `Unknown persona "${String(persona)}".`);
  else outcome = await run(runtime, authOf(persona));
  let result: string | undefined;
  if (outcome.status === 200 && outcome.result !== undefined) {
    try {
      result = encodeJson(outcome.result);
    } catch (error) {
      outcome = failure(400, 'operation_failed', describeError(error));
    }
  }
  const wrote = commitBeforeAnswer() || outcome.wrote.tables.length > 0 || outcome.wrote.storage;
  // The report (the owner's) carries a thrown error's frames; the answer only its code, message and errorId.
  const report = outcome.logs?.length || outcome.error ? encodeCallReport({ logs: outcome.logs ?? [], ...(outcome.error ? { error: outcome.error } : {}), ...(outcome.stack ? { stack: outcome.stack } : {}) }, handlerConsole().reportBytes) : undefined;
  return { outcome, ...(result !== undefined ? { result } : {}), ...(report ? { report } : {}), wrote };
}

/** The page's own call: its input as wire JSON. */
async function call(request: Extract<RuntimeRequest, { type: 'call' }>): Promise<void> {
  const { outcome, result, report } = await runCall(request.persona, async (app, auth) => {
    let input: unknown;
    try {
      input = request.input === undefined ? undefined : decodeJson(request.input);
    } catch (error) {
      return failure(400, 'operation_failed', `The input is not valid wire JSON: ${describeError(error)}`);
    }
    return app.call(auth, request.kind, request.name, input);
  });
  post({ type: 'called', id: request.id, status: outcome.status, ...(result !== undefined ? { result } : {}), ...(outcome.error ? { error: outcome.error } : {}), wrote: outcome.wrote, ...(report ? { report } : {}) });
}

/**
 * A call a preview sent on its own port, as the persona the page tagged the port with: its wire
 * route's request without HTTP (the body, the live connection), answered as the route answers
 * (`callAnswer`). The page hears when it begins (its watchdog) and how it ended (Console, Events, live
 * updates); a call that wrote is answered by the page once its commit is durable, any other straight
 * on the port, first.
 */
async function previewCall(preview: number, previewPort: MessagePort, persona: PersonaName, request: PreviewCall): Promise<void> {
  const began = performance.now();
  const at = handlerPlace?.(request.kind, request.name);
  post({ type: 'preview-began', preview, id: request.id, kind: request.kind, name: request.name, ...(at ? { at } : {}) });
  const { outcome, result, report, wrote } = await runCall(persona, (app, auth) => app.callWire(auth, request.kind, request.name, request.body, request.live));
  if (!wrote) previewPort.postMessage(previewAnswer(request.id, callAnswer(request.kind, outcome, result === undefined ? undefined : decodeJson(result))));
  // A call that wrote is answered by the page: the result goes as wire JSON, which the page checks.
  const relay = wrote ? callAnswer(request.kind, outcome, result) : undefined;
  post({
    type: 'preview-called',
    preview,
    id: request.id,
    kind: request.kind,
    name: request.name,
    status: outcome.status,
    durationMs: performance.now() - began,
    wrote: outcome.wrote,
    ...(report ? { report } : {}),
    ...(relay ? { relay } : {}),
  });
}

/** The previews' ports, by the page's number for each. */
const previewPorts = new Map<number, MessagePort>();

/** A port the page made for a preview: what arrives on it are that persona's calls, nothing else. */
function adoptPreview(preview: number, persona: PersonaName, handed: MessagePort): void {
  previewPorts.get(preview)?.close();
  previewPorts.set(preview, handed);
  handed.onmessage = (event: MessageEvent) => {
    const request: unknown = event.data;
    // Only calls: a preview's code may post anything on its port, and none of it is the page's word.
    if (previewPorts.get(preview) !== handed || !isPreviewCall(request)) return;
    enqueue('call', () => previewCall(preview, handed, persona, request));
  };
}

/** Streamed response bodies being sent, by request id: each sends as the trusted side makes room. */
const bodies = new Map<number, BodySender>();

async function fetchRequest(request: Extract<RuntimeRequest, { type: 'fetch' }>): Promise<void> {
  let response: Response;
  if (!runtime) response = errorResponse(failure(503, 'runtime_unavailable', 'The runtime has not started.'));
  else if (!isPersona(request.persona)) response = errorResponse(failure(400, 'operation_failed', `Unknown persona "${String(request.persona)}".`));
  else {
    let built: Request | undefined;
    try {
      built = new Request(request.url, { method: request.method, headers: request.headers, ...(request.body ? { body: request.body as BodyInit } : {}) });
    } catch (error) {
      response = errorResponse(failure(400, 'operation_failed', `The request could not be made: ${describeError(error)}`));
    }
    // The platform's own routes (signing in, workspaces): the persona's, answered here, not by the app.
    if (built && new URL(built.url).pathname.startsWith('/__platform/')) response = localPlatformResponse(request.persona, authOf(request.persona), built);
    else if (built) response = await runtime.fetch(authOf(request.persona), built);
  }
  response = response!;
  const hasBody = response.body !== null;
  commitBeforeAnswer();
  post({ type: 'response-head', id: request.id, status: response.status, statusText: response.statusText, headers: [...response.headers], hasBody });
  if (!hasBody) return;
  const id = request.id;
  // A buffered body is one chunk; a stream (`stream()`, held to streamedBytes and its lifetime by the
  // runtime) goes on while other calls run, as fast as the trusted side reads it.
  const sender = new BodySender(response.body!.getReader(), bodyPoster(id, post));
  bodies.set(id, sender);
  void sender.run().finally(() => bodies.delete(id));
}

async function run(request: RuntimeRequest): Promise<void> {
  switch (request.type) {
    case 'warm':
      // A failure here is the start's to report (it asks for the same compile).
      if (!used) await warm(request.wasm).catch(() => undefined);
      return;
    case 'start':
      return start(request);
    case 'call':
      return call(request);
    case 'fetch':
      return fetchRequest(request);
    case 'set-env':
      runtime?.setEnv(request.values);
      post({ type: 'env-set', id: request.id });
      return;
    case 'flush':
      if (request.checkpoint) checkpointNow();
      else sendJournal();
      post({ type: 'flushed', id: request.id });
      return;
    case 'run-tests':
      return runTests(request);
    case 'cancel-body':
      bodies.get(request.id)?.cancel();
      bodies.delete(request.id);
      return;
    case 'body-grant':
      bodies.get(request.id)?.grant(request.bytes);
      return;
    case 'preview-port':
    case 'preview-close':
      return;
    case 'inspect': {
      if (!inspected) {
        post({ type: 'inspected', id: request.id, result: { kind: 'refused', message: 'The runtime has not started.' } });
        return;
      }
      const result = await inspect(inspected, request.query).catch((error: unknown) => ({ kind: 'refused' as const, message: describeError(error).slice(0, 4000) }));
      // An import, or an edit of a row, is a commit of its own: exported now (before the answer), not with the next call's batch.
      if (result.kind === 'import-state') checkpointNow();
      else if (result.kind === 'update-row') sendJournal();
      const transfer = result.kind === 'storage-get' && result.object ? [result.object.bytes.buffer as ArrayBuffer] : [];
      post({ type: 'inspected', id: request.id, result }, transfer);
      return;
    }
    default: {
      const unknown: never = request;
      throw new Error(`Unknown runtime request ${JSON.stringify(unknown)}`);
    }
  }
}

/**
 * Requests run one at a time, the page's and the previews' in the order they arrive (the page sends
 * its own one at a time); a body's cancel or grant, and a preview's port, act at once.
 */
let chain: Promise<void> = Promise.resolve();

function enqueue(type: RuntimeRequest['type'], work: () => Promise<void>): void {
  chain = chain.then(async () => {
    busy = true;
    try {
      await work();
    } catch (error) {
      post({ type: 'fault', message: `The sandbox failed on a ${type} request: ${describeError(error)}` });
    } finally {
      busy = false;
    }
    if (type === 'call' || type === 'fetch') afterCall();
  });
}

function receive(event: MessageEvent<RuntimeRequest>): void {
  const request = event.data;
  switch (request.type) {
    case 'cancel-body':
    case 'body-grant':
      void run(request);
      return;
    case 'preview-port':
      if (event.ports[0] && isPersona(request.persona)) adoptPreview(request.preview, request.persona, event.ports[0]);
      return;
    case 'preview-close':
      previewPorts.get(request.preview)?.close();
      previewPorts.delete(request.preview);
      return;
    default:
      enqueue(request.type, () => run(request));
  }
}

// The bootstrap hands over the runtime port once, as the worker's first message.
self.addEventListener('message', function adopt(event: MessageEvent) {
  const handed = event.ports[0];
  if (port || !handed) return;
  self.removeEventListener('message', adopt);
  port = handed;
  port.addEventListener('message', receive);
  port.start();
});
