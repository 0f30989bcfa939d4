// `platform/test`: test registration, matchers, persona callers and `expectFailure`, running
// against a test runner host that `platform test` (or the playground) installs on globalThis.

import type {
  HttpMethod,
  MutationInput,
  MutationNames,
  MutationResult,
  Persona,
  QueryInput,
  QueryNames,
  QueryResult,
  RuntimeErrorShape,
} from './types';
import { RuntimeError, hasRuntimeErrorShape, isRuntimeError, runtimeErrorShape } from './wire';

export type { Persona, RuntimeErrorShape } from './types';

/** What the test runner provides. Each `test()` runs against fresh, isolated state. */
export interface TestHost {
  register(name: string, fn: () => unknown | Promise<unknown>, location?: string): void;
  /** Resolves with the decoded result, or rejects with something carrying `{ status, code, message, errorId }`. */
  call(persona: Persona, kind: 'query' | 'mutation', name: string, input: unknown): Promise<unknown>;
  fetch(persona: Persona, request: Request): Promise<Response>;
  setEnv(values: Record<string, string>): void;
}

const HOST_KEY = Symbol.for('platform.test.host');

type HostSlot = { [HOST_KEY]?: TestHost };

/**
 * Installs the runner host (done by the runner, not by tests). Returns a function that removes it.
 *
 * @example
 * installTestHost({ register, call, fetch, setEnv });
 */
export function installTestHost(host: TestHost): () => void {
  (globalThis as HostSlot)[HOST_KEY] = host;
  return () => {
    if ((globalThis as HostSlot)[HOST_KEY] === host) delete (globalThis as HostSlot)[HOST_KEY];
  };
}

function host(): TestHost {
  const found = (globalThis as HostSlot)[HOST_KEY];
  if (found === undefined) throw new Error('platform/test: no test runner is installed. Run tests with `platform test`.');
  return found;
}

/**
 * Registers a test. It runs against an empty database and an empty store.
 *
 * @example
 * test('adding a todo lists it', async () => {
 *   await mutation('todos.add', { title: 'milk' });
 *   expect(await query('todos.list', {})).toHaveLength(1);
 * });
 */
export function test(name: string, fn: () => unknown | Promise<unknown>): void {
  host().register(name, fn, callerLocation());
}

// The first stack frame outside this module: where `test()` was called.
function callerLocation(): string | undefined {
  const frames = (new Error().stack ?? '').split('\n').map((line) => line.trim());
  const named = frames.findIndex((line) => line.includes('callerLocation'));
  // Minified bundles rename functions; then count frames (V8 starts with an `Error` line).
  const own = named !== -1 ? named : frames[0]?.startsWith('Error') ? 1 : 0;
  const frame = frames[own + 2];
  if (frame === undefined) return undefined;
  // V8 writes `at fn (file:line:col)` or `at file:line:col`; Firefox and Safari `fn@file:line:col`.
  return /\((.*)\)$/.exec(frame)?.[1] ?? frame.replace(/^at\s+/, '').replace(/^[^@]*@/, '');
}

// --- Assertion failures ------------------------------------------------------------------------

const ASSERTION_BRAND = Symbol.for('platform.AssertionFailure');

/**
 * Thrown by a failed matcher (and by `expectFailure` when the call succeeded). Recognise it with
 * `isAssertionFailure`, which checks a brand, not `instanceof`. `expectedText` and `actualText` are
 * the values rendered for reports.
 */
export class AssertionFailure extends Error {
  readonly matcher: string;
  readonly expected: unknown;
  readonly actual: unknown;
  readonly expectedText: string;
  readonly actualText: string;

  constructor(matcher: string, expected: unknown, actual: unknown, message: string) {
    super(message);
    this.name = 'AssertionFailure';
    this.matcher = matcher;
    this.expected = expected;
    this.actual = actual;
    this.expectedText = formatValue(expected);
    this.actualText = formatValue(actual);
    Object.defineProperty(this, ASSERTION_BRAND, { value: true });
  }
}

/**
 * True for an `AssertionFailure` from any copy of this module.
 *
 * @example
 * try { await fn(); } catch (error) { if (isAssertionFailure(error)) report(error.matcher); }
 */
export function isAssertionFailure(value: unknown): value is AssertionFailure {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[ASSERTION_BRAND] === true;
}

// --- Matchers ----------------------------------------------------------------------------------

/** A constructor, for `toBeInstanceOf` and `toThrow` (`any[]` so classes with required parameters fit). */
export type Constructor = abstract new (...args: any[]) => unknown;

/** The matchers of `expect(actual)` and of `expect(actual).not`. */
export interface Assertions {
  /** Same value (`Object.is`). */
  toBe(expected: unknown): void;
  /** Deep equality, ignoring undefined properties and object types. */
  toEqual(expected: unknown): void;
  /** Deep equality, including undefined properties, prototypes and array holes. */
  toStrictEqual(expected: unknown): void;
  /** `actual` has at least the properties of `expected`, recursively. */
  toMatchObject(expected: object): void;
  toHaveLength(length: number): void;
  /** A string contains the substring, or an array (iterable) contains the item (`===`). */
  toContain(item: unknown): void;
  toBeNull(): void;
  toBeUndefined(): void;
  toBeDefined(): void;
  toBeTruthy(): void;
  toBeFalsy(): void;
  toBeGreaterThan(n: number | bigint): void;
  toBeGreaterThanOrEqual(n: number | bigint): void;
  toBeLessThan(n: number | bigint): void;
  toBeLessThanOrEqual(n: number | bigint): void;
  toBeInstanceOf(type: Constructor): void;
  /** `actual` is a function that throws (optionally: a message containing a string, matching a RegExp, or an instance of a class). */
  toThrow(expected?: string | RegExp | Constructor): void;
}

/** What `expect(actual)` returns. */
export interface Expectation extends Assertions {
  readonly not: Assertions;
}

type Verdict = { pass: boolean; expected: unknown; actual?: unknown; detail?: string } | { usage: string };

type MatcherTable = { [M in keyof Assertions]: (actual: unknown, ...args: Parameters<Assertions[M]>) => Verdict };

const compare = (test: (a: number | bigint, b: number | bigint) => boolean, words: string) =>
  (actual: unknown, n: number | bigint): Verdict =>
    typeof actual === 'number' || typeof actual === 'bigint'
      ? { pass: test(actual, n), expected: n, detail: `a value ${words} ${formatValue(n)}` }
      : { usage: `the received value must be a number or bigint, got ${formatValue(actual)}` };

const matchers: MatcherTable = {
  toBe: (actual, expected) => ({ pass: Object.is(actual, expected), expected }),
  toEqual: (actual, expected) => ({ pass: equals(actual, expected, false, []), expected }),
  toStrictEqual: (actual, expected) => ({ pass: equals(actual, expected, true, []), expected }),
  toMatchObject: (actual, expected) =>
    typeof actual === 'object' && actual !== null
      ? { pass: matchesObject(actual, expected, []), expected }
      : { usage: `the received value must be an object, got ${formatValue(actual)}` },
  toHaveLength: (actual, length) => {
    const received = typeof actual === 'string' || typeof actual === 'function' || (typeof actual === 'object' && actual !== null)
      ? (actual as { length?: unknown }).length
      : undefined;
    if (typeof received !== 'number') return { usage: `the received value must have a length, got ${formatValue(actual)}` };
    return { pass: received === length, expected: length, actual: received, detail: `length ${length}` };
  },
  toContain: (actual, item) => {
    if (typeof actual === 'string') {
      return typeof item === 'string'
        ? { pass: actual.includes(item), expected: item, detail: `a string containing ${formatValue(item)}` }
        : { usage: `a string can only contain a string, got ${formatValue(item)}` };
    }
    if (typeof actual === 'object' && actual !== null && Symbol.iterator in actual) {
      const found = [...(actual as Iterable<unknown>)].some((entry) => entry === item || Object.is(entry, item));
      return { pass: found, expected: item, detail: `a collection containing ${formatValue(item)}` };
    }
    return { usage: `the received value must be a string or an array, got ${formatValue(actual)}` };
  },
  toBeNull: (actual) => ({ pass: actual === null, expected: null }),
  toBeUndefined: (actual) => ({ pass: actual === undefined, expected: undefined }),
  toBeDefined: (actual) => ({ pass: actual !== undefined, expected: 'a defined value', detail: 'a defined value' }),
  toBeTruthy: (actual) => ({ pass: Boolean(actual), expected: 'a truthy value', detail: 'a truthy value' }),
  toBeFalsy: (actual) => ({ pass: !actual, expected: 'a falsy value', detail: 'a falsy value' }),
  toBeGreaterThan: compare((a, b) => a > b, 'greater than'),
  toBeGreaterThanOrEqual: compare((a, b) => a >= b, 'greater than or equal to'),
  toBeLessThan: compare((a, b) => a < b, 'less than'),
  toBeLessThanOrEqual: compare((a, b) => a <= b, 'less than or equal to'),
  toBeInstanceOf: (actual, type) => ({
    pass: actual instanceof (type as unknown as new () => unknown),
    expected: type,
    detail: `an instance of ${type.name || 'the class'}`,
  }),
  toThrow: (actual, expected) => {
    if (typeof actual !== 'function') return { usage: `the received value must be a function, got ${formatValue(actual)}` };
    let thrown: { value: unknown } | undefined;
    try {
      (actual as () => unknown)();
    } catch (value) {
      thrown = { value };
    }
    const detail = expected === undefined ? 'a thrown error' : `a thrown error matching ${formatValue(expected)}`;
    if (thrown === undefined) return { pass: false, expected: expected ?? 'a thrown error', actual: undefined, detail };
    const message = errorMessage(thrown.value);
    const pass =
      expected === undefined ||
      (typeof expected === 'string' && message.includes(expected)) ||
      (expected instanceof RegExp && expected.test(message)) ||
      (typeof expected === 'function' && thrown.value instanceof (expected as unknown as new () => unknown));
    return { pass, expected: expected ?? 'a thrown error', actual: thrown.value, detail };
  },
};

function errorMessage(value: unknown): string {
  if (typeof value === 'object' && value !== null && typeof (value as { message?: unknown }).message === 'string') {
    return (value as { message: string }).message;
  }
  return String(value);
}

function assertions(actual: unknown, negated: boolean): Assertions {
  const result: Partial<Record<keyof Assertions, (...args: never[]) => void>> = {};
  for (const name of Object.keys(matchers) as (keyof Assertions)[]) {
    result[name] = (...args: never[]): void => {
      const matcher = negated ? `not.${name}` : name;
      const verdict = (matchers[name] as (actual: unknown, ...rest: never[]) => Verdict)(actual, ...args);
      if ('usage' in verdict) {
        throw new AssertionFailure(matcher, args[0], actual, `expect(received).${matcher}(): ${verdict.usage}`);
      }
      if (verdict.pass === !negated) return;
      const received = 'actual' in verdict ? verdict.actual : actual;
      const wanted = verdict.detail ?? formatValue(verdict.expected);
      const message =
        `expect(received).${matcher}(${args.length > 0 ? 'expected' : ''})\n\n` +
        `Expected: ${negated ? 'not ' : ''}${wanted}\nReceived: ${formatValue(received)}`;
      throw new AssertionFailure(matcher, verdict.expected, received, message);
    };
  }
  return result as Assertions;
}

/**
 * Starts an assertion about `actual`. A failed matcher fails the test (DG1904).
 *
 * @example
 * expect(await query('todos.list', {})).toEqual([]);
 * expect(failure.code).not.toBe('unique_violation');
 */
export function expect(actual: unknown): Expectation {
  return Object.assign(assertions(actual, false), { not: assertions(actual, true) });
}

// --- Deep equality -----------------------------------------------------------------------------

const tagOf = (value: object): string => Object.prototype.toString.call(value);

function ownKeys(value: object, strict: boolean): PropertyKey[] {
  const keys: PropertyKey[] = [
    ...Object.keys(value),
    ...Object.getOwnPropertySymbols(value).filter((symbol) => Object.prototype.propertyIsEnumerable.call(value, symbol)),
  ];
  return strict ? keys : keys.filter((key) => (value as Record<PropertyKey, unknown>)[key] !== undefined);
}

function equals(a: unknown, b: unknown, strict: boolean, seen: [object, object][]): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (seen.some(([x, y]) => x === a && y === b)) return true;
  const tag = tagOf(a);
  if (tag !== tagOf(b)) return false;
  if (strict && Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  seen.push([a, b]);
  try {
    if (tag === '[object Date]') return Object.is((a as Date).getTime(), (b as Date).getTime());
    if (tag === '[object RegExp]') return String(a) === String(b);
    if (tag === '[object Number]' || tag === '[object String]' || tag === '[object Boolean]') {
      return Object.is((a as Number).valueOf(), (b as Number).valueOf());
    }
    if (ArrayBuffer.isView(a) || tag === '[object ArrayBuffer]') return sameBytes(a as ArrayBufferView | ArrayBuffer, b as ArrayBufferView | ArrayBuffer);
    if (tag === '[object Map]') return mapsEqual(a as Map<unknown, unknown>, b as Map<unknown, unknown>, strict, seen);
    if (tag === '[object Set]') return setsEqual(a as Set<unknown>, b as Set<unknown>, strict, seen);
    if (tag === '[object Error]') {
      const [x, y] = [a as Error, b as Error];
      if (x.name !== y.name || x.message !== y.message) return false;
    }
    if (Array.isArray(a)) {
      const other = b as unknown[];
      if (a.length !== other.length) return false;
      for (let index = 0; index < a.length; index += 1) {
        if (strict && index in a !== index in other) return false;
        if (!equals(a[index], other[index], strict, seen)) return false;
      }
      return true;
    }
    const keysA = ownKeys(a, strict);
    const keysB = ownKeys(b, strict);
    if (keysA.length !== keysB.length) return false;
    const record = b as Record<PropertyKey, unknown>;
    return keysA.every(
      (key) => Object.prototype.hasOwnProperty.call(b, key) && equals((a as Record<PropertyKey, unknown>)[key], record[key], strict, seen),
    );
  } finally {
    seen.pop();
  }
}

function sameBytes(a: ArrayBufferView | ArrayBuffer, b: ArrayBufferView | ArrayBuffer): boolean {
  const view = (value: ArrayBufferView | ArrayBuffer): Uint8Array =>
    ArrayBuffer.isView(value) ? new Uint8Array(value.buffer, value.byteOffset, value.byteLength) : new Uint8Array(value);
  const [x, y] = [view(a), view(b)];
  if (ArrayBuffer.isView(a) && ArrayBuffer.isView(b) && !(a instanceof DataView) && !(b instanceof DataView)) {
    // Typed arrays compare element-wise, so `Float64Array [NaN]` equals itself and `[0]` differs from `[-0]`.
    const [p, q] = [a as unknown as ArrayLike<number>, b as unknown as ArrayLike<number>];
    if (p.length !== q.length) return false;
    for (let index = 0; index < p.length; index += 1) if (!Object.is(p[index], q[index])) return false;
    return true;
  }
  if (x.length !== y.length) return false;
  return x.every((byte, index) => byte === y[index]);
}

function mapsEqual(a: Map<unknown, unknown>, b: Map<unknown, unknown>, strict: boolean, seen: [object, object][]): boolean {
  if (a.size !== b.size) return false;
  for (const [key, value] of a) {
    if (b.has(key)) {
      if (!equals(value, b.get(key), strict, seen)) return false;
      continue;
    }
    let found = false;
    for (const [otherKey, otherValue] of b) {
      if (equals(key, otherKey, strict, seen) && equals(value, otherValue, strict, seen)) found = true;
    }
    if (!found) return false;
  }
  return true;
}

function setsEqual(a: Set<unknown>, b: Set<unknown>, strict: boolean, seen: [object, object][]): boolean {
  if (a.size !== b.size) return false;
  for (const item of a) {
    if (b.has(item)) continue;
    if (![...b].some((other) => equals(item, other, strict, seen))) return false;
  }
  return true;
}

function isPlainRecord(value: unknown): value is Record<PropertyKey, unknown> {
  return typeof value === 'object' && value !== null && tagOf(value) === '[object Object]';
}

function matchesObject(actual: unknown, expected: unknown, seen: [object, object][]): boolean {
  if (Array.isArray(expected)) {
    return (
      Array.isArray(actual) &&
      actual.length === expected.length &&
      expected.every((item, index) => matchesObject(actual[index], item, seen))
    );
  }
  if (isPlainRecord(expected) && typeof actual === 'object' && actual !== null) {
    if (seen.some(([x, y]) => x === actual && y === expected)) return true;
    seen.push([actual, expected]);
    try {
      return ownKeys(expected, true).every(
        (key) => key in actual && matchesObject((actual as Record<PropertyKey, unknown>)[key], expected[key], seen),
      );
    } finally {
      seen.pop();
    }
  }
  return equals(actual, expected, false, []);
}

// --- Rendering values --------------------------------------------------------------------------

/**
 * A short readable rendering of a value for assertion messages.
 *
 * @example
 * formatValue({ due: new Date(0) }); // '{ due: Date(1970-01-01T00:00:00.000Z) }'
 */
export function formatValue(value: unknown): string {
  const text = render(value, 0, []);
  return text.length > 2000 ? `${text.slice(0, 2000)}…` : text;
}

function render(value: unknown, depth: number, parents: object[]): string {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Object.is(value, -0) ? '-0' : String(value);
    case 'bigint':
      return `${value}n`;
    case 'function':
      return `[Function ${value.name || 'anonymous'}]`;
    case 'symbol':
    case 'boolean':
    case 'undefined':
      return String(value);
  }
  if (value === null) return 'null';
  const object = value as object;
  if (parents.includes(object)) return '[Circular]';
  const tag = tagOf(object).slice(8, -1);
  if (tag === 'Date') {
    const time = (object as Date).getTime();
    return `Date(${Number.isNaN(time) ? 'Invalid' : new Date(time).toISOString()})`;
  }
  if (tag === 'RegExp') return String(object);
  if (tag === 'Error') return `${(object as Error).name}: ${(object as Error).message}`;
  if (depth > 4) return Array.isArray(object) ? '[…]' : '{…}';
  const next = (item: unknown): string => render(item, depth + 1, [...parents, object]);
  const list = (items: unknown[], show: (item: unknown) => string): string => {
    const shown = items.slice(0, 30).map(show);
    if (items.length > 30) shown.push(`… ${items.length - 30} more`);
    return shown.join(', ');
  };
  if (ArrayBuffer.isView(object) && !(object instanceof DataView)) {
    return `${tag} [${list(Array.from(object as unknown as ArrayLike<number>), String)}]`;
  }
  if (Array.isArray(object)) return `[${list(object, next)}]`;
  if (object instanceof Map) {
    return `Map { ${list([...object], (entry) => `${next((entry as [unknown, unknown])[0])} => ${next((entry as [unknown, unknown])[1])}`)} }`;
  }
  if (object instanceof Set) return `Set { ${list([...object], next)} }`;
  const keys = ownKeys(object, true);
  const body = list(keys, (key) => {
    const label = typeof key === 'symbol' ? `[${String(key)}]` : /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(String(key)) ? String(key) : JSON.stringify(key);
    return `${label}: ${next((object as Record<PropertyKey, unknown>)[key as PropertyKey])}`;
  });
  const proto = Object.getPrototypeOf(object) as { constructor?: { name?: string } } | null;
  const name = proto === null || Object.getPrototypeOf(proto) === null ? '' : `${proto.constructor?.name ?? 'Object'} `;
  return keys.length === 0 ? `${name}{}` : `${name}{ ${body} }`;
}

// --- Callers -----------------------------------------------------------------------------------

/** A raw endpoint call target: `'POST /api/files'` (method and path) or a path (GET unless `init.method` says otherwise). */
export type EndpointTarget = `${HttpMethod} /${string}` | `/${string}`;

/** Calls acting as one persona. */
export interface Caller {
  /** Runs a query; resolves with its result or rejects with a `RuntimeError`. */
  query<N extends QueryNames>(name: N, input: QueryInput<N>): Promise<QueryResult<N>>;
  /** Runs a mutation; resolves with its result or rejects with a `RuntimeError`. */
  mutation<N extends MutationNames>(name: N, input: MutationInput<N>): Promise<MutationResult<N>>;
  /** Calls a raw endpoint and resolves to its `Response`, whatever the status. */
  fetch(target: EndpointTarget, init?: RequestInit): Promise<Response>;
  fetch(request: Request): Promise<Response>;
}

const PERSONAS: readonly Persona[] = ['alice', 'bob', 'guest'];

async function run(persona: Persona, kind: 'query' | 'mutation', name: string, input: unknown): Promise<unknown> {
  try {
    return await host().call(persona, kind, name, input);
  } catch (reason) {
    throw hasRuntimeErrorShape(reason) && !isRuntimeError(reason) ? new RuntimeError(reason) : reason;
  }
}

function toRequest(target: EndpointTarget | Request, init: RequestInit | undefined): Request {
  if (typeof target !== 'string') return init === undefined ? target : new Request(target, init);
  const match = /^([A-Z]+) (\/.*)$/.exec(target);
  const method = match?.[1] ?? init?.method ?? 'GET';
  const path = match?.[2] ?? target;
  if (!path.startsWith('/')) throw new TypeError(`fetch target must be '<METHOD> /path' or '/path', got ${JSON.stringify(target)}.`);
  if (match !== null && init?.method !== undefined && init.method.toUpperCase() !== method) {
    throw new TypeError(`fetch('${target}') was also given method ${init.method}; name the method once.`);
  }
  return new Request(new URL(path, 'http://app.test'), { ...init, method });
}

/**
 * A caller acting as a persona: `alice` (the default), `bob` or `guest`.
 *
 * @example
 * await as('bob').mutation('todos.add', { title: 'x' });
 * expect(await as('alice').query('todos.list', {})).toEqual([]);
 */
export function as(persona: Persona): Caller {
  if (!PERSONAS.includes(persona)) throw new TypeError(`Unknown persona ${JSON.stringify(persona)}: use alice, bob or guest.`);
  return {
    query: (name, input) => run(persona, 'query', name, input) as Promise<never>,
    mutation: (name, input) => run(persona, 'mutation', name, input) as Promise<never>,
    fetch: (target: EndpointTarget | Request, init?: RequestInit) => host().fetch(persona, toRequest(target, init)),
  };
}

/**
 * Runs a query as `alice`.
 *
 * @example
 * expect(await query('todos.list', {})).toHaveLength(0);
 */
export function query<N extends QueryNames>(name: N, input: QueryInput<N>): Promise<QueryResult<N>> {
  return as('alice').query(name, input);
}

/**
 * Runs a mutation as `alice`.
 *
 * @example
 * const id = await mutation('todos.add', { title: 'milk' });
 */
export function mutation<N extends MutationNames>(name: N, input: MutationInput<N>): Promise<MutationResult<N>> {
  return as('alice').mutation(name, input);
}

/**
 * Calls a raw endpoint as `alice`.
 *
 * @example
 * const response = await fetch('POST /api/files', { body: 'hello' });
 * expect(response.status).toBe(201);
 */
export function fetch(target: EndpointTarget, init?: RequestInit): Promise<Response>;
export function fetch(request: Request): Promise<Response>;
export function fetch(target: EndpointTarget | Request, init?: RequestInit): Promise<Response> {
  return host().fetch('alice', toRequest(target, init));
}

/**
 * Awaits a call that must fail and resolves to its runtime error. If the call succeeds, the test
 * fails (matcher `expectFailure`); a rejection that is not a runtime error is rethrown.
 *
 * @example
 * const failure = await expectFailure(as('guest').mutation('todos.add', { title: 'x' }));
 * expect(failure.code).toBe('operation_failed');
 */
export async function expectFailure(promise: Promise<unknown>): Promise<RuntimeErrorShape> {
  let result: unknown;
  try {
    result = await promise;
  } catch (reason) {
    if (hasRuntimeErrorShape(reason)) return runtimeErrorShape(reason);
    throw reason;
  }
  throw new AssertionFailure(
    'expectFailure',
    'a runtime error',
    result,
    `expectFailure(call): expected the call to fail with a runtime error, but it succeeded with ${formatValue(result)}`,
  );
}

/**
 * Sets `ctx.env` values for the rest of the current test.
 *
 * @example
 * setEnv({ GREETING: 'hello' });
 */
export function setEnv(values: Record<string, string>): void {
  for (const [name, value] of Object.entries(values)) {
    if (typeof value !== 'string') throw new TypeError(`setEnv: the value of ${name} must be a string.`);
  }
  host().setEnv({ ...values });
}
