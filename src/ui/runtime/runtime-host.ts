/**
 * The playground's side of the runtime sandbox: runs an app's server code in a sandboxed iframe's
 * worker (src/ui/runtime/sandbox-frame.ts, worker/runtime-sandbox.ts) and keeps its committed
 * database on this side.
 *
 * - Calls go to the sandbox one at a time (the runtime runs them one at a time anyway), each with a
 *   watchdog of the handler deadline plus a grace period. A call that gets no answer in that time is
 *   stuck in synchronous code: the sandbox is removed (which ends its worker), the call is answered
 *   504 `handler_deadline_exceeded`, and the runtime restarts from the last committed state. It is
 *   reported as any failed call is (`onReport`), with where its handler is when the worker said so.
 * - What runs now, as whom and since when (`running`, changes told by `onActivity`): the toolbar
 *   shows a call that runs long.
 * - Calls queued behind it never ran: they are sent again to the restarted runtime. If the restart
 *   fails, they are answered 503 `runtime_unavailable`.
 * - A worker that fails (an error it did not handle itself) restarts the same way; the call it was
 *   running is answered 503 `runtime_restarted`.
 * - A preview's calls go straight to the worker (`connectPreview`, kept by `preview-calls.ts`), in turn
 *   with the page's requests and under the same watchdog.
 * - What the sandbox commits arrives as journal batches (the statements a call committed) and, once
 *   writes pause, checkpoints (the whole database, holding every batch before it): `onCommit`,
 *   `committedState` (the last checkpoint and the batches after it, which a restart replays). A batch
 *   comes at most `commitDelayMs` after a write, so a burst of writes goes as one. Uncommitted work is
 *   lost on a restart; committed work is kept, except commits made in the `commitDelayMs` before a
 *   sandbox was killed, which it had no chance to send. With `commitDelayMs: 0` each write's batch
 *   comes before its answer, and answers wait for the promises the commit listeners return (the
 *   playground appends it to its journal in IndexedDB): nothing answered is lost, to a restart or to
 *   a reload. A checkpoint is never waited for. `flush()` asks for what was not sent yet.
 *
 * Its parts: `sandbox-supply.ts` (sql.js's wasm and the sandboxes loaded ahead of need),
 * `runtime-jobs.ts` (the page's requests: their kinds, how each is sent and failed), `preview-calls.ts`
 * (the previews' calls); this file holds the lifecycle (start, restart, stop), the queue and the
 * worker's messages.
 */
import type { Manifest } from '../../core/manifest';
import { CALL_REPORT_HEADER, decodeCallReport, type CallReport, isPersona, type PersonaName, type CallOutcome, type JournalBatch } from '../../core/runtime';
import { operationOf, type PreviewLink } from '../preview/preview-frame';
import { decodeJson, encodeJson, tableSetFromHeader, WROTE_HEADER } from '../../modules/wire';
import { isRuntimeMessage, type InspectAnswer, type InspectQuery, type RuntimeMessage, type RuntimeRequest, type StartTimings, type TableSet } from '../../../worker/protocol/runtime';
import { bodyReceiver, deliverBody, type BodyIn, describeError, Watchdog } from '../../core/host';
import type { SandboxFrame } from './sandbox-frame';
import type { Commit, CommittedState } from './durable-log';
import { CommitListeners, Listeners } from './listeners';
import { PreviewCalls, type PreviewFlight } from './preview-calls';
import { describeJob, failJob, failure, failureResponse, personaOf, postJob, type Job } from './runtime-jobs';
import { SpareSandboxes, sqlWasm } from './sandbox-supply';

export type { Commit, CommittedState } from './durable-log';

export type { InspectAnswer, InspectQuery, InspectResult, TableSet } from '../../../worker/protocol/runtime';
export { prepareRuntime, sqlWasm } from './sandbox-supply';

export interface RuntimeHostOptions {
  /** Where the hidden iframe goes; document.body by default. */
  container?: HTMLElement;
  /** The handler deadline (AppRuntime enforces it for async handlers); 10000 ms by default. */
  deadlineMs?: number;
  /** How long past the deadline an unanswered call is taken for a stuck sandbox; 1000 ms by default. */
  graceMs?: number;
  /** How long loading sql.js, the database and the server bundle may take; 15000 ms by default. */
  startTimeoutMs?: number;
  /** A write's journal batch is sent at most this long after its commit (0: before its answer); 250 ms by default. */
  commitDelayMs?: number;
  /** The database is checkpointed whole once no write came for this long; 1000 ms by default. */
  checkpointDelayMs?: number;
  /**
   * The sandbox kept for the next restart is loaded after a start once this has resolved (the
   * playground: once the first preview is up, which it would slow down); right after a start without.
   */
  sparesAfter?: Promise<unknown>;
}

export interface HostedApp {
  manifest: Manifest;
  /** The server bundle (`server/index.js` of a build): ESM whose default export is the server definition. */
  serverCode: string;
  /** The committed database to start from (a checkpoint and the journal after it); none for an empty database. */
  state?: CommittedState;
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

/** What runs in the sandbox now: the operation (`query todos.list`, `GET /api/x`), as whom, since when (`performance.now()`). */
export interface RunningCall {
  operation: string;
  persona?: PersonaName;
  since: number;
}

interface StartWaiter {
  id: number;
  resolve(timings: StartTimings): void;
  reject(error: Error): void;
}

/** The sandbox whose worker runs the app now, and the generation it runs. */
interface Running {
  frame: SandboxFrame;
  generation: number;
}

const NO_WRITES: TableSet = { tables: [], storage: false };

export class RuntimeHost {
  readonly #deadlineMs: number;
  readonly #graceMs: number;
  readonly #startTimeoutMs: number;
  readonly #commitDelayMs: number;
  readonly #checkpointDelayMs: number;
  readonly #sparesAfter: Promise<unknown>;

  #app: HostedApp | undefined;
  #phase: RuntimePhase = 'idle';
  #failure = '';
  #running: Running | undefined;
  /** The sandbox kept for the next start. */
  readonly #spares: SpareSandboxes;
  #generation = 0;
  #nextId = 1;
  /** The committed state: the last checkpoint and the batches after it (undefined before any start). */
  #committed: { checkpoint?: Uint8Array; journal: JournalBatch[] } | undefined;
  #sequence = 0;
  #timings: HostStartTimings | undefined;

  readonly #queue: Job[] = [];
  /** The page's own request sent to the sandbox (it may wait there behind previews' calls). */
  #inFlight: { id: number; job: Job; began: number } | undefined;
  /** The previews' calls, straight to the worker (the page's #inFlight, if any, waits behind the one that runs). */
  readonly #previews: PreviewCalls;
  /** The requests in flight: unanswered past the deadline plus grace, the sandbox is stuck in synchronous code. */
  readonly #watchdog: Watchdog<number | PreviewFlight>;
  #startWaiter: StartWaiter | undefined;
  readonly #bodies = new Map<number, BodyIn>();

  /** The commits handed over to persist, and when every one so far is durable (what their listeners returned has settled). */
  readonly #commits = new CommitListeners();
  readonly #writes = new Listeners<[wrote: TableSet, persona: PersonaName]>();
  readonly #restarts = new Listeners<[reason: string]>();
  readonly #faults = new Listeners<[message: string]>();
  readonly #reports = new Listeners<[report: ServerCallReport]>();
  readonly #activities = new Listeners<[]>();
  /** What `running` last told the activity listeners. */
  #told: RunningCall | undefined;

  constructor(options: RuntimeHostOptions = {}) {
    this.#deadlineMs = options.deadlineMs ?? 10_000;
    this.#graceMs = options.graceMs ?? 1_000;
    this.#startTimeoutMs = options.startTimeoutMs ?? 15_000;
    this.#commitDelayMs = options.commitDelayMs ?? 250;
    this.#checkpointDelayMs = options.checkpointDelayMs ?? 1000;
    this.#sparesAfter = options.sparesAfter ?? Promise.resolve();
    this.#watchdog = new Watchdog<number | PreviewFlight>(this.#deadlineMs + this.#graceMs, (item) => this.#stuck(item));
    this.#spares = new SpareSandboxes(options.container ?? document.body, {
      generation: () => this.#generation,
      receive: (data) => this.#receive(data),
      crashed: (message) => this.#crashed(message),
    });
    this.#previews = new PreviewCalls({
      frame: () => this.#running?.frame,
      watchdog: this.#watchdog,
      activity: () => this.#activity(),
      afterDurable: (answer) => this.#commits.afterDurable(answer),
      report: (persona, operation, encoded) => this.#emitReport(persona, operation, encoded),
      wrote: (wrote, persona) => this.#emitWrite(wrote, persona),
    });
  }

  /** The committed database: the last checkpoint and the journal after it (or the state the app was started with). */
  get committedState(): CommittedState | undefined {
    const committed = this.#committed;
    return committed && { ...(committed.checkpoint ? { checkpoint: committed.checkpoint } : {}), journal: [...committed.journal] };
  }

  /** How long a handler may run before the runtime stops it, in ms. */
  get deadlineMs(): number {
    return this.#deadlineMs;
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
    this.#committed = { ...(app.state?.checkpoint ? { checkpoint: app.state.checkpoint } : {}), journal: [...(app.state?.journal ?? [])] };
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

  /**
   * Gives a preview its own port to the running worker, tagged there with `persona`, now and after
   * every restart; its calls on it run there as that persona (the worker takes nothing else on it).
   * Returns the disconnection (the worker closes its end).
   */
  connectPreview(persona: PersonaName, link: PreviewLink): () => void {
    return this.#previews.connect(persona, link, this.#phase === 'running');
  }

  /** Sets `ctx.env` values for later calls (kept across restarts). */
  setEnv(values: Record<string, string>): Promise<void> {
    if (this.#app) this.#app = { ...this.#app, env: { ...this.#app.env, ...values } };
    return new Promise((resolve) => this.#enqueue({ type: 'set-env', values: { ...values }, settle: resolve }));
  }

  /**
   * Resolves once everything committed so far has reached `committedState` (after queued calls); with
   * `checkpoint`, as a checkpoint (the whole database, no journal after it).
   */
  flush(options: { checkpoint?: boolean } = {}): Promise<void> {
    return new Promise((resolve) => this.#enqueue({ type: 'flush', checkpoint: options.checkpoint === true, settle: resolve }));
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

  /** Commits, to persist: answers after a journal batch wait for the promise a listener returns. */
  onCommit(listener: (commit: Commit) => void | Promise<void>): () => void {
    return this.#commits.add(listener);
  }

  /** Tables and store written by a successful query, mutation or wire-route request, and who wrote. */
  onWrite(listener: (wrote: TableSet, persona: PersonaName) => void): () => void {
    return this.#writes.add(listener);
  }

  /** The sandbox was killed and restarted from the committed state, and why. */
  onRestart(listener: (reason: string) => void): () => void {
    return this.#restarts.add(listener);
  }

  /**
   * What each call's handler wrote with `console`, and how a failed call failed (the runtime's
   * CallReport: a call's `report`, a fetch's x-platform-call header, which is taken off its answer).
   */
  onReport(listener: (report: ServerCallReport) => void): () => void {
    return this.#reports.add(listener);
  }

  #emitReport(persona: PersonaName, operation: string, encoded: string | null | undefined): void {
    if (!encoded) return;
    const report = decodeCallReport(encoded);
    if (report.logs.length || report.error) this.#reports.emit({ persona, operation, ...report });
  }

  /**
   * What runs in the sandbox now: a preview's call that began, else the page's own request (which may
   * still wait there behind a preview's call the worker has not said began). Undefined when idle.
   */
  get running(): RunningCall | undefined {
    const flight = this.#previews.flight;
    if (flight) return { operation: flight.operation, persona: flight.persona, since: flight.began };
    const own = this.#inFlight;
    if (!own) return undefined;
    const persona = personaOf(own.job);
    return { operation: describeJob(own.job), ...(persona ? { persona } : {}), since: own.began };
  }

  /** `running` changed (a call began or ended). */
  onActivity(listener: () => void): () => void {
    return this.#activities.add(listener);
  }

  /** Tells the activity listeners, once the current task is done, if what runs changed. */
  #activity(): void {
    queueMicrotask(() => {
      const now = this.running;
      if (now?.operation === this.#told?.operation && now?.since === this.#told?.since) return;
      this.#told = now;
      this.#activities.emit();
    });
  }

  /** Errors the app's code threw outside any call (timers, unhandled rejections). */
  onFault(listener: (message: string) => void): () => void {
    return this.#faults.add(listener);
  }

  /** Gets ready ahead of the first start: fetches sql.js's wasm and loads a sandbox. */
  prepare(): void {
    sqlWasm().catch(() => undefined);
    this.#prepareSpare();
  }

  #prepareSpare(): void {
    if (this.#phase !== 'stopped') this.#spares.prepare();
  }

  /** Removes the sandbox; running and queued calls are answered 503 `runtime_unavailable`. */
  stop(): void {
    this.#generation++;
    this.#spares.dispose();
    this.#interrupt(503, 'runtime_unavailable', 'The runtime was stopped.');
    this.#teardown('The runtime was stopped.');
    this.#phase = 'stopped';
    this.#failure = 'The runtime was stopped.';
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
      const frame = this.#spares.take(generation);
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
        ...(this.#committed?.checkpoint ? { state: this.#committed.checkpoint } : {}),
        ...(this.#committed?.journal.length ? { journal: [...this.#committed.journal] } : {}),
        env: { ...app.env },
        handlerDeadlineMs: this.#deadlineMs,
        commitDelayMs: this.#commitDelayMs,
        checkpointDelayMs: this.#checkpointDelayMs,
      };
      frame.post(request, [copy]);
      const timings = await started;
      if (generation !== this.#generation) return;
      this.#timings = { ...timings, frame: frameReady - began, overall: performance.now() - began };
      this.#phase = 'running';
      performance.mark('platform:runtime-started', { detail: this.#timings });
      this.#previews.attachAll();
      this.#pump();
      // The next (re)start takes a sandbox that has loaded already.
      void this.#sparesAfter.then(() => setTimeout(() => this.#prepareSpare(), 0));
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

  /** Kills the sandbox and starts again from the committed state; queued calls wait for it. */
  #restart(reason: string): void {
    this.#restarts.emit(reason);
    this.#boot().catch(() => {
      // #boot answered the queue with the failure; the phase says `failed`.
    });
  }

  #teardown(reason: string): void {
    // The previews' ports reached this worker: calls it had not begun go through the page until the next one.
    if (this.#running) this.#previews.detachAll();
    this.#previews.dropFlight();
    this.#activity();
    this.#running?.frame.dispose();
    this.#running = undefined;
    this.#startWaiter?.reject(new Error(reason));
    this.#startWaiter = undefined;
    for (const body of this.#bodies.values()) body.error(new Error(`The response was cut off: ${reason}`));
    this.#bodies.clear();
  }

  /**
   * Answers the running call with a failure: a preview's (the page's own request, waiting behind it,
   * never ran and goes first again) or else the page's.
   */
  #interrupt(status: number, code: string, message: string): void {
    if (this.#previews.interrupt(status, code, message)) {
      const waiting = this.#inFlight;
      if (waiting) {
        this.#watchdog.close(waiting.id);
        this.#inFlight = undefined;
        this.#activity();
        this.#queue.unshift(waiting.job);
      }
      return;
    }
    const flight = this.#inFlight;
    if (!flight) return;
    this.#watchdog.close(flight.id);
    this.#inFlight = undefined;
    this.#activity();
    failJob(flight.job, failure(status, code, message));
  }

  #drainWithFailure(): void {
    const jobs = this.#queue.splice(0);
    for (const job of jobs) failJob(job, failure(503, 'runtime_unavailable', `The runtime is not running: ${this.#failure}`));
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
      failJob(job, failure(503, 'runtime_unavailable', why));
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
    this.#inFlight = { id, job, began: performance.now() };
    this.#activity();
    postJob(this.#running.frame, id, job);
  }

  /**
   * A call got no answer in its deadline plus grace: the sandbox is stuck in synchronous code, in the
   * call it runs (a preview's that began, else the page's own).
   */
  #stuck(item: number | PreviewFlight): void {
    const flight = this.#inFlight;
    const running = this.#previews.flight;
    if (!running && (!flight || flight.id !== item)) return;
    const what = running ? running.operation : describeJob(flight!.job);
    const persona = running ? running.persona : personaOf(flight!.job);
    const message = `The handler did not finish within its deadline of ${this.#deadlineMs} ms and did not yield: it was stopped, and the runtime restarted from the last committed state.`;
    this.#interrupt(504, 'handler_deadline_exceeded', message);
    // Its worker is ended, so no report of its own comes: the page's Console and Events hear of it as
    // of any failed call, with where its handler is when the worker said so as the call began.
    if (persona) this.#reports.emit({ persona, operation: what, logs: [], error: { code: 'handler_deadline_exceeded', message }, ...(running?.at ? { stack: `    at ${running.at}` } : {}) });
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
    this.#activity();
    queueMicrotask(() => this.#pump());
    if (flight.job.type === type) return flight.job as Extract<Job, { type: T }>;
    failJob(flight.job, failure(502, 'runtime_protocol_error', `The runtime answered a ${flight.job.type} request as if it were a ${type} request.`));
    return undefined;
  }

  #emitWrite(wrote: TableSet, persona: PersonaName): void {
    if (wrote.tables.length === 0 && !wrote.storage) return;
    this.#writes.emit({ tables: [...wrote.tables], storage: wrote.storage }, persona);
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
        void this.#commits.afterDurable(() => {
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
        void this.#commits.afterDurable(() => {
          job.settle(response);
          if (message.status >= 200 && message.status < 300) {
            this.#emitWrite(tableSetFromHeader(new Headers(message.headers).get(WROTE_HEADER)) ?? NO_WRITES, job.persona);
          }
        });
        break;
      }
      case 'body-chunk':
      case 'body-end':
      case 'body-error':
        deliverBody(this.#bodies, message);
        break;
      case 'env-set':
        this.#finish(message.id, 'set-env')?.settle();
        break;
      case 'flushed':
        this.#finish(message.id, 'flush')?.settle();
        break;
      case 'journal':
        if (message.sequence <= this.#sequence) break;
        this.#sequence = message.sequence;
        (this.#committed ??= { journal: [] }).journal.push(message.batch);
        this.#commits.persist({ kind: 'journal', batch: message.batch });
        break;
      case 'checkpoint':
        if (message.sequence <= this.#sequence) break;
        this.#sequence = message.sequence;
        this.#committed = { checkpoint: message.state, journal: [] };
        this.#commits.persist({ kind: 'checkpoint', state: message.state });
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
          void this.#commits.afterDurable(() => {
            job.settle(result);
            if (result.kind === 'update-row' && result.status === 200 && job.query.kind === 'update-row') this.#emitWrite(result.wrote, job.query.persona);
          });
        } else job.settle(result);
        break;
      }
      case 'preview-began':
        this.#previews.began(message);
        break;
      case 'preview-called':
        this.#previews.called(message);
        break;
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
    this.#faults.emit(message);
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
