// The wire format shared by the client, the test module and the runtime: JSON with `$date`, `$bytes`
// and `$escape` tags, plus the runtime error value a failed call rejects with.

import type { JsonValue, RuntimeErrorInfo, RuntimeErrorShape, TableSet } from './types.ts';

/** The `protocol` of a runtime error body. */
export const RUNTIME_PROTOCOL = 'platform.runtime.v0';

const ENCODABLE = 'only null, booleans, numbers, strings, Dates, Uint8Arrays, arrays and plain objects travel on the wire';

/**
 * Encodes a value into its JSON form: a Date becomes `{"$date": ISO}`, a Uint8Array `{"$bytes": base64}`,
 * an object whose only key starts with `$` is wrapped as `{"$escape": {...}}`, and undefined object
 * properties are dropped. Throws a TypeError naming the path of anything else (functions, symbols,
 * bigints, Map, Set, class instances, cycles, array holes). Numbers pass as they are; JSON turns a
 * non-finite number into null, and the runtime's input validation refuses NaN and Infinity.
 *
 * @example
 * encodeValue({ due: new Date(0) }); // { due: { $date: '1970-01-01T00:00:00.000Z' } }
 */
export function encodeValue(value: unknown): JsonValue | undefined {
  if (value === undefined) return undefined;
  return encodeAt(value, '$', []);
}

/**
 * Decodes the JSON form produced by `encodeValue`. Throws a TypeError naming the path of a malformed tag.
 *
 * @example
 * decodeValue({ $bytes: 'AQI=' }); // Uint8Array [1, 2]
 */
export function decodeValue(json: unknown): unknown {
  return decodeAt(json, '$');
}

/**
 * `JSON.stringify` of `encodeValue(value)`. A bare `undefined` has no JSON form and is refused;
 * send it as an absent property (`{ result: undefined }` encodes as `{}`).
 *
 * @example
 * encodeJson({ input: { at: new Date(0) } }); // '{"input":{"at":{"$date":"1970-01-01T00:00:00.000Z"}}}'
 */
export function encodeJson(value: unknown): string {
  const encoded = encodeValue(value);
  if (encoded === undefined) throw new TypeError('Cannot encode undefined at $: it has no JSON form; leave the property out instead.');
  return JSON.stringify(encoded);
}

/**
 * `decodeValue(JSON.parse(text))`.
 *
 * @example
 * decodeJson('{"$date":"1970-01-01T00:00:00.000Z"}'); // Date(0)
 */
export function decodeJson(text: string): unknown {
  return decodeAt(JSON.parse(text) as unknown, '$');
}

function encodeAt(value: unknown, path: string, parents: object[]): JsonValue {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return value;
    case 'undefined':
      throw new TypeError(`Cannot encode undefined at ${path}: ${ENCODABLE}; an array cannot hold undefined.`);
    case 'function':
    case 'symbol':
    case 'bigint':
      throw new TypeError(`Cannot encode a ${typeof value} at ${path}: ${ENCODABLE}.`);
  }
  if (value === null) return null;
  const object = value as object;
  const tag = Object.prototype.toString.call(object);
  if (tag === '[object Date]') {
    const time = (object as Date).getTime();
    if (Number.isNaN(time)) throw new TypeError(`Cannot encode an invalid Date at ${path}.`);
    return { $date: new Date(time).toISOString() };
  }
  if (tag === '[object Uint8Array]') return { $bytes: bytesToBase64(object as Uint8Array) };
  if (parents.includes(object)) throw new TypeError(`Cannot encode a circular reference at ${path}.`);
  parents.push(object);
  try {
    if (Array.isArray(object)) {
      const items: JsonValue[] = [];
      for (let index = 0; index < object.length; index += 1) {
        const itemPath = `${path}[${index}]`;
        if (!(index in object)) throw new TypeError(`Cannot encode an array hole at ${itemPath}: ${ENCODABLE}.`);
        items.push(encodeAt(object[index] as unknown, itemPath, parents));
      }
      return items;
    }
    if (!isPlainObject(object)) {
      throw new TypeError(`Cannot encode ${describeInstance(object)} at ${path}: ${ENCODABLE}; copy the plain fields into an object.`);
    }
    const out: { [key: string]: JsonValue } = {};
    const keys: string[] = [];
    for (const key of Object.keys(object)) {
      const item = (object as Record<string, unknown>)[key];
      if (item === undefined) continue;
      define(out, key, encodeAt(item, childPath(path, key), parents));
      keys.push(key);
    }
    return keys.length === 1 && keys[0]!.startsWith('$') ? { $escape: out } : out;
  } finally {
    parents.pop();
  }
}

function decodeAt(json: unknown, path: string): unknown {
  if (json === null || typeof json !== 'object') return json;
  if (Array.isArray(json)) return json.map((item, index) => decodeAt(item as unknown, `${path}[${index}]`));
  const record = json as Record<string, unknown>;
  const keys = Object.keys(record);
  if (keys.length === 1) {
    const key = keys[0]!;
    const tagged = record[key];
    if (key === '$date') {
      const date = typeof tagged === 'string' ? new Date(tagged) : undefined;
      if (date === undefined || Number.isNaN(date.getTime())) {
        throw new TypeError(`Cannot decode $date at ${path}: expected an ISO 8601 string.`);
      }
      return date;
    }
    if (key === '$bytes') {
      if (typeof tagged !== 'string') throw new TypeError(`Cannot decode $bytes at ${path}: expected a base64 string.`);
      try {
        return base64ToBytes(tagged);
      } catch {
        throw new TypeError(`Cannot decode $bytes at ${path}: not valid base64.`);
      }
    }
    if (key === '$escape') {
      if (tagged === null || typeof tagged !== 'object' || Array.isArray(tagged)) {
        throw new TypeError(`Cannot decode $escape at ${path}: expected an object.`);
      }
      return decodeFields(tagged as Record<string, unknown>, path);
    }
  }
  return decodeFields(record, path);
}

function decodeFields(record: Record<string, unknown>, path: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(record)) define(out, key, decodeAt(record[key], childPath(path, key)));
  return out;
}

// Assigning `__proto__` would set the prototype instead of creating a property.
function define(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value) as object | null;
  // Another realm's Object.prototype also has a null prototype.
  return proto === null || Object.getPrototypeOf(proto) === null;
}

function describeInstance(value: object): string {
  const tag = Object.prototype.toString.call(value).slice(8, -1);
  if (tag !== 'Object') return `a ${tag}`;
  const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === 'string' && name !== '' ? `an instance of ${name}` : 'a class instance';
}

function childPath(path: string, key: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

const CHUNK = 0x8000;

/** Base64 of bytes, without Node's Buffer (btoa exists in browsers, workers and Node 20). */
export function bytesToBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let start = 0; start < bytes.length; start += CHUNK) {
    binary += String.fromCharCode(...bytes.subarray(start, start + CHUNK));
  }
  return btoa(binary);
}

/** Bytes of a base64 string; throws on malformed input. */
export function base64ToBytes(base64: string): Uint8Array {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index += 1) bytes[index] = binary.charCodeAt(index);
  return bytes;
}

const RUNTIME_ERROR_BRAND = Symbol.for('platform.RuntimeError');

/**
 * What a failed query, mutation or endpoint call rejects with. Recognise it with `isRuntimeError`,
 * which checks a brand rather than `instanceof`, so it works across bundles, workers and frames.
 *
 * @example
 * try { await mutation('todos.add', { title: '' }); }
 * catch (error) { if (isRuntimeError(error)) console.log(error.code, error.errorId); }
 */
export class RuntimeError extends Error implements RuntimeErrorShape {
  readonly status: number;
  readonly code: string;
  readonly errorId: string;

  constructor(shape: RuntimeErrorShape) {
    super(shape.message);
    this.name = 'RuntimeError';
    this.status = shape.status;
    this.code = shape.code;
    this.errorId = shape.errorId;
    Object.defineProperty(this, RUNTIME_ERROR_BRAND, { value: true });
  }

  toJSON(): RuntimeErrorShape {
    return { status: this.status, code: this.code, message: this.message, errorId: this.errorId };
  }
}

/**
 * True for a `RuntimeError` from any copy of this module (checked by brand).
 *
 * @example
 * if (isRuntimeError(error) && error.code === 'operation_failed') showMessage(error.message);
 */
export function isRuntimeError(value: unknown): value is RuntimeError {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[RUNTIME_ERROR_BRAND] === true;
}

/** True for anything carrying `status`, `code`, `message` and `errorId` (a runtime error in any form). */
export function hasRuntimeErrorShape(value: unknown): value is RuntimeErrorShape {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Record<string, unknown>;
  return (
    typeof candidate.status === 'number' &&
    typeof candidate.code === 'string' &&
    typeof candidate.message === 'string' &&
    typeof candidate.errorId === 'string'
  );
}

/** The plain `{ status, code, message, errorId }` of a runtime error in any form. */
export function runtimeErrorShape(error: RuntimeErrorShape): RuntimeErrorShape {
  return { status: error.status, code: error.code, message: error.message, errorId: error.errorId };
}

/**
 * The body of a runtime error response:
 * `{"protocol": "platform.runtime.v0", "error": {"code", "message", "errorId"}}`.
 */
export type RuntimeErrorBody = {
  protocol: typeof RUNTIME_PROTOCOL;
  error: RuntimeErrorInfo;
};

/** The error body for a failure (the status travels as the HTTP status). */
export function runtimeErrorBody(error: RuntimeErrorShape): RuntimeErrorBody {
  return { protocol: RUNTIME_PROTOCOL, error: { code: error.code, message: error.message, errorId: error.errorId } };
}

/** The `{ code, message, errorId }` of a parsed runtime error body, or undefined when the body is not one. */
export function errorOfBody(body: unknown): CallAnswer['error'] {
  if (typeof body !== 'object' || body === null) return undefined;
  const { protocol, error } = body as { protocol?: unknown; error?: unknown };
  if (protocol !== RUNTIME_PROTOCOL || typeof error !== 'object' || error === null) return undefined;
  const { code, message, errorId } = error as Record<string, unknown>;
  if (typeof code !== 'string' || typeof message !== 'string') return undefined;
  return { code, message, errorId: typeof errorId === 'string' ? errorId : '' };
}

/** The `RuntimeError` for an HTTP status and a parsed body, or undefined when the body is not a runtime error body. */
export function runtimeErrorFromBody(status: number, body: unknown): RuntimeError | undefined {
  const error = errorOfBody(body);
  return error && new RuntimeError({ status, ...error });
}

// --- Live updates ------------------------------------------------------------------------------
// Which tables a call read or wrote travels in a response header; the live-update stream is
// newline-delimited JSON at a reserved path. The runtime and the client module share these.

/** The live-update stream: `GET` it for newline-delimited JSON events. */
export const LIVE_PATH = '/_platform/v0/live';

/**
 * The query or mutation a wire route's path names (`/_platform/v0/query/todos.list`), its name as the
 * path writes it (percent-encoded: each caller decodes it); undefined for any other path.
 */
export function wireRoute(path: string): { kind: 'query' | 'mutation'; encodedName: string } | undefined {
  const wire = /^\/_platform\/v0\/(query|mutation)\/([^/]+)$/.exec(path);
  return wire ? { kind: wire[1] as 'query' | 'mutation', encodedName: wire[2]! } : undefined;
}
/** The `protocol` of every live-update event. */
export const LIVE_PROTOCOL = 'platform.live.v0';
/** Sent by a client on its queries and mutations: the id of its live connection. */
export const LIVE_CONNECTION_HEADER = 'x-platform-live';
/** Answered with a live connection and with its refusal: the app's `liveConnections` budget. */
export const LIVE_BUDGET_HEADER = 'x-platform-live-connections';

/**
 * Whether a live connection's answer is the refusal of an app whose manifest allows none (a budget of
 * 0): a refusal for good, which asking again cannot change, rather than a failure.
 */
export function liveNotAllowed(response: { status: number; headers: Headers }): boolean {
  return response.status === 503 && response.headers.get(LIVE_BUDGET_HEADER) === '0';
}
/** Answered by a query: the tables (and the store) it read. */
export const READ_HEADER = 'x-platform-read';
/** Answered by a mutation or endpoint: the tables (and the store) it wrote. */
export const WROTE_HEADER = 'x-platform-wrote';

export type { TableSet };

/**
 * A query's or mutation's answer as data: what its wire route's response says, the status, the result
 * or the error (its body) and what the call read (a query, answered or failed) or wrote (a mutation
 * that succeeded) (its headers). A host that runs calls without HTTP (a playground preview's port to
 * the runtime worker) answers this.
 */
export type CallAnswer = {
  status: number;
  result?: unknown;
  error?: RuntimeErrorInfo;
  read?: TableSet;
  wrote?: TableSet;
};

/** A header item that cannot be a table name (table names match `^[A-Za-z][A-Za-z0-9_]*$`). */
const STORE_ITEM = ':storage';
const NONE_ITEM = ':none';

/**
 * A TableSet as a header value: table names and `:storage`, comma-separated; `:none` when empty.
 *
 * @example
 * tableSetHeader({ tables: ['todos'], storage: true }); // 'todos,:storage'
 */
export function tableSetHeader(set: TableSet): string {
  const items = [...set.tables, ...(set.storage ? [STORE_ITEM] : [])];
  return items.length ? items.join(',') : NONE_ITEM;
}

/** The TableSet of a header value; undefined when the header is absent (nothing is known). */
export function tableSetFromHeader(value: string | null | undefined): TableSet | undefined {
  if (value === null || value === undefined) return undefined;
  const items = value.split(',').map((item) => item.trim()).filter((item) => item !== '' && item !== NONE_ITEM);
  return { tables: [...new Set(items.filter((item) => item !== STORE_ITEM))], storage: items.includes(STORE_ITEM) };
}

/**
 * Whether a write affects what a query read: they share a table, or both touched the object store.
 * The one rule of live updates, used by the runtime (which connections get an event) and by the
 * client (which mounted queries re-run).
 *
 * @example
 * affects({ tables: ['todos'], storage: false }, { tables: ['todos', 'tags'], storage: false }); // true
 */
export function affects(read: TableSet, wrote: TableSet): boolean {
  if (read.storage && wrote.storage) return true;
  return read.tables.some((table) => wrote.tables.includes(table));
}

/** One line of the live-update stream. */
export type LiveEvent =
  | { protocol: typeof LIVE_PROTOCOL; kind: 'open'; connection: string; liveConnections: number }
  /** Another client's mutation wrote `tables` (and the store): these held queries read them. */
  | ({ protocol: typeof LIVE_PROTOCOL; kind: 'invalidate'; queries: string[] } & TableSet)
  | { protocol: typeof LIVE_PROTOCOL; kind: 'ping' }
  /** The runtime ends the stream (its lifetime or byte budget passed, or the client fell behind); reconnect. */
  | { protocol: typeof LIVE_PROTOCOL; kind: 'close'; reason: 'lifetime' | 'streamedBytes' | 'behind' | 'shutdown' };

/** A parsed line of the live-update stream, or undefined when it is not one. */
export function parseLiveEvent(line: string): LiveEvent | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const event = value as Record<string, unknown>;
  if (event.protocol !== LIVE_PROTOCOL) return undefined;
  switch (event.kind) {
    case 'open':
      return typeof event.connection === 'string' && typeof event.liveConnections === 'number' ? (event as LiveEvent) : undefined;
    case 'invalidate':
      return Array.isArray(event.queries) && Array.isArray(event.tables) && typeof event.storage === 'boolean' ? (event as LiveEvent) : undefined;
    case 'ping':
      return event as LiveEvent;
    case 'close':
      return typeof event.reason === 'string' ? (event as LiveEvent) : undefined;
    default:
      return undefined;
  }
}

// --- Platform routes on the app's own origin -------------------------------------------------------
// Signing in and workspaces are served by the platform, not the app, under the reserved `/__platform/`.

/** Who the page's visitor is: `GET` answers `{ kind, appUserId, workspaces }`. */
export const AUTH_ME_PATH = '/__platform/auth/me';
/** Where a page sends the browser to sign in (`?return=/same-origin/path`). */
export const SIGN_IN_PATH = '/__platform/auth/sign-in';
/** `POST` ends the page's sign-in. */
export const SIGN_OUT_PATH = '/__platform/auth/sign-out';
/** `POST {name}` creates a workspace; `/<id>/invites` and `/<id>/leave` act on one. */
export const WORKSPACES_PATH = '/__platform/workspaces';
/** `GET /__platform/join/<token>` shows an invitation, `POST` accepts it. */
export const JOIN_PATH = '/__platform/join/';

