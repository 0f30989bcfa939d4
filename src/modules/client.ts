// `platform/client`: typed queries and mutations from the browser (hooks and plain calls), through
// a host that the environment (dev server, preview, hosted runtime) installs on globalThis.

import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { MutationInput, MutationNames, MutationResult, QueryInput, QueryNames, QueryResult } from './types';
import { RuntimeError, decodeJson, encodeJson, hasRuntimeErrorShape, isRuntimeError, runtimeErrorFromBody } from './wire';

export { RuntimeError, isRuntimeError } from './wire';
export type { RuntimeErrorShape } from './types';

/** A change the runtime reports: which tables were written and whether the store was. */
export type ChangeEvent = { tables: string[]; storage: boolean };

/**
 * What the environment provides to run calls. `call` resolves with the decoded result or rejects
 * with something carrying `{ status, code, message, errorId }`.
 */
export interface ClientHost {
  call(kind: 'query' | 'mutation', name: string, input: unknown): Promise<unknown>;
  /** Live updates: called on every write another client (or this one) committed. Returns an unsubscribe. */
  subscribe?(listener: (event: ChangeEvent) => void): () => void;
}

const HOST_KEY = Symbol.for('platform.client.host');

type HostSlot = { [HOST_KEY]?: ClientHost };

function currentHost(): ClientHost | undefined {
  return (globalThis as HostSlot)[HOST_KEY] ?? sameOriginHost();
}

let httpHost: ClientHost | undefined;

/**
 * Without an installed host, a page served over HTTP (a deployment, `platform preview`) calls the
 * runtime that served it: `POST /_platform/v0/<kind>/<name>` on its own origin with the wire codec.
 * No live updates: a hosted environment's default `liveConnections` budget is 0.
 */
function sameOriginHost(): ClientHost | undefined {
  const location = (globalThis as { location?: { protocol?: string } }).location;
  if (!location || (location.protocol !== 'http:' && location.protocol !== 'https:')) return undefined;
  httpHost ??= {
    async call(kind, name, input) {
      const response = await fetch(`/_platform/v0/${kind}/${encodeURIComponent(name)}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: encodeJson(input === undefined ? {} : { input }),
        credentials: 'same-origin',
      });
      const text = await response.text();
      let body: unknown;
      try {
        body = decodeJson(text);
      } catch {
        throw new RuntimeError({ status: response.status, code: 'invalid_response', message: `The runtime answered ${response.status} with a body that is not wire JSON.`, errorId: '' });
      }
      if (!response.ok) throw runtimeErrorFromBody(response.status, body) ?? new RuntimeError({ status: response.status, code: 'invalid_response', message: `The runtime answered ${response.status} without an error body.`, errorId: '' });
      return (body as { result?: unknown } | null)?.result;
    },
  };
  return httpHost;
}

/**
 * Installs the host that runs calls (done by the environment, not by app code). Returns a function
 * that removes it again.
 *
 * @example
 * installClientHost({ call: (kind, name, input) => fetchOperation(kind, name, input) });
 */
export function installClientHost(host: ClientHost): () => void {
  (globalThis as HostSlot)[HOST_KEY] = host;
  resubscribe();
  return () => {
    if (currentHost() !== host) return;
    delete (globalThis as HostSlot)[HOST_KEY];
    resubscribe();
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

async function call(kind: 'query' | 'mutation', name: string, input: unknown): Promise<unknown> {
  const host = currentHost();
  if (host === undefined) {
    throw new RuntimeError({
      status: 503,
      code: 'no_runtime',
      message: `Cannot run ${kind} ${name}: no platform runtime is connected to this page. Open it through \`platform dev\`, a preview or a deployment.`,
      errorId: '',
    });
  }
  try {
    return await host.call(kind, name, input);
  } catch (reason) {
    throw toRuntimeError(reason);
  }
}

// --- Mounted queries ---------------------------------------------------------------------------

type MountedQuery = { namespace: string; rerun: () => void };

const mounted = new Set<MountedQuery>();
let unsubscribe: (() => void) | undefined;

function resubscribe(): void {
  unsubscribe?.();
  unsubscribe = undefined;
  if (mounted.size === 0) return;
  unsubscribe = currentHost()?.subscribe?.(() => rerun(() => true));
}

function mount(entry: MountedQuery): () => void {
  mounted.add(entry);
  if (mounted.size === 1) resubscribe();
  return () => {
    mounted.delete(entry);
    if (mounted.size === 0) resubscribe();
  };
}

function rerun(select: (entry: MountedQuery) => boolean): void {
  for (const entry of [...mounted]) if (select(entry)) entry.rerun();
}

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
 * Runs a query when the component mounts and whenever `name` or `input` change, and again when a
 * mutation of this client commits, when `invalidateQueries` names its namespace, or when the live
 * stream reports a write.
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
  const ticket = useRef(0);

  useEffect(() => {
    let active = true;
    const run = (): void => {
      const mine = ++ticket.current;
      setState((previous) => {
        if (previous.key !== key) return { key, data: undefined, error: undefined, loading: true };
        return previous.loading ? previous : { ...previous, loading: true };
      });
      call('query', name, latestInput.current).then(
        (data) => {
          if (active && mine === ticket.current) setState({ key, data: data as Result, error: undefined, loading: false });
        },
        (reason: unknown) => {
          if (!active || mine !== ticket.current) return;
          setState((previous) => ({
            key,
            data: previous.key === key ? previous.data : undefined,
            error: toRuntimeError(reason),
            loading: false,
          }));
        },
      );
    };
    run();
    const unmount = mount({ namespace: namespaceOf(name), rerun: run });
    return () => {
      active = false;
      unmount();
    };
    // `key` covers `name` and the encoded input.
  }, [key]);

  if (state.key !== key) return { data: undefined, error: undefined, loading: true };
  return { data: state.data, error: state.error, loading: state.loading };
}

/**
 * A function that runs the mutation. After it commits, this client's mounted queries re-run.
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
  return (await call('query', name, input)) as QueryResult<N>;
}

/**
 * Runs a mutation; after it commits, this client's mounted queries re-run.
 *
 * @example
 * const id = await mutation('todos.add', { title: 'milk' });
 */
export async function mutation<N extends MutationNames>(name: N, input: MutationInput<N>): Promise<MutationResult<N>> {
  const result = (await call('mutation', name, input)) as MutationResult<N>;
  rerun(() => true);
  return result;
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
  const wanted = new Set(namespaces);
  rerun((entry) => wanted.has(entry.namespace));
}
