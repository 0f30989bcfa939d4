/// <reference path="../../../worker/virtual-runtime-sandbox.d.ts" />
/**
 * The playground's side of the runtime sandbox: runs an app's server code in a sandboxed iframe's
 * worker (src/ui/runtime/sandbox-frame.ts, worker/runtime-sandbox.ts) and keeps its committed
 * database on this side.
 *
 * - Calls go to the sandbox one at a time (the runtime runs them one at a time anyway), each with a
 *   watchdog of the handler deadline plus a grace period. A call that gets no answer in that time is
 *   stuck in synchronous code: the sandbox is removed (which ends its worker), the call is answered
 *   504 `handler_deadline_exceeded`, and the runtime restarts from the last committed state.
 * - Calls queued behind it never ran: they are sent again to the restarted runtime. If the restart
 *   fails, they are answered 503 `runtime_unavailable`.
 * - A worker that fails (an error it did not handle itself) restarts the same way; the call it was
 *   running is answered 503 `runtime_restarted`.
 * - What the sandbox commits arrives as database snapshots (`onCommit`, `committedState`): at most
 *   `commitDelayMs` after a write, so a burst of writes is exported once. Uncommitted work is lost on
 *   a restart; committed work is kept, except commits made in the `commitDelayMs` before a sandbox
 *   was killed, which it had no chance to export. With `commitDelayMs: 0` each write is exported
 *   before its answer, and answers wait for the promises the commit listeners return (the playground
 *   saves to IndexedDB): nothing answered is lost, to a restart or to a reload. `flush()` asks for
 *   the export now.
 */
import sandboxCode from 'virtual:runtime-sandbox';
import wasmUrl from 'sql.js/dist/sql-wasm.wasm?url';
import type { Manifest } from '../../core/manifest';
import { failedCall } from '../../core/runtime/outcome';
import { CALL_REPORT_HEADER, decodeCallReport, type CallReport } from '../../core/runtime/console-capture';
import { operationOf } from '../preview/preview-frame';
import { isPersona, type PersonaName } from '../../core/runtime/personas';
import type { CallOutcome } from '../../core/runtime/runtime';
import { decodeJson, encodeJson, runtimeErrorBody, tableSetFromHeader, WROTE_HEADER } from '../../modules/wire';
import { isRuntimeMessage, type InspectAnswer, type InspectQuery, type InspectResult, type RuntimeMessage, type RuntimeRequest, type StartTimings, type Wrote } from '../../../worker/protocol/runtime';
import { bodyReceiver, type BodyIn } from '../../core/host/body-stream';
import { describeError } from '../../core/host/describe';
import { Watchdog } from '../../core/host/watchdog';
import { SandboxFrame } from './sandbox-frame';

export type { InspectAnswer, InspectQuery, InspectResult, Wrote } from '../../../worker/protocol/runtime';

export interface RuntimeHostOptions {
  /** Where the hidden iframe goes; document.body by default. */
  container?: HTMLElement;
  /** The handler deadline (AppRuntime enforces it for async handlers); 10000 ms by default. */
  deadlineMs?: number;
  /** How long past the deadline an unanswered call is taken for a stuck sandbox; 1000 ms by default. */
  graceMs?: number;
  /** How long loading sql.js, the database and the server bundle may take; 15000 ms by default. */
  startTimeoutMs?: number;
  /** A write is exported at most this long after its commit (0: right after its answer); 250 ms by default. */
  commitDelayMs?: number;
}

export interface HostedApp {
  manifest: Manifest;
  /** The server bundle (`server/index.js` of a build): ESM whose default export is the server definition. */
  serverCode: string;
  /** The committed database to start from (an SQLite file); none for an empty database. */
  state?: Uint8Array;
  env?: Record<string, string>;
}

/** One call's console lines and failure, with who made it and what it was (`query todos.list`, `GET /api/x`). */
export interface ServerCallReport extends CallReport {
  persona: PersonaName;
  operation: string;
}

/** A query or mutation's outcome, as `AppRuntime.call` gives it. */
export type RuntimeCallOutcome = CallOutcome;

export type RuntimePhase = 'idle' | 'starting' | 'running' | 'failed' | 'stopped';

/** How long each part of the last (re)start took, in ms. */
export interface HostStartTimings extends StartTimings {
  /** Creating the iframe until it loaded and was handed the worker. */
  frame: number;
  /** From the start (or restart) to the runtime's answer. */
  overall: number;
}

type Job =
  | { type: 'call'; persona: PersonaName; kind: 'query' | 'mutation'; name: string; input?: string; settle(outcome: CallOutcome): void }
  | { type: 'fetch'; persona: PersonaName; method: string; url: string; headers: Array<[string, string]>; body: Uint8Array | null; settle(response: Response): void }
  | { type: 'set-env'; values: Record<string, string>; settle(): void }
  | { type: 'flush'; settle(): void }
  | { type: 'inspect'; query: InspectQuery; settle(result: InspectResult): void };

interface StartWaiter {
  id: number;
  resolve(timings: StartTimings): void;
  reject(error: Error): void;
}

interface Spare {
  frame: SandboxFrame;
  /** The generation whose runtime this sandbox became (-1 while spare). */
  owner: { generation: number };
}

interface Running {
  frame: SandboxFrame;
  generation: number;
}

let wasmBytes: Promise<ArrayBuffer> | undefined;

/** sql.js's wasm, fetched once by the page (the sandbox cannot fetch). */
export function sqlWasm(): Promise<ArrayBuffer> {
  wasmBytes ??= fetch(wasmUrl).then((response) => {
    if (!response.ok) throw new Error(`sql.js's wasm could not be loaded (${response.status}).`);
    return response.arrayBuffer();
  });
  wasmBytes.catch(() => {
    wasmBytes = undefined;
  });
  return wasmBytes;
}

const NO_WRITES: Wrote = { tables: [], storage: false };

const failure = (status: number, code: string, message: string): CallOutcome => failedCall(status, code, message);

/** The HTTP form of a failure: the runtime error body. */
function failureResponse(outcome: CallOutcome): Response {
  const error = outcome.error!;
  return new Response(JSON.stringify(runtimeErrorBody({ status: outcome.status, ...error })), { status: outcome.status, headers: { 'content-type': 'application/json' } });
}

/** Answers a job with a failure in its own form. */
function fail(job: Job, outcome: CallOutcome): void {
  switch (job.type) {
    case 'call':
      job.settle(outcome);
      break;
    case 'fetch':
      job.settle(failureResponse(outcome));
      break;
    case 'set-env':
    case 'flush':
      job.settle();
      break;
    case 'inspect':
      job.settle({ kind: 'refused', message: outcome.error?.message ?? 'The runtime is not running.' });
      break;
    default: {
      const unknown: never = job;
      throw new Error(`Unknown job ${JSON.stringify(unknown)}`);
    }
  }
}

function describeJob(job: Job): string {
  switch (job.type) {
    case 'call':
      return `${job.kind} ${job.name}`;
    case 'fetch':
      return `${job.method} ${new URL(job.url).pathname}`;
    case 'set-env':
    case 'flush':
      return job.type;
    case 'inspect':
      return `inspect ${job.query.kind}`;
    default: {
      const unknown: never = job;
      return String(unknown);
    }
  }
}

/** Calls listeners; one that throws is reported and does not stop the others nor the host. */
function emit<A extends unknown[]>(listeners: Iterable<(...args: A) => void>, ...args: A): void {
  for (const listener of listeners) {
    try {
      listener(...args);
    } catch (error) {
      reportError(error);
    }
  }
}


export class RuntimeHost {
  readonly #container: HTMLElement;
  readonly #deadlineMs: number;
  readonly #graceMs: number;
  readonly #startTimeoutMs: number;
  readonly #commitDelayMs: number;

  #app: HostedApp | undefined;
  #phase: RuntimePhase = 'idle';
  #failure = '';
  #running: Running | undefined;
  #spare: Spare | undefined;
  #generation = 0;
  #nextId = 1;
  #committed: Uint8Array | undefined;
  #sequence = 0;
  #timings: HostStartTimings | undefined;

  readonly #queue: Job[] = [];
  #inFlight: { id: number; job: Job } | undefined;
  /** The request in flight: unanswered past the deadline plus grace, the sandbox is stuck in synchronous code. */
  readonly #watchdog: Watchdog<number>;
  #startWaiter: StartWaiter | undefined;
  readonly #bodies = new Map<number, BodyIn>();

  readonly #commitListeners = new Set<(state: Uint8Array) => void | Promise<void>>();
  /** Settles when every commit so far is durable (what the commit listeners returned has settled). */
  #durable: Promise<void> = Promise.resolve();
  readonly #writeListeners = new Set<(wrote: Wrote, persona: PersonaName) => void>();
  readonly #restartListeners = new Set<(reason: string) => void>();
  readonly #faultListeners = new Set<(message: string) => void>();
  readonly #reportListeners = new Set<(report: ServerCallReport) => void>();

  constructor(options: RuntimeHostOptions = {}) {
    this.#container = options.container ?? document.body;
    this.#deadlineMs = options.deadlineMs ?? 10_000;
    this.#graceMs = options.graceMs ?? 1_000;
    this.#startTimeoutMs = options.startTimeoutMs ?? 15_000;
    this.#commitDelayMs = options.commitDelayMs ?? 250;
    this.#watchdog = new Watchdog(this.#deadlineMs + this.#graceMs, (id) => this.#stuck(id));
  }

  /** The last committed database the sandbox exported (or the state the app was started with). */
  get committedState(): Uint8Array | undefined {
    return this.#committed;
  }

  get phase(): RuntimePhase {
    return this.#phase;
  }

  /** What the last (re)start took. */
  get startTimings(): HostStartTimings | undefined {
    return this.#timings;
  }

  /**
   * Starts the app in a new sandbox from `app.state`, replacing any running one (whose running call is
   * answered 503 `runtime_restarted`; queued calls go to the new one). Rejects when the app cannot
   * start (its server module throws, the database belongs to another schema, it takes too long).
   */
  async start(app: HostedApp): Promise<void> {
    this.#app = { ...app, env: { ...app.env } };
    this.#committed = app.state;
    this.#interrupt(503, 'runtime_restarted', 'The runtime was restarted while this call ran; its uncommitted work was lost.');
    await this.#boot();
  }

  /** Runs a query or mutation as `persona`. Never rejects: failures are outcomes with a runtime error. */
  call(persona: PersonaName, kind: 'query' | 'mutation', name: string, input: unknown): Promise<CallOutcome> {
    if (!isPersona(persona)) return Promise.resolve(failure(400, 'operation_failed', `Unknown persona "${String(persona)}".`));
    let wire: string | undefined;
    try {
      wire = input === undefined ? undefined : encodeJson(input);
    } catch (error) {
      return Promise.resolve(failure(400, 'operation_failed', describeError(error)));
    }
    return new Promise((resolve) => this.#enqueue({ type: 'call', persona, kind, name, ...(wire !== undefined ? { input: wire } : {}), settle: resolve }));
  }

  /** Serves an HTTP request as `persona` (the wire routes and the app's endpoints). Never rejects. */
  async fetch(persona: PersonaName, request: Request): Promise<Response> {
    if (!isPersona(persona)) return failureResponse(failure(400, 'operation_failed', `Unknown persona "${String(persona)}".`));
    let body: Uint8Array | null = null;
    try {
      if (request.method !== 'GET' && request.method !== 'HEAD') body = new Uint8Array(await request.arrayBuffer());
    } catch (error) {
      return failureResponse(failure(400, 'operation_failed', `The request body could not be read: ${describeError(error)}`));
    }
    return new Promise((resolve) =>
      this.#enqueue({ type: 'fetch', persona, method: request.method, url: request.url, headers: [...request.headers], body, settle: resolve }),
    );
  }

  /** Sets `ctx.env` values for later calls (kept across restarts). */
  setEnv(values: Record<string, string>): Promise<void> {
    if (this.#app) this.#app = { ...this.#app, env: { ...this.#app.env, ...values } };
    return new Promise((resolve) => this.#enqueue({ type: 'set-env', values: { ...values }, settle: resolve }));
  }

  /** Resolves once everything committed so far has reached `committedState` (after queued calls). */
  flush(): Promise<void> {
    return new Promise((resolve) => this.#enqueue({ type: 'flush', settle: resolve }));
  }

  /**
   * Looks inside the running app's database for the data browser (tables, rows, read-only SQL,
   * stored objects), edits a row as a persona (`update-row`), or exports and imports its state. Runs in turn with calls, under the same
   * deadline. Never rejects: a runtime that is not running answers `refused`. What comes back was
   * checked against the protocol's shapes and limits; an answer of another kind is refused.
   */
  inspect<K extends InspectQuery['kind']>(query: Extract<InspectQuery, { kind: K }>): Promise<InspectAnswer<K>> {
    return new Promise((resolve) =>
      this.#enqueue({
        type: 'inspect',
        query: structuredClone(query),
        settle: (result) => resolve((result.kind === query.kind || result.kind === 'refused' ? result : { kind: 'refused', message: `The runtime answered a ${query.kind} inspection with ${result.kind}.` }) as InspectAnswer<K>),
      }),
    );
  }

  /** Committed database snapshots, to persist; answers after the commit wait for a returned promise. */
  onCommit(listener: (state: Uint8Array) => void | Promise<void>): () => void {
    this.#commitListeners.add(listener);
    return () => this.#commitListeners.delete(listener);
  }

  /** Tables and store written by a successful query, mutation or wire-route request, and who wrote. */
  onWrite(listener: (wrote: Wrote, persona: PersonaName) => void): () => void {
    this.#writeListeners.add(listener);
    return () => this.#writeListeners.delete(listener);
  }

  /** The sandbox was killed and restarted from the committed state, and why. */
  onRestart(listener: (reason: string) => void): () => void {
    this.#restartListeners.add(listener);
    return () => this.#restartListeners.delete(listener);
  }

  /**
   * What each call's handler wrote with `console`, and how a failed call failed (the runtime's
   * CallReport: a call's `report`, a fetch's x-platform-call header, which is taken off its answer).
   */
  onReport(listener: (report: ServerCallReport) => void): () => void {
    this.#reportListeners.add(listener);
    return () => this.#reportListeners.delete(listener);
  }

  #emitReport(persona: PersonaName, operation: string, encoded: string | null | undefined): void {
    if (!encoded) return;
    const report = decodeCallReport(encoded);
    if (report.logs.length || report.error) emit(this.#reportListeners, { persona, operation, ...report });
  }

  /** Errors the app's code threw outside any call (timers, unhandled rejections). */
  onFault(listener: (message: string) => void): () => void {
    this.#faultListeners.add(listener);
    return () => this.#faultListeners.delete(listener);
  }

  /** Hands a commit to the listeners; what they return joins the promise answers wait for. */
  #persistCommit(state: Uint8Array): void {
    const pending: Promise<unknown>[] = [this.#durable];
    for (const listener of this.#commitListeners) {
      try {
        const result = listener(state);
        if (result) pending.push(result.catch((error: unknown) => reportError(error)));
      } catch (error) {
        reportError(error);
      }
    }
    this.#durable = pending.length > 1 ? Promise.all(pending).then(() => undefined) : this.#durable;
  }

  /** Runs `answer` once every commit so far is durable (at once, in order, when none is pending). */
  #afterDurable(answer: () => void): Promise<void> {
    return this.#durable.then(answer);
  }

  /** Gets ready ahead of the first start: fetches sql.js's wasm and loads a sandbox. */
  prepare(): void {
    sqlWasm().catch(() => undefined);
    this.#prepareSpare();
  }

  /** Removes the sandbox; running and queued calls are answered 503 `runtime_unavailable`. */
  stop(): void {
    this.#generation++;
    this.#spare?.frame.dispose();
    this.#spare = undefined;
    this.#teardown('The runtime was stopped.');
    this.#phase = 'stopped';
    this.#failure = 'The runtime was stopped.';
    this.#interrupt(503, 'runtime_unavailable', 'The runtime was stopped.');
    this.#drainWithFailure();
  }

  // ---- lifecycle ---------------------------------------------------------------------------------

  async #boot(): Promise<void> {
    const app = this.#app;
    if (!app) throw new Error('No app to start.');
    const generation = ++this.#generation;
    this.#teardown('The runtime restarted.');
    this.#phase = 'starting';
    this.#sequence = 0;
    const began = performance.now();
    const id = this.#nextId++;
    let waiter!: StartWaiter;
    // Rejected by a failure at any step: a worker error, a newer start, stop(), the start deadline.
    const started = new Promise<StartTimings>((resolve, reject) => {
      waiter = { id, resolve, reject };
    });
    started.catch(() => undefined);
    this.#startWaiter = waiter;
    const deadline = setTimeout(
      () => waiter.reject(new Error(`The app did not start within ${this.#startTimeoutMs} ms (does its server module loop at the top level?).`)),
      this.#startTimeoutMs,
    );
    const step = <T>(promise: Promise<T>): Promise<T> => Promise.race([promise, started.then((): never => { throw new Error('The runtime answered before it was asked to start.'); })]);
    try {
      const wasm = await step(sqlWasm());
      const spare = this.#takeSpare();
      spare.owner.generation = generation;
      const frame = spare.frame;
      this.#running = { frame, generation };
      await step(frame.booted);
      const frameReady = performance.now();
      const copy = wasm.slice(0);
      const request: RuntimeRequest = {
        type: 'start',
        id,
        wasm: copy,
        manifest: app.manifest,
        serverCode: app.serverCode,
        ...(this.#committed ? { state: this.#committed } : {}),
        env: { ...app.env },
        handlerDeadlineMs: this.#deadlineMs,
        commitDelayMs: this.#commitDelayMs,
      };
      frame.post(request, [copy]);
      const timings = await started;
      if (generation !== this.#generation) return;
      this.#timings = { ...timings, frame: frameReady - began, overall: performance.now() - began };
      this.#phase = 'running';
      this.#pump();
      // The next (re)start takes a sandbox that has loaded already.
      setTimeout(() => this.#prepareSpare(), 0);
    } catch (error) {
      if (generation !== this.#generation) return;
      const message = describeError(error);
      this.#teardown(message);
      this.#phase = 'failed';
      this.#failure = message;
      this.#drainWithFailure();
      throw new Error(message);
    } finally {
      clearTimeout(deadline);
      if (this.#startWaiter === waiter) this.#startWaiter = undefined;
    }
  }

  /**
   * A sandbox made ahead of need: its iframe loads and its worker starts while nothing waits for it,
   * so a restart (a new generation, a stuck handler) only has to start the app. Its messages go to
   * whichever generation takes it.
   */
  #prepareSpare(): void {
    if (this.#spare || this.#phase === 'stopped') return;
    const owner = { generation: -1 };
    const frame = new SandboxFrame({
      container: this.#container,
      code: sandboxCode,
      onMessage: (data) => {
        if (owner.generation === this.#generation) this.#receive(data);
      },
      onWorkerError: (message) => {
        if (owner.generation === this.#generation) this.#crashed(message);
      },
    });
    frame.booted.catch(() => undefined);
    this.#spare = { frame, owner };
  }

  #takeSpare(): Spare {
    this.#prepareSpare();
    const spare = this.#spare!;
    this.#spare = undefined;
    return spare;
  }

  /** Kills the sandbox and starts again from the committed state; queued calls wait for it. */
  #restart(reason: string): void {
    emit(this.#restartListeners, reason);
    this.#boot().catch(() => {
      // #boot answered the queue with the failure; the phase says `failed`.
    });
  }

  #teardown(reason: string): void {
    this.#running?.frame.dispose();
    this.#running = undefined;
    this.#startWaiter?.reject(new Error(reason));
    this.#startWaiter = undefined;
    for (const body of this.#bodies.values()) body.error(new Error(`The response was cut off: ${reason}`));
    this.#bodies.clear();
  }

  /** Answers the running call with a failure. */
  #interrupt(status: number, code: string, message: string): void {
    const flight = this.#inFlight;
    if (!flight) return;
    this.#watchdog.close(flight.id);
    this.#inFlight = undefined;
    fail(flight.job, failure(status, code, message));
  }

  #drainWithFailure(): void {
    const jobs = this.#queue.splice(0);
    for (const job of jobs) fail(job, failure(503, 'runtime_unavailable', `The runtime is not running: ${this.#failure}`));
  }

  #crashed(message: string): void {
    if (this.#phase === 'starting') {
      this.#startWaiter?.reject(new Error(`The runtime failed while starting: ${message}`));
      return;
    }
    this.#interrupt(503, 'runtime_restarted', `The runtime failed while this call ran (${message}); it restarted from the last committed state.`);
    this.#restart(`The runtime failed: ${message}`);
  }

  // ---- calls -------------------------------------------------------------------------------------

  #enqueue(job: Job): void {
    if (this.#phase === 'idle' || this.#phase === 'stopped' || this.#phase === 'failed') {
      const why = this.#phase === 'idle' ? 'The runtime has not been started.' : `The runtime is not running: ${this.#failure}`;
      fail(job, failure(503, 'runtime_unavailable', why));
      return;
    }
    this.#queue.push(job);
    this.#pump();
  }

  #pump(): void {
    if (this.#phase !== 'running' || this.#inFlight || !this.#running) return;
    const job = this.#queue.shift();
    if (!job) return;
    const id = this.#nextId++;
    this.#watchdog.open(id);
    this.#inFlight = { id, job };
    const frame = this.#running.frame;
    switch (job.type) {
      case 'call':
        frame.post({ type: 'call', id, persona: job.persona, kind: job.kind, name: job.name, ...(job.input !== undefined ? { input: job.input } : {}) } satisfies RuntimeRequest);
        break;
      case 'fetch':
        frame.post({ type: 'fetch', id, persona: job.persona, method: job.method, url: job.url, headers: job.headers, body: job.body } satisfies RuntimeRequest);
        break;
      case 'set-env':
        frame.post({ type: 'set-env', id, values: job.values } satisfies RuntimeRequest);
        break;
      case 'flush':
        frame.post({ type: 'flush', id } satisfies RuntimeRequest);
        break;
      case 'inspect':
        frame.post({ type: 'inspect', id, query: job.query } satisfies RuntimeRequest);
        break;
      default: {
        const unknown: never = job;
        throw new Error(`Unknown job ${JSON.stringify(unknown)}`);
      }
    }
  }

  /** The running call got no answer in its deadline plus grace: the sandbox is stuck in synchronous code. */
  #stuck(id: number): void {
    const flight = this.#inFlight;
    if (!flight || flight.id !== id) return;
    const what = describeJob(flight.job);
    this.#interrupt(
      504,
      'handler_deadline_exceeded',
      `The handler did not finish within its deadline of ${this.#deadlineMs} ms and did not yield: it was stopped, and the runtime restarted from the last committed state.`,
    );
    this.#restart(`${what} ran past its deadline of ${this.#deadlineMs} ms without yielding (a synchronous loop?); the runtime was restarted from the last committed state.`);
  }

  /**
   * Takes the running job's answer: it is done, the next one may go. An answer of the wrong kind for
   * the running job is a broken sandbox: the job is answered 502.
   */
  #finish<T extends Job['type']>(id: number, type: T): Extract<Job, { type: T }> | undefined {
    const flight = this.#inFlight;
    if (!flight || flight.id !== id) return undefined;
    this.#watchdog.close(id);
    this.#inFlight = undefined;
    queueMicrotask(() => this.#pump());
    if (flight.job.type === type) return flight.job as Extract<Job, { type: T }>;
    fail(flight.job, failure(502, 'runtime_protocol_error', `The runtime answered a ${flight.job.type} request as if it were a ${type} request.`));
    return undefined;
  }

  #emitWrite(wrote: Wrote, persona: PersonaName): void {
    if (wrote.tables.length === 0 && !wrote.storage) return;
    emit(this.#writeListeners, { tables: [...wrote.tables], storage: wrote.storage }, persona);
  }

  #receive(data: unknown): void {
    if (!isRuntimeMessage(data)) {
      this.#fault('The runtime sandbox sent a malformed message.');
      return;
    }
    const message: RuntimeMessage = data;
    switch (message.type) {
      case 'started':
        if (this.#startWaiter?.id === message.id) this.#startWaiter.resolve(message.timings);
        break;
      case 'start-failed':
        if (this.#startWaiter?.id === message.id) this.#startWaiter.reject(Object.assign(new Error(message.message), message.code ? { code: message.code } : {}));
        break;
      case 'called': {
        const job = this.#finish(message.id, 'call');
        if (!job) break;
        let outcome: CallOutcome;
        try {
          outcome = {
            status: message.status,
            ...(message.result !== undefined ? { result: decodeJson(message.result) } : {}),
            ...(message.error ? { error: { code: message.error.code, message: message.error.message, errorId: message.error.errorId } } : {}),
            wrote: { tables: [...message.wrote.tables], storage: message.wrote.storage },
          };
        } catch {
          outcome = failure(502, 'runtime_protocol_error', 'The runtime answered with a result that is not wire JSON.');
        }
        this.#emitReport(job.persona, `${job.kind} ${job.name}`, message.report);
        void this.#afterDurable(() => {
          job.settle(outcome);
          if (outcome.status === 200) this.#emitWrite(outcome.wrote, job.persona);
        });
        break;
      }
      case 'response-head': {
        const job = this.#finish(message.id, 'fetch');
        if (!job) break;
        const headers = new Headers(message.headers);
        this.#emitReport(job.persona, operationOf(job.method, new URL(job.url).pathname), headers.get(CALL_REPORT_HEADER));
        headers.delete(CALL_REPORT_HEADER);
        // The body's receiver is made now: its chunks may follow at once.
        const response = this.#response({ ...message, headers: [...headers] });
        void this.#afterDurable(() => {
          job.settle(response);
          if (message.status >= 200 && message.status < 300) {
            this.#emitWrite(tableSetFromHeader(new Headers(message.headers).get(WROTE_HEADER)) ?? NO_WRITES, job.persona);
          }
        });
        break;
      }
      case 'response-chunk':
        this.#bodies.get(message.id)?.chunk(message.chunk);
        break;
      case 'response-end':
        this.#bodies.get(message.id)?.end();
        this.#bodies.delete(message.id);
        break;
      case 'response-error':
        this.#bodies.get(message.id)?.error(new Error(message.message));
        this.#bodies.delete(message.id);
        break;
      case 'env-set':
        this.#finish(message.id, 'set-env')?.settle();
        break;
      case 'flushed':
        this.#finish(message.id, 'flush')?.settle();
        break;
      case 'commit':
        if (message.sequence <= this.#sequence) break;
        this.#sequence = message.sequence;
        this.#committed = message.state;
        this.#persistCommit(message.state);
        break;
      case 'fault':
        this.#fault(message.message.slice(0, 2000));
        break;
      case 'inspected': {
        const job = this.#finish(message.id, 'inspect');
        if (!job) break;
        const result = message.result;
        // A write (an import, an edit of a row) is answered once its commit is durable, as a call's is;
        // an edit tells the write listeners what it wrote, and as whom.
        if (result.kind === 'update-row' || result.kind === 'import-state') {
          void this.#afterDurable(() => {
            job.settle(result);
            if (result.kind === 'update-row' && result.status === 200 && job.query.kind === 'update-row') this.#emitWrite(result.wrote, job.query.persona);
          });
        } else job.settle(result);
        break;
      }
      case 'test':
        // A sandbox started as an app's runtime never runs tests: a stranger's code sent this.
        this.#fault(`The runtime sandbox sent an unexpected ${message.type} message.`);
        break;
      default: {
        const unknown: never = message;
        throw new Error(`Unknown runtime message ${JSON.stringify(unknown)}`);
      }
    }
  }

  #fault(message: string): void {
    emit(this.#faultListeners, message);
  }

  /** The Response for a response head; its body streams in as chunks arrive. */
  #response(head: Extract<RuntimeMessage, { type: 'response-head' }>): Response {
    const id = head.id;
    const running = this.#running;
    let body: ReadableStream<Uint8Array> | null = null;
    if (head.hasBody) {
      // The sandbox sends as this side reads (backpressure: src/core/host/body-stream.ts).
      const current = () => running !== undefined && this.#running === running;
      const receiver = bodyReceiver(
        (bytes) => {
          if (current()) running!.frame.post({ type: 'body-grant', id, bytes } satisfies RuntimeRequest);
        },
        () => {
          if (this.#bodies.delete(id) && current()) running!.frame.post({ type: 'cancel-body', id } satisfies RuntimeRequest);
        },
      );
      this.#bodies.set(id, receiver);
      body = receiver.stream;
    }
    try {
      return new Response(body, { status: head.status, statusText: head.statusText, headers: head.headers });
    } catch (error) {
      this.#bodies.delete(id);
      return failureResponse(failure(502, 'runtime_protocol_error', `The runtime answered with an invalid response: ${describeError(error)}`));
    }
  }
}
