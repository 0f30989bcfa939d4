// `platform/client`: typed queries and mutations from the browser (hooks and plain calls), through
// a host that the environment (preview, hosted runtime) installs on globalThis, and live updates:
// which mounted queries re-run after a write, this client's own or (over the live-update stream)
// another client's.

import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { MutationInput, MutationNames, MutationResult, PageAuth, QueryInput, QueryNames, QueryResult, WorkspaceInfo, WorkspaceInvite } from './types';
import {
  AUTH_ME_PATH,
  JOIN_PATH,
  liveNotAllowed,
  LIVE_CONNECTION_HEADER,
  LIVE_PATH,
  READ_HEADER,
  RuntimeError,
  SIGN_IN_PATH,
  SIGN_OUT_PATH,
  WORKSPACES_PATH,
  WROTE_HEADER,
  affects,
  decodeJson,
  encodeJson,
  errorOfBody,
  hasRuntimeErrorShape,
  isRuntimeError,
  parseLiveEvent,
  runtimeErrorFromBody,
  tableSetFromHeader,
  type CallAnswer,
  type TableSet,
} from './wire';

export { RuntimeError, isRuntimeError } from './wire';
export type { PageAuth, RuntimeErrorShape, WorkspaceInfo, WorkspaceInvite } from './types';
export type { CallAnswer, TableSet } from './wire';

/**
 * What the environment provides to reach the app's runtime. With `fetch` (a hosted page, a preview)
 * the client speaks the wire routes itself (`POST /_platform/v0/<kind>/<name>`), learns which tables
 * each query read and each mutation wrote, and holds the live-update stream (`GET /_platform/v0/live`).
 * A host with `fetch` may also have `send`, the same calls without HTTP. A host with only `call` runs
 * calls its own way: no dependency tracking (a mutation re-runs every mounted query) and no live updates.
 */
export interface ClientHost {
  /** The app's runtime over HTTP: a path under `/_platform/v0/` and its request init, like `globalThis.fetch`. */
  fetch?(path: string, init: RequestInit): Promise<Response>;
  /**
   * A query's or mutation's wire route without HTTP (a playground preview's port straight to the
   * runtime worker): `body` is the route's request body (`{"input": …}` in wire JSON) and `live` the
   * live connection it is sent under (the route's `x-platform-live` header); resolves with what the
   * route's response would say. Resolves undefined when it cannot be sent so now: the call goes over
   * `fetch` (a host with `send` has `fetch`).
   */
  send?(kind: 'query' | 'mutation', name: string, body: string, live: string | undefined): Promise<CallAnswer | undefined>;
  /** Resolves with the decoded result or rejects with something carrying `{ status, code, message, errorId }`. */
  call?(kind: 'query' | 'mutation', name: string, input: unknown): Promise<unknown>;
  /**
   * Signing in and out where people are not accounts (the playground's personas): `signIn()` and
   * `signOut()` call these instead of the platform's routes. A hosted page has none: it navigates to
   * the platform's sign-in on its own origin.
   */
  signIn?(returnPath: string): void;
  signOut?(): void | Promise<void>;
  /**
   * Where the environment can say that the app's server code was replaced under the page (a
   * playground preview after an edit that changed the server alone): the client module registers
   * `listener`, which re-runs every mounted query on the new server and answers false when the page
   * holds answers it cannot refresh (a plain `query()` ran), so the environment reloads the page.
   */
  onServerReplaced?(listener: () => boolean): void;
}

const HOST_KEY = Symbol.for('platform.client.host');

type HostSlot = { [HOST_KEY]?: ClientHost };

function currentHost(): ClientHost | undefined {
  return (globalThis as HostSlot)[HOST_KEY] ?? sameOriginHost();
}

let httpHost: ClientHost | undefined;

/**
 * Without an installed host, a page served over HTTP (a deployment) calls the runtime that served it,
 * on its own origin.
 */
function sameOriginHost(): ClientHost | undefined {
  const location = (globalThis as { location?: { protocol?: string } }).location;
  if (!location || (location.protocol !== 'http:' && location.protocol !== 'https:')) return undefined;
  httpHost ??= { fetch: (path, init) => fetch(path, init) };
  return httpHost;
}

/**
 * Installs the host that runs calls (done by the environment, not by app code). Returns a function
 * that removes it again.
 *
 * @example
 * installClientHost({ fetch: (path, init) => fetch(new URL(path, runtimeOrigin), init) });
 */
export function installClientHost(host: ClientHost): () => void {
  (globalThis as HostSlot)[HOST_KEY] = host;
  host.onServerReplaced?.(() => pageClient.serverReplaced());
  pageClient.hostChanged();
  return () => {
    if (currentHost() !== host) return;
    delete (globalThis as HostSlot)[HOST_KEY];
    pageClient.hostChanged();
  };
}

/** Turns whatever a host rejected with into a `RuntimeError`. */
function toRuntimeError(reason: unknown): RuntimeError {
  if (isRuntimeError(reason)) return reason;
  if (hasRuntimeErrorShape(reason)) return new RuntimeError(reason);
  // A host that failed without a runtime answer (network down, bug in the host): status 0.
  const message = reason instanceof Error ? reason.message : String(reason);
  return new RuntimeError({ status: 0, code: 'network_error', message, errorId: '' });
}

/** How a call ended, with what the runtime said it read or wrote (undefined: not known): its answer, the error a RuntimeError. */
export type CallSettled = Omit<CallAnswer, 'status' | 'error'> & {
  error?: RuntimeError;
  /** The live connection the call was sent under, if any. */
  connection?: string;
};

/** An answer as the client takes it, sent under `connection`. */
function settledOf(answer: CallAnswer, connection: string | undefined): CallSettled {
  const { status, error, ...known } = answer;
  return { ...known, ...(connection ? { connection } : {}), ...(error ? { error: new RuntimeError({ status, ...error }) } : {}) };
}

/** A call over the host's `fetch`, to its wire route (`body`: its request body) under the live connection `connection`: the response as an answer. */
async function wireAnswer(host: ClientHost, kind: 'query' | 'mutation', name: string, body: string, connection: string | undefined): Promise<CallAnswer> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (connection) headers[LIVE_CONNECTION_HEADER] = connection;
  const response = await host.fetch!(`/_platform/v0/${kind}/${encodeURIComponent(name)}`, { method: 'POST', headers, body, credentials: 'same-origin' });
  const { status } = response;
  const read = tableSetFromHeader(response.headers.get(READ_HEADER));
  const wrote = tableSetFromHeader(response.headers.get(WROTE_HEADER));
  const known = { status, ...(read ? { read } : {}), ...(wrote ? { wrote } : {}) };
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = decodeJson(text);
  } catch {
    return { ...known, error: { code: 'invalid_response', message: `The runtime answered ${status} with a body that is not wire JSON.`, errorId: '' } };
  }
  if (!response.ok) return { ...known, error: errorOfBody(parsed) ?? { code: 'invalid_response', message: `The runtime answered ${status} without an error body.`, errorId: '' } };
  return { ...known, result: (parsed as { result?: unknown } | null)?.result };
}

type MountedQuery = {
  namespace: string;
  /** What its last run read; undefined until the runtime said (then any write may affect it). */
  read?: TableSet;
  /** The live connection its last run was sent under (the runtime holds it there). */
  heldBy?: string;
  rerun: () => void;
};

/** How long without a byte (pings come every 5 s) before the live stream is taken for dead. */
const LIVE_SILENCE_MS = 20_000;
/** Mounted queries gone: the live connection is kept this long in case others mount (a route change). */
const LIVE_IDLE_MS = 1_000;
const MAX_BACKOFF_MS = 30_000;

type LiveState = 'idle' | 'connecting' | 'open' | 'waiting' | 'off';

/**
 * The engine behind the hooks and plain calls: the mounted queries of one page, what each depends
 * on, and the page's one live connection (held while queries are mounted). The module keeps one for
 * the page; the platform's tests make their own over a host of their choosing.
 */
export class QueryClient {
  readonly #host: () => ClientHost | undefined;
  readonly #mounted = new Set<MountedQuery>();
  #state: LiveState = 'idle';
  #connection: string | undefined;
  #reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  #abort: AbortController | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #idle: ReturnType<typeof setTimeout> | undefined;
  #attempt = 0;
  /** Bumped on every stop: a connection attempt of an older round ends quietly. */
  #round = 0;
  /** A query ran once (`query()`): its answer is held where this client cannot run it again. */
  #answeredOutside = false;

  constructor(host: () => ClientHost | undefined) {
    this.#host = host;
  }

  /** The live connection's id while it is open. */
  get liveConnection(): string | undefined {
    return this.#connection;
  }

  /** `open` while the live stream is up; `off` when the runtime refused it for good (a budget of 0). */
  get liveState(): LiveState {
    return this.#state;
  }

  /**
   * Runs a call over the host, as its wire route (without HTTP where the host can `send`); never
   * rejects (a failure is in `error`).
   */
  async send(kind: 'query' | 'mutation', name: string, input: unknown): Promise<CallSettled> {
    const host = this.#host();
    if (host === undefined || (!host.fetch && !host.call)) {
      return {
        error: new RuntimeError({
          status: 503,
          code: 'no_runtime',
          message: `Cannot run ${kind} ${name}: no platform runtime is connected to this page. Open it through a preview or a deployment.`,
          errorId: '',
        }),
      };
    }
    if (!host.fetch) {
      try {
        return { result: await host.call!(kind, name, input) };
      } catch (reason) {
        return { error: toRuntimeError(reason) };
      }
    }
    const connection = this.#connection;
    try {
      const body = encodeJson(input === undefined ? {} : { input });
      return settledOf((await host.send?.(kind, name, body, connection)) ?? (await wireAnswer(host, kind, name, body, connection)), connection);
    } catch (reason) {
      return { error: toRuntimeError(reason) };
    }
  }

  /**
   * Runs a query now and again whenever something it depends on changes, until the returned
   * function is called. `input` is read at each run.
   */
  watch(name: string, input: () => unknown, listener: { start(): void; settle(settled: CallSettled): void }): () => void {
    let active = true;
    let ticket = 0;
    const entry: MountedQuery = { namespace: namespaceOf(name), rerun: () => run() };
    const run = (): void => {
      const mine = ++ticket;
      listener.start();
      void this.send('query', name, input()).then((settled) => {
        if (!active || mine !== ticket) return;
        if (settled.read) entry.read = settled.read;
        entry.heldBy = settled.connection;
        listener.settle(settled);
        // Sent before the current live connection opened: run again so that it holds this query.
        if (this.#connection && settled.connection !== this.#connection) run();
      });
    };
    this.#mount(entry);
    run();
    return () => {
      active = false;
      this.#unmount(entry);
    };
  }

  /** Runs a query once: its answer goes where this client cannot refresh it (see `serverReplaced`). */
  async query(name: string, input: unknown): Promise<unknown> {
    this.#answeredOutside = true;
    const settled = await this.send('query', name, input);
    if (settled.error) throw settled.error;
    return settled.result;
  }

  /**
   * The app's server code was replaced under the page (the data kept): every mounted query runs again
   * at once, and the live connection starts again on the new server. False, doing nothing, when a
   * query ran once: its answer may be on screen, and only loading the page again refreshes it.
   * (A mutation's answer is what happened, which a new server does not change.)
   */
  serverReplaced(): boolean {
    if (this.#answeredOutside) return false;
    this.hostChanged();
    this.refresh();
    return true;
  }

  /** Runs a mutation; after it commits, the mounted queries that read what it wrote re-run. */
  async mutation(name: string, input: unknown): Promise<unknown> {
    const settled = await this.send('mutation', name, input);
    if (settled.error) throw settled.error;
    this.refresh(settled.wrote);
    return settled.result;
  }

  /** Re-runs the mounted queries a write affects (all of them when what was written is not known). */
  refresh(wrote?: TableSet): void {
    this.#rerun((entry) => !wrote || !entry.read || affects(entry.read, wrote));
  }

  /** Re-runs every mounted query of these namespaces. */
  invalidate(namespaces: readonly string[]): void {
    const wanted = new Set(namespaces);
    this.#rerun((entry) => wanted.has(entry.namespace));
  }

  /** The host changed: the live connection starts again over the new one. */
  hostChanged(): void {
    this.#stop();
    this.#state = 'idle';
    if (this.#mounted.size > 0) this.#start();
  }

  /** Ends the live connection and forgets the mounted queries (tests). */
  close(): void {
    this.#mounted.clear();
    this.#stop();
  }

  #rerun(select: (entry: MountedQuery) => boolean): void {
    for (const entry of [...this.#mounted]) if (select(entry)) entry.rerun();
  }

  #mount(entry: MountedQuery): void {
    this.#mounted.add(entry);
    clearTimeout(this.#idle);
    this.#idle = undefined;
    if (this.#state === 'idle') this.#start();
  }

  #unmount(entry: MountedQuery): void {
    this.#mounted.delete(entry);
    if (this.#mounted.size > 0 || this.#idle !== undefined) return;
    this.#idle = setTimeout(() => {
      this.#idle = undefined;
      if (this.#mounted.size === 0 && this.#state !== 'off') {
        this.#stop();
        this.#state = 'idle';
      }
    }, LIVE_IDLE_MS);
  }

  // --- The live-update stream ------------------------------------------------------------------

  #start(): void {
    if (!this.#host()?.fetch) return;
    void this.#connect(this.#round);
  }

  #stop(): void {
    this.#round++;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    clearTimeout(this.#idle);
    this.#idle = undefined;
    this.#connection = undefined;
    this.#reader?.cancel().catch(() => undefined);
    this.#reader = undefined;
    this.#abort?.abort();
    this.#abort = undefined;
  }

  /**
   * Connects again: at once, or after a wait that doubles with each attempt since the last
   * connection that lasted (1 s up to 30 s), and at least `atLeast` ms (a Retry-After).
   */
  #retry(round: number, how: { now: true } | { atLeast?: number } = {}): void {
    if (round !== this.#round) return;
    this.#connection = undefined;
    this.#reader = undefined;
    this.#state = 'waiting';
    const delay = 'now' in how ? 0 : Math.max(how.atLeast ?? 0, Math.min(MAX_BACKOFF_MS, 1000 * 2 ** this.#attempt));
    this.#attempt++;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      if (round === this.#round && this.#mounted.size > 0) void this.#connect(round);
      else if (round === this.#round) this.#state = 'idle';
    }, delay);
  }

  async #connect(round: number): Promise<void> {
    const host = this.#host();
    if (!host?.fetch) return;
    this.#state = 'connecting';
    const abort = new AbortController();
    this.#abort = abort;
    let response: Response;
    try {
      response = await host.fetch(LIVE_PATH, { method: 'GET', headers: { accept: 'application/x-ndjson' }, credentials: 'same-origin', cache: 'no-store', signal: abort.signal });
    } catch {
      return this.#retry(round);
    }
    if (round !== this.#round) {
      response.body?.cancel().catch(() => undefined);
      return;
    }
    if (!response.ok || !response.body) {
      response.body?.cancel().catch(() => undefined);
      // A budget of 0 admits no live connection: this page refreshes after its own writes only.
      if (liveNotAllowed(response) || response.status === 404 || response.status === 405) {
        this.#state = 'off';
        return;
      }
      const after = Number(response.headers.get('retry-after'));
      return this.#retry(round, { atLeast: Number.isFinite(after) && after > 0 ? after * 1000 : 0 });
    }
    const reader = response.body.getReader();
    this.#reader = reader;
    const opened = Date.now();
    const decoder = new TextDecoder();
    let buffer = '';
    let silence: ReturnType<typeof setTimeout> | undefined;
    const listen = () => {
      clearTimeout(silence);
      silence = setTimeout(() => reader.cancel().catch(() => undefined), LIVE_SILENCE_MS);
    };
    listen();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done || round !== this.#round) break;
        listen();
        buffer += decoder.decode(value, { stream: true });
        let newline: number;
        while ((newline = buffer.indexOf('\n')) >= 0) {
          const event = parseLiveEvent(buffer.slice(0, newline));
          buffer = buffer.slice(newline + 1);
          if (!event) continue;
          if (event.kind === 'open') {
            this.#connection = event.connection;
            this.#state = 'open';
            // Queries not held by this connection (run before it opened, or while it was down, when
            // writes may have been missed) run again under it.
            this.#rerun((entry) => entry.heldBy !== event.connection);
          } else if (event.kind === 'invalidate') {
            this.refresh({ tables: event.tables, storage: event.storage });
          }
        }
      }
    } catch {
      // The stream broke: connect again below.
    } finally {
      clearTimeout(silence);
    }
    if (round !== this.#round) return;
    // Ended by the runtime (its lifetime) or the network: again at once if it lasted, else after a wait.
    if (Date.now() - opened < 5_000) return this.#retry(round);
    this.#attempt = 0;
    this.#retry(round, { now: true });
  }
}

/** This page's client (the hooks and plain calls below). */
const pageClient = new QueryClient(currentHost);
// An environment that installed its host before the app's code ran (a preview's bootstrap) hears from this client.
(globalThis as HostSlot)[HOST_KEY]?.onServerReplaced?.(() => pageClient.serverReplaced());

function namespaceOf(name: string): string {
  const dot = name.indexOf('.');
  return dot === -1 ? name : name.slice(0, dot);
}

function inputKey(input: unknown): string {
  try {
    return encodeJson(input);
  } catch {
    // Not encodable: the call itself will report it; key by nothing stable.
    return '\u0000unencodable';
  }
}

// --- Public API --------------------------------------------------------------------------------

/** What `useQuery` renders from. `data` keeps the last result while a re-run is in flight. */
export type QueryState<T> = { data: T | undefined; error: RuntimeError | undefined; loading: boolean };

/**
 * Runs a query when the component mounts and whenever `name` or `input` change, and again when
 * something it read changes: a mutation of this client that wrote a table (or the store) it read,
 * another client's such mutation (over the live-update stream, when the app's `liveConnections`
 * budget admits one), or `invalidateQueries` naming its namespace.
 *
 * @example
 * function Todos() {
 *   const { data, error, loading } = useQuery('todos.list', {});
 *   if (error) return <p>{error.message}</p>;
 *   return loading && !data ? <p>Loading</p> : <ul>{data?.map((todo) => <li key={todo.id}>{todo.title}</li>)}</ul>;
 * }
 */
export function useQuery<N extends QueryNames>(name: N, input: QueryInput<N>): QueryState<QueryResult<N>> {
  type Result = QueryResult<N>;
  type Slot = QueryState<Result> & { key: string };
  const key = `${name}\u0000${inputKey(input)}`;
  const [state, setState] = useState<Slot>(() => ({ key, data: undefined, error: undefined, loading: true }));
  const latestInput = useRef<unknown>(input);
  latestInput.current = input;

  useEffect(
    () =>
      pageClient.watch(name, () => latestInput.current, {
        start() {
          setState((previous) => {
            if (previous.key !== key) return { key, data: undefined, error: undefined, loading: true };
            return previous.loading ? previous : { ...previous, loading: true };
          });
        },
        settle({ result, error }) {
          if (!error) setState({ key, data: result as Result, error: undefined, loading: false });
          else setState((previous) => ({ key, data: previous.key === key ? previous.data : undefined, error, loading: false }));
        },
      }),
    // `key` covers `name` and the encoded input.
    [key],
  );

  if (state.key !== key) return { data: undefined, error: undefined, loading: true };
  return { data: state.data, error: state.error, loading: state.loading };
}

/**
 * A function that runs the mutation. After it commits, this client's mounted queries that read a
 * table (or the store) it wrote re-run.
 *
 * @example
 * const addTodo = useMutation('todos.add');
 * <button onClick={() => addTodo({ title: 'milk' })}>Add</button>
 */
export function useMutation<N extends MutationNames>(name: N): (input: MutationInput<N>) => Promise<MutationResult<N>> {
  return useCallback((input: MutationInput<N>) => mutation(name, input), [name]);
}

/**
 * Runs a query once, outside components.
 *
 * @example
 * const todos = await query('todos.list', {});
 */
export async function query<N extends QueryNames>(name: N, input: QueryInput<N>): Promise<QueryResult<N>> {
  return (await pageClient.query(name, input)) as QueryResult<N>;
}

/**
 * Runs a mutation; after it commits, this client's mounted queries that read a table (or the
 * store) it wrote re-run.
 *
 * @example
 * const id = await mutation('todos.add', { title: 'milk' });
 */
export async function mutation<N extends MutationNames>(name: N, input: MutationInput<N>): Promise<MutationResult<N>> {
  return (await pageClient.mutation(name, input)) as MutationResult<N>;
}

/**
 * Re-runs every mounted query of these namespaces (the part of a query name before the first dot).
 * Call it after an endpoint wrote, since endpoint writes do not refresh clients.
 *
 * @example
 * await fetch('/api/files', { method: 'POST', body: file });
 * invalidateQueries(['files']);
 */
export function invalidateQueries(namespaces: readonly string[]): void {
  pageClient.invalidate(namespaces);
}

// --- Signing in and workspaces -------------------------------------------------------------------
// Served by the platform on the page's own origin under `/__platform/` (hosted: accounts with passkeys,
// signed in through the control plane; in the playground: the preview's persona).

/** A platform route's JSON answer, or a RuntimeError (the platform's refusals have the runtime error body). */
async function platformCall<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  const host = currentHost();
  if (!host?.fetch) {
    throw new RuntimeError({ status: 503, code: 'no_runtime', message: `Cannot reach ${path}: no platform runtime is connected to this page. Open it through a preview or a deployment.`, errorId: '' });
  }
  let response: Response;
  try {
    response = await host.fetch(path, {
      method,
      headers: { accept: 'application/json', ...(method === 'POST' ? { 'content-type': 'application/json' } : {}) },
      ...(method === 'POST' ? { body: JSON.stringify(body ?? {}) } : {}),
      credentials: 'same-origin',
      cache: 'no-store',
    });
  } catch (reason) {
    throw toRuntimeError(reason);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(await response.text());
  } catch {
    parsed = undefined;
  }
  if (!response.ok) throw runtimeErrorFromBody(response.status, parsed) ?? new RuntimeError({ status: response.status, code: 'invalid_response', message: `${path} answered ${response.status}.`, errorId: '' });
  return parsed as T;
}

type AuthSnapshot = { auth: PageAuth | undefined; error: RuntimeError | undefined; loading: boolean };

/** Who the page's visitor is, fetched once and again after anything that changes it; hooks subscribe. */
class AuthStore {
  #snapshot: AuthSnapshot = { auth: undefined, error: undefined, loading: false };
  readonly #listeners = new Set<() => void>();
  #ticket = 0;
  #started = false;

  get snapshot(): AuthSnapshot {
    return this.#snapshot;
  }

  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener);
    if (!this.#started) void this.load();
    return () => this.#listeners.delete(listener);
  }

  #set(snapshot: AuthSnapshot): void {
    this.#snapshot = snapshot;
    for (const listener of [...this.#listeners]) listener();
  }

  /** Asks the platform again; the answer of the latest ask wins. */
  async load(): Promise<PageAuth> {
    this.#started = true;
    const mine = ++this.#ticket;
    if (!this.#snapshot.loading) this.#set({ ...this.#snapshot, loading: true });
    try {
      const auth = await platformCall<PageAuth>('GET', AUTH_ME_PATH);
      if (mine === this.#ticket) this.#set({ auth, error: undefined, loading: false });
      return auth;
    } catch (reason) {
      const error = toRuntimeError(reason);
      if (mine === this.#ticket) this.#set({ auth: this.#snapshot.auth, error, loading: false });
      throw error;
    }
  }
}

const authStore = new AuthStore();

/** The page's visitor changed (signed out) or their workspaces did: who they are is asked again and every mounted query re-runs. */
async function afterAuthChange(identity: 'same' | 'changed'): Promise<void> {
  // Another person is another caller: the live connection (held for one appUserId) starts again.
  if (identity === 'changed') pageClient.hostChanged();
  pageClient.refresh();
  await authStore.load().catch(() => undefined);
}

/**
 * Who the page's visitor is, asked of the platform now: `{ kind, appUserId, workspaces }` (never a
 * name or email). Hosted, a guest until they sign in; in the playground, the preview's persona.
 *
 * @example
 * const me = await getAuth();
 * if (me.kind === 'guest') signIn();
 */
export function getAuth(): Promise<PageAuth> {
  return authStore.load();
}

/**
 * Who the page's visitor is, kept up to date after `signOut` and the workspace helpers. `auth` is
 * undefined until the first answer.
 *
 * @example
 * function Account() {
 *   const { auth } = useAuth();
 *   if (auth?.kind === 'guest') return <button onClick={() => signIn()}>Sign in</button>;
 *   return <button onClick={() => void signOut()}>Sign out</button>;
 * }
 */
export function useAuth(): AuthSnapshot {
  const [snapshot, setSnapshot] = useState<AuthSnapshot>(() => authStore.snapshot);
  useEffect(() => {
    const update = () => setSnapshot(authStore.snapshot);
    const unsubscribe = authStore.subscribe(update);
    update();
    return unsubscribe;
  }, []);
  return snapshot.auth === undefined && !snapshot.error ? { ...snapshot, loading: true } : snapshot;
}

/**
 * The workspaces the visitor belongs to (`{ id, name, members }`; ids are what `ctx.auth.workspaceIds`
 * holds), kept up to date like `useAuth`.
 *
 * @example
 * const { workspaces } = useWorkspaces();
 * workspaces?.map((workspace) => <option value={workspace.id}>{workspace.name}</option>);
 */
export function useWorkspaces(): { workspaces: WorkspaceInfo[] | undefined; error: RuntimeError | undefined; loading: boolean } {
  const { auth, error, loading } = useAuth();
  return { workspaces: auth ? (auth.workspaces ?? []) : undefined, error, loading };
}

/**
 * Signs the visitor in and comes back to `returnPath` (a path of this page's origin; default: where
 * the page is). Hosted, the browser goes to the platform's sign-in (a passkey, on the control plane)
 * and returns signed in. In the playground, people are personas: it says to switch persona.
 *
 * @example
 * <button onClick={() => signIn()}>Sign in</button>
 */
export function signIn(returnPath?: string): void {
  const location = (globalThis as { location?: Location }).location;
  const path = returnPath ?? (location ? `${location.pathname}${location.search}${location.hash}` : '/');
  const host = currentHost();
  if (host?.signIn) return host.signIn(path);
  if (!location || host !== sameOriginHost()) throw new RuntimeError({ status: 503, code: 'no_sign_in', message: 'Signing in needs a page served by the platform (a deployment).', errorId: '' });
  location.assign(`${SIGN_IN_PATH}?return=${encodeURIComponent(path)}`);
}

/**
 * Ends the visitor's sign-in on this app: they are a guest again, and every mounted query re-runs.
 *
 * @example
 * <button onClick={() => void signOut()}>Sign out</button>
 */
export async function signOut(): Promise<void> {
  const host = currentHost();
  if (host?.signOut) return host.signOut();
  await platformCall('POST', SIGN_OUT_PATH, {});
  await afterAuthChange('changed');
}

/**
 * Creates a workspace with the signed-in visitor as its only member. Its id is in `ctx.auth.workspaceIds`
 * from the next call on, so `memberOf` guards and `workspaceTable()` policies admit them.
 *
 * @example
 * const workspace = await createWorkspace('Design team');
 */
export async function createWorkspace(name: string): Promise<WorkspaceInfo> {
  const { workspace } = await platformCall<{ workspace: WorkspaceInfo }>('POST', WORKSPACES_PATH, { name });
  await afterAuthChange('same');
  return workspace;
}

/**
 * A link that lets one more person join a workspace the visitor is a member of: used once, for 7 days.
 *
 * @example
 * const { url } = await inviteToWorkspace(workspaceId);
 * await navigator.clipboard.writeText(url);
 */
export async function inviteToWorkspace(workspaceId: string): Promise<WorkspaceInvite> {
  const { invite } = await platformCall<{ invite: { url: string; token: string; expiresAt: string } }>('POST', `${WORKSPACES_PATH}/${encodeURIComponent(workspaceId)}/invites`, {});
  return { url: invite.url, token: invite.token, expiresAt: new Date(invite.expiresAt) };
}

/**
 * Joins a workspace with an invitation (its link or its token). Opening the link in a browser does the
 * same through the platform's page.
 *
 * @example
 * await joinWorkspace(link);
 */
export async function joinWorkspace(invite: string): Promise<WorkspaceInfo> {
  const at = invite.lastIndexOf(JOIN_PATH);
  const token = at >= 0 ? invite.slice(at + JOIN_PATH.length).split(/[?#]/)[0]! : invite.trim();
  const { workspace } = await platformCall<{ workspace: WorkspaceInfo }>('POST', `${JOIN_PATH}${encodeURIComponent(token)}`, {});
  await afterAuthChange('same');
  return workspace;
}

/**
 * Leaves a workspace: its id leaves `ctx.auth.workspaceIds`, and invitations the visitor sent for it
 * are withdrawn.
 *
 * @example
 * await leaveWorkspace(workspaceId);
 */
export async function leaveWorkspace(workspaceId: string): Promise<void> {
  await platformCall('POST', `${WORKSPACES_PATH}/${encodeURIComponent(workspaceId)}/leave`, {});
  await afterAuthChange('same');
}
