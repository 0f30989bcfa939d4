/**
 * The storage conformance suite: `ctx.storage` over a SqlObjectStore, case by case, with the exact
 * messages of runtime.md. Framework-neutral (no test runner, no Node or DOM API) so the same cases run
 * under Vitest in Node and in a browser: each case takes a SqlDriverFactory and rejects on failure.
 */
import { testClock } from '../clock';
import { CursorSigner } from '../cursor';
import { DEFAULT_LIMITS, Meter } from '../limits';
import type { Limits } from '../limits';
import type { SqlDriver, SqlDriverFactory } from '../sql-driver';
import { CHUNK_BYTES, SqlObjectStore } from './object-store';
import type { ObjectStore, StoredRecord } from './object-store';
import { createStorage } from './storage';
import type { StorageReader, StorageWriter } from './storage';

export interface ConformanceCase {
  name: string;
  run(make: SqlDriverFactory): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Assertions

class ConformanceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConformanceError';
  }
}

function show(value: unknown, depth = 0): string {
  if (value instanceof Date) return `Date(${Number.isNaN(value.getTime()) ? 'invalid' : value.toISOString()})`;
  if (value instanceof Uint8Array) {
    const shown = Array.from(value.subarray(0, 32)).join(',');
    return `Uint8Array[${shown}${value.length > 32 ? `,… (${value.length} bytes)` : ''}]`;
  }
  if (typeof value === 'string') return JSON.stringify(value.length > 200 ? `${value.slice(0, 200)}…` : value);
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'function') return `[function ${value.name}]`;
  if (typeof value === 'symbol') return value.toString();
  if (value === null || typeof value !== 'object') return String(value);
  if (depth > 4) return '…';
  if (Array.isArray(value)) {
    const items = value.slice(0, 20).map((item) => show(item, depth + 1));
    return `[${items.join(', ')}${value.length > 20 ? `, … (${value.length} items)` : ''}]`;
  }
  const entries = Object.keys(value).map((key) => `${key}: ${show((value as Record<string, unknown>)[key], depth + 1)}`);
  return `{ ${entries.join(', ')} }`;
}

/** Structural equality: Dates by time, Uint8Arrays by bytes, arrays by items, objects by own keys. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (a instanceof Date || b instanceof Date) {
    return a instanceof Date && b instanceof Date && Object.is(a.getTime(), b.getTime());
  }
  if (a instanceof Uint8Array || b instanceof Uint8Array) {
    if (!(a instanceof Uint8Array && b instanceof Uint8Array) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
    return true;
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!(Array.isArray(a) && Array.isArray(b)) || a.length !== b.length) return false;
    return a.every((item, i) => deepEqual(item, b[i]));
  }
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  const aKeys = Object.keys(a).sort();
  const bKeys = Object.keys(b).sort();
  if (!deepEqual(aKeys, bKeys)) return false;
  return aKeys.every((key) => deepEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
}

export function assertEqual(actual: unknown, expected: unknown, label: string): void {
  if (!deepEqual(actual, expected)) {
    throw new ConformanceError(`${label}: expected ${show(expected)}, got ${show(actual)}`);
  }
}

export function assert(condition: boolean, label: string): void {
  if (!condition) throw new ConformanceError(label);
}

/** Awaits `promise` and requires it to reject with an Error whose message is `expected` (exactly) or matches it. */
export async function assertRejects(promise: Promise<unknown>, expected: string | RegExp, label = 'call'): Promise<void> {
  let settled: unknown;
  try {
    settled = await promise;
  } catch (error) {
    if (!(error instanceof Error)) throw new ConformanceError(`${label}: rejected with a non-Error ${show(error)}`);
    const matches = typeof expected === 'string' ? error.message === expected : expected.test(error.message);
    if (!matches) {
      throw new ConformanceError(`${label}: expected rejection ${show(typeof expected === 'string' ? expected : expected.source)}, got ${show(error.message)}`);
    }
    return;
  }
  throw new ConformanceError(`${label}: expected a rejection, but it resolved to ${show(settled)}`);
}

// ---------------------------------------------------------------------------------------------
// Fixtures

const KEY = 'A storage key must be slash-separated printable segments without dot segments: ';
const LIMIT = 'limit must be an integer from 1 to 1000.';
const CURSOR = 'Invalid cursor for storage.list: pass back a cursor exactly as list() returned it.';
const T0 = Date.UTC(2026, 0, 1);
const SECRET = new Uint8Array(32).fill(7);
const encoder = new TextEncoder();

/** Key refusal of a short key (under 64 characters, so never truncated). */
function refusal(key: string): string {
  return KEY + JSON.stringify(key);
}

function bytesOf(...values: number[]): Uint8Array {
  return new Uint8Array(values);
}

function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}

/** Byte order (SQLite BINARY) of ASCII keys, which is UTF-16 order for them. */
function byteOrder(keys: readonly string[]): string[] {
  return [...keys].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Counts what reaches the store, to show what is judged before any transfer. */
class CountingStore implements ObjectStore {
  readonly inner: ObjectStore;
  gets = 0;
  puts = 0;
  deletes = 0;

  constructor(inner: ObjectStore) {
    this.inner = inner;
  }

  head(key: string): Promise<StoredRecord | null> {
    return this.inner.head(key);
  }

  get(key: string): Promise<(StoredRecord & { bytes: Uint8Array }) | null> {
    this.gets++;
    return this.inner.get(key);
  }

  put(record: StoredRecord & { bytes: Uint8Array }): Promise<void> {
    this.puts++;
    return this.inner.put(record);
  }

  delete(key: string): Promise<void> {
    this.deletes++;
    return this.inner.delete(key);
  }

  list(options: { prefix: string; after?: string; limit: number }): Promise<StoredRecord[]> {
    return this.inner.list(options);
  }
}

interface Call {
  meter: Meter;
  reader: StorageReader;
  writer: StorageWriter;
}

interface Env extends Call {
  driver: SqlDriver;
  sqlStore: SqlObjectStore;
  store: CountingStore;
  limits: Limits;
  signer: CursorSigner;
  clock: ReturnType<typeof testClock>;
  /** How many times onWrite was called, over every call made in this environment. */
  writes: { count: number };
  /** A fresh handler call: a new Meter (budgets back to zero) and new storage objects on the same store. */
  call(): Call;
}

function environment(make: SqlDriverFactory, overrides: Partial<Limits> = {}): Env {
  const driver = make();
  const sqlStore = new SqlObjectStore(driver);
  const store = new CountingStore(sqlStore);
  const limits: Limits = { ...DEFAULT_LIMITS, ...overrides };
  const signer = new CursorSigner(SECRET);
  const clock = testClock(T0);
  const writes = { count: 0 };
  const call = (): Call => {
    const meter = new Meter(limits);
    const onWrite = (): void => {
      writes.count++;
    };
    return {
      meter,
      reader: createStorage({ store, meter, signer, clock, writable: false, onWrite }),
      writer: createStorage({ store, meter, signer, clock, writable: true, onWrite }),
    };
  };
  return { driver, sqlStore, store, limits, signer, clock, writes, call, ...call() };
}

/** Runs `body` in a fresh environment and closes its database afterwards. */
function withEnv(overrides: Partial<Limits>, body: (env: Env) => Promise<void>): (make: SqlDriverFactory) => Promise<void> {
  return async (make) => {
    const env = environment(make, overrides);
    try {
      await body(env);
    } finally {
      env.driver.close();
    }
  };
}

async function assertKeyAccepted(env: Env, key: string): Promise<void> {
  const receipt = await env.writer.put(key, 'x');
  assertEqual(receipt.key, key, `put(${show(key)}) receipt key`);
  const head = await env.writer.head(key);
  assertEqual(head?.key, key, `head(${show(key)}) key`);
  const object = await env.writer.get(key);
  assertEqual(object?.bytes, utf8('x'), `get(${show(key)}) bytes`);
  await env.writer.delete(key);
}

/** Every method taking a key refuses it with `message`, and nothing is written. */
async function assertKeyRefused(env: Env, key: unknown, message: string): Promise<void> {
  const k = key as string;
  const writesBefore = env.writes.count;
  const putsBefore = env.store.puts;
  await assertRejects(env.writer.put(k, 'x'), message, `put(${show(key)})`);
  await assertRejects(env.writer.get(k), message, `get(${show(key)})`);
  await assertRejects(env.writer.head(k), message, `head(${show(key)})`);
  await assertRejects(env.writer.delete(k), message, `delete(${show(key)})`);
  await assertRejects(env.reader.get(k), message, `reader.get(${show(key)})`);
  await assertRejects(env.reader.head(k), message, `reader.head(${show(key)})`);
  assertEqual(env.writes.count, writesBefore, `onWrite calls after refusing ${show(key)}`);
  assertEqual(env.store.puts, putsBefore, `store writes after refusing ${show(key)}`);
}

async function putMany(writer: StorageWriter, keys: readonly string[]): Promise<void> {
  for (const key of keys) await writer.put(key, key);
}

async function listKeys(reader: StorageReader, prefix?: string): Promise<string[]> {
  const page = await reader.list(prefix === undefined ? { limit: 1000 } : { prefix, limit: 1000 });
  assertEqual(page.cursor, null, `list(${show(prefix)}) cursor`);
  return page.objects.map((object) => object.key);
}

async function listAll(reader: StorageReader, prefix: string, limit: number): Promise<{ keys: string[]; pages: number }> {
  const keys: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  for (;;) {
    const page = await reader.list(cursor === undefined ? { prefix, limit } : { prefix, limit, cursor });
    pages++;
    assert(page.objects.length <= limit, `a page holds at most ${limit} objects`);
    keys.push(...page.objects.map((object) => object.key));
    if (page.cursor === null) return { keys, pages };
    assert(typeof page.cursor === 'string' && page.cursor.length > 0, 'a cursor is a non-empty string or null');
    cursor = page.cursor;
    if (pages > 10_000) throw new ConformanceError('list never ended');
  }
}

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const DIGITS = '0123456789';
const PUNCTUATION = "!._~()'*- ";
const ALLOWED = LETTERS + DIGITS + PUNCTUATION;

function forbiddenAscii(): string[] {
  const out: string[] = [];
  for (let code = 0; code < 128; code++) {
    const c = String.fromCharCode(code);
    if (c !== '/' && !ALLOWED.includes(c)) out.push(c);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Cases

export const storageConformance: ConformanceCase[] = [
  // --- Key rules ---------------------------------------------------------------------------------
  {
    name: 'keys: every allowed character (ASCII letters, digits, ! . _ ~ ( ) \' * - and space) is accepted',
    run: withEnv({}, async (env) => {
      for (const c of ALLOWED) {
        await assertKeyAccepted(env, `x${c}y`);
        if (c !== '.') await assertKeyAccepted(env, c);
      }
      await assertKeyAccepted(env, ALLOWED);
      await assertKeyAccepted(env, `${LETTERS}/${DIGITS}/${PUNCTUATION}`);
      await assertKeyAccepted(env, ' ');
      await assertKeyAccepted(env, ' leading and trailing spaces ');
      await assertKeyAccepted(env, "it's (really) *fine*_~-!");
    }),
  },
  {
    name: 'keys: every other ASCII character (including : and control characters) is refused with the exact message',
    run: withEnv({}, async (env) => {
      const forbidden = forbiddenAscii();
      assert(forbidden.includes(':') && forbidden.includes('\\') && forbidden.includes('%'), 'the forbidden set');
      for (const c of forbidden) {
        await assertRejects(env.writer.put(`a${c}b`, 'x'), refusal(`a${c}b`), `put with ${show(c)}`);
        await assertRejects(env.writer.put(c, 'x'), refusal(c), `put of ${show(c)} alone`);
        await assertRejects(env.reader.head(`ok/a${c}`), refusal(`ok/a${c}`), `head with ${show(c)}`);
      }
      await assertKeyRefused(env, 'a:b', `${KEY}"a:b"`);
      await assertKeyRefused(env, 'a\\b', `${KEY}"a\\\\b"`);
      await assertKeyRefused(env, 'a\u0000b', `${KEY}"a\\u0000b"`);
      await assertKeyRefused(env, 'a\nb', `${KEY}"a\\nb"`);
      await assertKeyRefused(env, 'a\tb', `${KEY}"a\\tb"`);
      await assertKeyRefused(env, 'a"b', `${KEY}"a\\"b"`);
      assertEqual(await listKeys(env.reader), [], 'nothing was stored');
    }),
  },
  {
    name: 'keys: non-ASCII characters are refused',
    run: withEnv({}, async (env) => {
      for (const c of ['é', 'ü', 'ß', '€', '😀', '\u00a0', '\u2028', '\ufeff', 'Ａ', 'İ', '\u0301', '\ud800']) {
        await assertKeyRefused(env, `file${c}.txt`, refusal(`file${c}.txt`));
      }
    }),
  },
  {
    name: 'keys: slashes only between non-empty segments',
    run: withEnv({}, async (env) => {
      for (const key of ['a', 'a/b', 'a/b/c/d', 'users/u1/avatar.png']) await assertKeyAccepted(env, key);
      for (const key of ['', '/', '//', '/a', 'a/', '/a/', 'a//b', 'a/b/', 'a///b', '/a/b']) {
        await assertKeyRefused(env, key, refusal(key));
      }
    }),
  },
  {
    name: 'keys: no . or .. segment, while segments merely containing dots are fine',
    run: withEnv({}, async (env) => {
      for (const key of ['.', '..', './a', '../a', 'a/.', 'a/..', 'a/./b', 'a/../b', 'a/b/..', './.', '../..']) {
        await assertKeyRefused(env, key, refusal(key));
      }
      for (const key of ['...', '.a', 'a.', '..a', 'a..', 'a/.b/c', '.well-known/x', 'a/..b', 'a/b../c', 'v1.2.3/x']) {
        await assertKeyAccepted(env, key);
      }
    }),
  },
  {
    name: 'keys: at most 512 bytes as UTF-8',
    run: withEnv({}, async (env) => {
      await assertKeyAccepted(env, 'a'.repeat(512));
      await assertKeyAccepted(env, `${'a'.repeat(255)}/${'b'.repeat(256)}`);
      const long = 'a'.repeat(513);
      await assertKeyRefused(env, long, `${KEY}"${'a'.repeat(64)}…"`);
      const longSegmented = `${'a'.repeat(256)}/${'b'.repeat(256)}`;
      await assertKeyRefused(env, longSegmented, `${KEY}"${'a'.repeat(64)}…"`);
      // 256 characters but 512 bytes, 300 characters and 600 bytes: counted in bytes (and non-ASCII anyway).
      assertEqual(utf8('é'.repeat(256)).length, 512, 'é is two bytes in UTF-8');
      await assertKeyRefused(env, 'é'.repeat(256), `${KEY}"${'é'.repeat(64)}…"`);
      await assertKeyRefused(env, `${'a'.repeat(300)}é`, `${KEY}"${'a'.repeat(64)}…"`);
    }),
  },
  {
    name: 'keys: the refusal quotes the key (JSON) and cuts it to 64 characters with … inside the quotes',
    run: withEnv({}, async (env) => {
      await assertKeyRefused(env, ':'.repeat(64), `${KEY}"${':'.repeat(64)}"`);
      await assertKeyRefused(env, ':'.repeat(65), `${KEY}"${':'.repeat(64)}…"`);
      await assertKeyRefused(env, `${'x'.repeat(63)}:${'y'.repeat(100)}`, `${KEY}"${'x'.repeat(63)}:…"`);
      // Escaping applies to the kept characters; … is added after cutting.
      await assertKeyRefused(env, '"'.repeat(70), `${KEY}"${'\\"'.repeat(64)}…"`);
      await assertKeyRefused(env, 'a/b:c', `${KEY}"a/b:c"`);
      assertEqual(KEY.endsWith(': '), true, 'message prefix ends with a colon and a space');
    }),
  },
  {
    name: 'keys: a non-string key is refused the same way, quoting String(value)',
    run: withEnv({}, async (env) => {
      await assertKeyRefused(env, undefined, `${KEY}"undefined"`);
      await assertKeyRefused(env, null, `${KEY}"null"`);
      await assertKeyRefused(env, 42, `${KEY}"42"`);
      await assertKeyRefused(env, true, `${KEY}"true"`);
      await assertKeyRefused(env, {}, `${KEY}"[object Object]"`);
      await assertKeyRefused(env, ['a'], `${KEY}"a"`);
      await assertKeyRefused(env, utf8('a'), `${KEY}"97"`);
      await assertKeyRefused(env, new String('a'), `${KEY}"a"`);
    }),
  },
  {
    name: 'keys: a local appUserId (local:<persona>:<suffix>) is refused, a key-safe scope is accepted',
    run: withEnv({}, async (env) => {
      const appUserId = 'local:alice:abc123def456';
      await assertKeyRefused(env, appUserId, refusal(appUserId));
      await assertKeyRefused(env, `uploads/${appUserId}/photo.png`, refusal(`uploads/${appUserId}/photo.png`));
      await assertKeyRefused(env, `${appUserId}/photo.png`, refusal(`${appUserId}/photo.png`));
      await assertKeyAccepted(env, 'uploads/u-9f86d081884c7d65/photo.png');
    }),
  },
  {
    name: 'keys: a key is judged before anything else (value, contentType, limits, budgets)',
    run: withEnv({ maxObjectBytes: 1, writeBytes: 1, readBytes: 1 }, async (env) => {
      await assertRejects(env.writer.put(':', 42 as unknown as string, { contentType: '' }), refusal(':'), 'put with everything wrong');
      await assertRejects(env.writer.put(':', 'far too long'), refusal(':'), 'put over maxObjectBytes');
      env.meter.bytesRead = 1;
      env.meter.bytesWritten = 1;
      await assertRejects(env.writer.get(':'), refusal(':'), 'get over the read budget');
      await assertRejects(env.writer.put(':', 'x'), refusal(':'), 'put over the write budget');
      await assertRejects(env.writer.list({ prefix: '/a', limit: 0, cursor: 'forged' }), refusal('/a'), 'list with everything wrong');
      assertEqual(env.writes.count, 0, 'onWrite calls');
      assertEqual(env.store.puts + env.store.deletes + env.store.gets, 0, 'store calls');
    }),
  },

  // --- put / get / head --------------------------------------------------------------------------
  {
    name: 'put/get/head: bytes round trip exactly (every byte value, empty, a view into a larger buffer)',
    run: withEnv({}, async (env) => {
      const all = new Uint8Array(256).map((_, i) => i);
      await env.writer.put('bin/all', all);
      assertEqual((await env.writer.get('bin/all'))?.bytes, all, 'all 256 byte values');
      assertEqual((await env.reader.head('bin/all'))?.size, 256, 'size');

      await env.writer.put('bin/empty', new Uint8Array(0));
      const empty = await env.reader.get('bin/empty');
      assertEqual(empty?.bytes, new Uint8Array(0), 'empty object bytes');
      assertEqual(empty?.size, 0, 'empty object size');

      const buffer = new Uint8Array([9, 9, 1, 2, 3, 9, 9]);
      const view = buffer.subarray(2, 5);
      const receipt = await env.writer.put('bin/view', view);
      assertEqual(receipt.size, 3, 'a view is stored as its own bytes only');
      assertEqual((await env.reader.get('bin/view'))?.bytes, bytesOf(1, 2, 3), 'view bytes');
      assert((await env.reader.get('bin/view'))?.bytes instanceof Uint8Array, 'get returns a Uint8Array');
    }),
  },
  {
    name: 'put/get/head: a string is stored as its UTF-8 bytes, its size counted in bytes',
    run: withEnv({}, async (env) => {
      const text = 'héllo ✓ 😀';
      const receipt = await env.writer.put('text/hello.txt', text);
      assertEqual(receipt.size, utf8(text).length, 'receipt size in bytes');
      assertEqual(receipt.size, 15, 'size of héllo ✓ 😀');
      const object = await env.reader.get('text/hello.txt');
      assertEqual(object?.bytes, utf8(text), 'bytes');
      assertEqual(new TextDecoder().decode(object?.bytes), text, 'decodes back');
      assertEqual(object?.contentType, 'application/octet-stream', 'a string gets the default content type too');
      await env.writer.put('text/empty', '');
      assertEqual((await env.reader.get('text/empty'))?.bytes, new Uint8Array(0), 'empty string');
    }),
  },
  {
    name: 'put/get/head: exact shapes of the receipt, the object and the metadata; uploadedAt from the clock',
    run: withEnv({}, async (env) => {
      env.clock.advance(1234);
      const at = new Date(T0 + 1234);
      const receipt = await env.writer.put('shape/a', bytesOf(1, 2, 3), { contentType: 'image/png' });
      assertEqual(receipt, { key: 'shape/a', size: 3, contentType: 'image/png', uploadedAt: at }, 'receipt');
      assert(receipt.uploadedAt instanceof Date, 'receipt uploadedAt is a Date');
      env.clock.advance(5000);
      assertEqual(await env.reader.head('shape/a'), { key: 'shape/a', size: 3, contentType: 'image/png', uploadedAt: at }, 'head');
      assertEqual(
        await env.reader.get('shape/a'),
        { key: 'shape/a', size: 3, contentType: 'image/png', uploadedAt: at, bytes: bytesOf(1, 2, 3) },
        'get',
      );
      assertEqual(
        await env.reader.list({ prefix: 'shape/' }),
        { objects: [{ key: 'shape/a', size: 3, contentType: 'image/png', uploadedAt: at }], cursor: null },
        'list',
      );
    }),
  },
  {
    name: 'put: contentType defaults to application/octet-stream; an explicit one is kept; a bad one is refused',
    run: withEnv({}, async (env) => {
      assertEqual((await env.writer.put('ct/default', 'x')).contentType, 'application/octet-stream', 'no options');
      assertEqual((await env.writer.put('ct/empty-options', 'x', {})).contentType, 'application/octet-stream', 'empty options');
      assertEqual(
        (await env.writer.put('ct/undefined', 'x', { contentType: undefined })).contentType,
        'application/octet-stream',
        'contentType undefined',
      );
      assertEqual((await env.writer.put('ct/json', '{}', { contentType: 'application/json; charset=utf-8' })).contentType, 'application/json; charset=utf-8', 'explicit');
      assertEqual((await env.reader.head('ct/default'))?.contentType, 'application/octet-stream', 'head default');
      assertEqual((await env.reader.get('ct/json'))?.contentType, 'application/json; charset=utf-8', 'get explicit');
      for (const contentType of ['', 42, null, true, {}]) {
        await assertRejects(
          env.writer.put('ct/bad', 'x', { contentType: contentType as string }),
          /contentType must be a non-empty string/,
          `contentType ${show(contentType)}`,
        );
      }
      assertEqual(await env.reader.head('ct/bad'), null, 'nothing written for a bad contentType');
    }),
  },
  {
    name: 'put: a value that is neither a Uint8Array nor a string is refused, naming the accepted types',
    run: withEnv({}, async (env) => {
      const values: unknown[] = [42, null, undefined, true, {}, [1, 2], new ArrayBuffer(2), new Uint16Array(2), new DataView(new ArrayBuffer(2))];
      for (const value of values) {
        await assertRejects(env.writer.put('v/bad', value as string), /Uint8Array or a string/, `value ${show(value)}`);
      }
      assertEqual(await env.reader.head('v/bad'), null, 'nothing written');
      assertEqual(env.writes.count, 0, 'onWrite not called');
      assertEqual(env.meter.bytesWritten, 0, 'nothing charged');
    }),
  },
  {
    name: 'put: replaces an existing object (bytes, size, contentType back to the default, uploadedAt)',
    run: withEnv({}, async (env) => {
      await env.writer.put('r/k', 'first version', { contentType: 'text/plain' });
      env.clock.advance(60_000);
      const receipt = await env.writer.put('r/k', bytesOf(7, 8));
      assertEqual(receipt, { key: 'r/k', size: 2, contentType: 'application/octet-stream', uploadedAt: new Date(T0 + 60_000) }, 'receipt');
      assertEqual(
        await env.reader.get('r/k'),
        { key: 'r/k', size: 2, contentType: 'application/octet-stream', uploadedAt: new Date(T0 + 60_000), bytes: bytesOf(7, 8) },
        'replaced object',
      );
      assertEqual(await listKeys(env.reader), ['r/k'], 'one object under the key');
    }),
  },
  {
    name: 'get/head: an absent key is null; get of an absent key charges nothing',
    run: withEnv({}, async (env) => {
      assertEqual(await env.reader.get('nothing/here'), null, 'get');
      assertEqual(await env.reader.head('nothing/here'), null, 'head');
      assertEqual(await env.writer.get('nothing/here'), null, 'writer get');
      assertEqual(env.meter.bytesRead, 0, 'bytesRead');
      await env.writer.put('nothing/her', 'x');
      assertEqual(await env.reader.get('nothing/here'), null, 'a key that is a prefix of another is a different key');
      assertEqual(await env.reader.get('nothing'), null, 'a folder is not an object');
    }),
  },
  {
    name: 'put/get: stored bytes are not shared with the caller',
    run: withEnv({}, async (env) => {
      const input = bytesOf(1, 2, 3);
      await env.writer.put('alias/k', input);
      input[0] = 99;
      const first = await env.reader.get('alias/k');
      assertEqual(first?.bytes, bytesOf(1, 2, 3), 'changing the input after put changes nothing');
      first!.bytes[1] = 99;
      assertEqual((await env.reader.get('alias/k'))?.bytes, bytesOf(1, 2, 3), 'changing a result changes nothing');
    }),
  },
  {
    name: 'delete: removes the object, succeeds when absent, returns nothing, calls onWrite',
    run: withEnv({}, async (env) => {
      await env.writer.put('d/a', 'x');
      await env.writer.put('d/b', 'y');
      assertEqual(env.writes.count, 2, 'onWrite after each put');
      assertEqual(await env.writer.delete('d/a'), undefined, 'delete returns nothing');
      assertEqual(env.writes.count, 3, 'onWrite after delete');
      assertEqual(await env.reader.get('d/a'), null, 'get after delete');
      assertEqual(await env.reader.head('d/a'), null, 'head after delete');
      assertEqual(await listKeys(env.reader, 'd/'), ['d/b'], 'list after delete');
      assertEqual(await env.writer.delete('d/a'), undefined, 'deleting again');
      assertEqual(await env.writer.delete('never/was'), undefined, 'deleting what never existed');
      assertEqual(await env.writer.delete('d'), undefined, 'deleting a "folder" deletes nothing');
      assertEqual(await listKeys(env.reader, 'd/'), ['d/b'], 'the folder still holds its object');
      assertEqual(env.writes.count, 6, 'onWrite after every delete');
      await env.reader.get('d/b');
      await env.reader.head('d/b');
      await env.reader.list();
      assertEqual(env.writes.count, 6, 'reads never call onWrite');
    }),
  },

  // --- list ----------------------------------------------------------------------------------------
  {
    name: 'list: empty store, no options, metadata only',
    run: withEnv({}, async (env) => {
      assertEqual(await env.reader.list(), { objects: [], cursor: null }, 'list()');
      assertEqual(await env.reader.list({}), { objects: [], cursor: null }, 'list({})');
      assertEqual(await env.reader.list({ prefix: '' }), { objects: [], cursor: null }, "list({ prefix: '' })");
      await env.writer.put('m/a', bytesOf(1));
      const page = await env.reader.list();
      assertEqual(page.objects, [{ key: 'm/a', size: 1, contentType: 'application/octet-stream', uploadedAt: new Date(T0) }], 'metadata, no bytes');
      assert(!('bytes' in page.objects[0]!), 'list objects have no bytes property');
    }),
  },
  {
    name: 'list: ordered by key in byte order (space, punctuation, digits, upper case, lower case, ~)',
    run: withEnv({}, async (env) => {
      const keys = ['b', 'a', 'B', 'A', '0', '~', ' ', 'a b', 'a/b', 'a-b', 'a!', 'a(', 'a)', 'a~', 'a_', "a'", 'a*', 'a.', 'Z', 'z', '9', 'a0', 'aA', 'a/a', 'a/B', '_'];
      await putMany(env.writer, keys);
      const listed = await listKeys(env.reader);
      assertEqual(listed, byteOrder(keys), 'byte order');
      assertEqual(listed.slice(0, 3), [' ', '0', '9'], 'space sorts first, then digits');
      assert(listed.indexOf('Z') < listed.indexOf('_') && listed.indexOf('_') < listed.indexOf('a'), 'upper case, then _, then lower case');
      assert(listed.indexOf('a b') < listed.indexOf('a-b') && listed.indexOf('a-b') < listed.indexOf('a/a'), "' ' < '-' < '/'");
    }),
  },
  {
    name: 'list: a prefix matches exactly the keys that start with it (case-sensitive, no wildcards, no neighbours)',
    run: withEnv({}, async (env) => {
      const keys = [
        'A', 'A/x', 'Z~', 'a', 'a b', 'a!', 'a-1', 'a.txt', 'a/a', 'a/b', 'a/b/c', 'a/bc', 'a/c', 'a_b', 'aa', 'ab', 'a~', 'b', 'b/a', '_a', 'x/a/b', 'a(1)', 'a*', 'a/.hidden', 'a/..b',
      ];
      await putMany(env.writer, keys);
      const expect = (prefix: string): string[] => byteOrder(keys.filter((key) => key.startsWith(prefix)));
      for (const prefix of ['a', 'a/', 'a/b', 'a/b/', 'a/b/c', 'a_', 'a*', 'a(', 'a~', 'A', 'x/a', 'x/', 'b', '_', 'Z', 'q', 'a/.', 'a/..', 'a/b/c/']) {
        assertEqual(await listKeys(env.reader, prefix), expect(prefix), `prefix ${show(prefix)}`);
      }
      assertEqual(await listKeys(env.reader, 'a_'), ['a_b'], 'a_ is not a wildcard');
      assertEqual(await listKeys(env.reader, 'a*'), ['a*'], 'a* is not a wildcard');
      assertEqual(await listKeys(env.reader, 'A'), ['A', 'A/x'], 'case-sensitive');
      assertEqual(await listKeys(env.reader, 'a/'), ['a/..b', 'a/.hidden', 'a/a', 'a/b', 'a/b/c', 'a/bc', 'a/c'], 'ending in a slash');
      assertEqual(await listKeys(env.reader, 'a/b'), ['a/b', 'a/b/c', 'a/bc'], 'mid-segment');
      const underA = await listKeys(env.reader, 'a');
      for (const neighbour of ['A', 'A/x', 'Z~', '_a', 'b', 'b/a']) assert(!underA.includes(neighbour), `${neighbour} is not under a`);
      assertEqual(await listKeys(env.reader, ''), byteOrder(keys), 'empty prefix lists everything');
      assertEqual(await listKeys(env.reader), byteOrder(keys), 'no prefix lists everything');
    }),
  },
  {
    name: 'list: a prefix follows the key rules except that it may end in a slash or mid-segment',
    run: withEnv({}, async (env) => {
      for (const prefix of ['', 'a', 'a/', 'a/b', 'a/b/', 'a/b/c', 'a/b/c/', 'a b/', '.', 'a/.', 'a/..', '.well', 'a'.repeat(512)]) {
        assertEqual((await env.reader.list({ prefix })).cursor, null, `prefix ${show(prefix)} accepted`);
      }
      const refused = ['/', '/a', 'a//b', 'a//', '//', './a', '../a', 'a/./', 'a/../', 'a/../b', 'a/./b', './', '../', 'a:b', 'local:alice:x/', 'a\\b', 'é', 'a b/c%'];
      for (const prefix of refused) {
        await assertRejects(env.reader.list({ prefix }), refusal(prefix), `prefix ${show(prefix)}`);
      }
      await assertRejects(env.reader.list({ prefix: 'a'.repeat(513) }), `${KEY}"${'a'.repeat(64)}…"`, '513-byte prefix');
      await assertRejects(env.reader.list({ prefix: 42 as unknown as string }), `${KEY}"42"`, 'non-string prefix');
      await assertRejects(env.reader.list({ prefix: null as unknown as string }), `${KEY}"null"`, 'null prefix');
    }),
  },
  {
    name: 'list: paging walks every object once, and cursor is null exactly when nothing is left',
    run: withEnv({}, async (env) => {
      const keys = ['p/1', 'p/2', 'p/3', 'p/4', 'p/5', 'p/6', 'p/7'];
      await putMany(env.writer, [...keys, 'q/1', 'o/9', 'p']);
      const first = await env.reader.list({ prefix: 'p/', limit: 3 });
      assertEqual(first.objects.map((o) => o.key), ['p/1', 'p/2', 'p/3'], 'page 1');
      assert(typeof first.cursor === 'string', 'page 1 has a cursor');
      const second = await env.reader.list({ prefix: 'p/', limit: 3, cursor: first.cursor! });
      assertEqual(second.objects.map((o) => o.key), ['p/4', 'p/5', 'p/6'], 'page 2');
      assert(typeof second.cursor === 'string', 'page 2 has a cursor');
      const third = await env.reader.list({ prefix: 'p/', limit: 3, cursor: second.cursor! });
      assertEqual(third, { objects: [{ key: 'p/7', size: 3, contentType: 'application/octet-stream', uploadedAt: new Date(T0) }], cursor: null }, 'page 3');
      for (const limit of [1, 2, 3, 6, 7, 8, 1000]) {
        const walked = await listAll(env.reader, 'p/', limit);
        assertEqual(walked.keys, keys, `every key once with limit ${limit}`);
        assertEqual(walked.pages, Math.max(1, Math.ceil(keys.length / limit)), `pages with limit ${limit}`);
      }
      // A full page with nothing after it is the last page: cursor null.
      assertEqual((await env.reader.list({ prefix: 'p/', limit: 7 })).cursor, null, 'limit equal to the count');
      const exact = await env.reader.list({ prefix: 'p/', limit: 6 });
      const last = await env.reader.list({ prefix: 'p/', limit: 6, cursor: exact.cursor! });
      assertEqual(last.objects.map((o) => o.key), ['p/7'], 'short last page');
      assertEqual(last.cursor, null, 'short last page cursor');
      const all = await listAll(env.reader, '', 2);
      assertEqual(all.keys, byteOrder([...keys, 'q/1', 'o/9', 'p']), 'paging without a prefix');
    }),
  },
  {
    name: 'list: a cursor is a position after a key, valid in a later handler call and while writes land',
    run: withEnv({}, async (env) => {
      await putMany(env.writer, ['p/1', 'p/2', 'p/3', 'p/4', 'p/5']);
      const first = await env.reader.list({ prefix: 'p/', limit: 2 });
      assertEqual(first.objects.map((o) => o.key), ['p/1', 'p/2'], 'page 1');
      const later = env.call();
      await later.writer.put('p/0', 'before the position');
      await later.writer.put('p/25', 'after the position');
      await later.writer.delete('p/2');
      await later.writer.delete('p/3');
      const rest = await listAll(later.reader, 'p/', 2);
      const second = await later.reader.list({ prefix: 'p/', limit: 2, cursor: first.cursor! });
      assertEqual(second.objects.map((o) => o.key), ['p/25', 'p/4'], 'continues after p/2 although p/2 is gone');
      const third = await later.reader.list({ prefix: 'p/', limit: 2, cursor: second.cursor! });
      assertEqual(third.objects.map((o) => o.key), ['p/5'], 'last page');
      assertEqual(third.cursor, null, 'end');
      assertEqual(rest.keys, ['p/0', 'p/1', 'p/25', 'p/4', 'p/5'], 'a new walk sees the current keys');
      assertEqual(
        (await env.reader.list({ prefix: 'p/', limit: 2, cursor: first.cursor! })).objects.map((o) => o.key),
        ['p/25', 'p/4'],
        'a cursor can be used again',
      );
    }),
  },
  {
    name: 'list: a cursor not issued by list (forged, edited, other prefix, other secret, non-string) is refused',
    run: withEnv({}, async (env) => {
      await putMany(env.writer, ['p/1', 'p/2', 'p/3', 'q/1', 'q/2', 'q/3']);
      const page = await env.reader.list({ prefix: 'p/', limit: 1 });
      const cursor = page.cursor!;
      assert(typeof cursor === 'string', 'a cursor was issued');
      // Flips the high bit of a base64url digit, which always carries data (low bits of the last digit may not).
      const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
      const flip = (c: string): string => alphabet[alphabet.indexOf(c) ^ 32]!;
      const edited = [
        cursor.slice(0, -1) + flip(cursor.slice(-1)),
        flip(cursor[0]!) + cursor.slice(1),
        cursor.slice(0, 10) + flip(cursor[10]!) + cursor.slice(11),
        cursor.slice(0, -1),
        cursor + 'A',
        ` ${cursor}`,
        cursor.toUpperCase() === cursor ? cursor.toLowerCase() : cursor.toUpperCase(),
      ];
      const forged = ['', 'abc', 'p/1', '"p/1"', 'eyJrZXkiOiJwLzEifQ', 'null', '0', 'x'.repeat(5000)];
      for (const bad of [...edited, ...forged]) {
        if (bad === cursor) continue;
        await assertRejects(env.reader.list({ prefix: 'p/', limit: 1, cursor: bad }), CURSOR, `cursor ${show(bad)}`);
      }
      // Another prefix (including none, and a prefix of the original).
      for (const prefix of ['q/', '', 'p', 'p/1', 'P/']) {
        await assertRejects(env.reader.list({ prefix, limit: 1, cursor }), CURSOR, `cursor of p/ under prefix ${show(prefix)}`);
      }
      await assertRejects(env.reader.list({ limit: 1, cursor }), CURSOR, 'cursor of p/ without a prefix');
      // Another runtime's secret, and the same secret for another purpose.
      const other = new CursorSigner(new Uint8Array(32).fill(8));
      await assertRejects(env.reader.list({ prefix: 'p/', cursor: other.sign('storage.list:p/', 'p/1') }), CURSOR, 'other secret');
      await assertRejects(env.reader.list({ prefix: 'p/', cursor: env.signer.sign('table.page:p/', 'p/1') }), CURSOR, 'other purpose');
      for (const bad of [42, null, true, {}, ['x'], utf8(cursor)]) {
        await assertRejects(env.reader.list({ prefix: 'p/', cursor: bad as unknown as string }), CURSOR, `cursor ${show(bad)}`);
      }
      // The real cursor still works, with its own prefix only.
      const next = await env.reader.list({ prefix: 'p/', limit: 1, cursor });
      assertEqual(next.objects.map((o) => o.key), ['p/2'], 'the issued cursor');
    }),
  },
  {
    name: 'list: limit defaults to 100, allows 1 to 1000, refuses anything else',
    run: withEnv({}, async (env) => {
      const keys = Array.from({ length: 1001 }, (_, i) => `n/${String(i).padStart(4, '0')}`);
      for (const key of keys) await env.writer.put(key, bytesOf(1));
      const byDefault = await env.reader.list({ prefix: 'n/' });
      assertEqual(byDefault.objects.length, 100, 'default limit');
      assertEqual(byDefault.objects.map((o) => o.key), keys.slice(0, 100), 'default page');
      assert(byDefault.cursor !== null, 'more after the default page');
      assertEqual((await env.reader.list()).objects.length, 100, 'list() uses the default limit');
      const max = await env.reader.list({ prefix: 'n/', limit: 1000 });
      assertEqual(max.objects.map((o) => o.key), keys.slice(0, 1000), 'limit 1000');
      const tail = await env.reader.list({ prefix: 'n/', limit: 1000, cursor: max.cursor! });
      assertEqual(tail, { objects: [{ key: 'n/1000', size: 1, contentType: 'application/octet-stream', uploadedAt: new Date(T0) }], cursor: null }, 'after 1000');
      assertEqual((await env.reader.list({ prefix: 'n/', limit: 1 })).objects.map((o) => o.key), ['n/0000'], 'limit 1');
      for (const limit of [0, -1, 1001, 1.5, 0.5, Number.NaN, Number.POSITIVE_INFINITY, -0.1, 1e9, '10', null, true, [10]]) {
        await assertRejects(env.reader.list({ limit: limit as number }), LIMIT, `limit ${show(limit)}`);
      }
    }),
  },

  // --- Budgets and limits --------------------------------------------------------------------------
  {
    name: 'read budget: get charges the size; over the budget is refused from the declared size before any transfer',
    run: withEnv({ readBytes: 10 }, async (env) => {
      await env.writer.put('big', new Uint8Array(11));
      await env.writer.put('ten', new Uint8Array(10));
      await env.writer.put('one', bytesOf(1));
      await env.writer.put('zero', new Uint8Array(0));
      const gets = env.store.gets;
      await assertRejects(env.reader.get('big'), 'Storage read byte budget exceeded (10 bytes).', 'get of 11 bytes');
      assertEqual(env.store.gets, gets, 'nothing transferred for the refused get');
      assertEqual(env.meter.bytesRead, 0, 'nothing charged for the refused get');
      assertEqual((await env.reader.get('ten'))?.size, 10, 'exactly the budget');
      assertEqual(env.meter.bytesRead, 10, 'charged 10');
      await assertRejects(env.reader.get('one'), 'Storage read byte budget exceeded (10 bytes).', 'one byte more');
      assertEqual(env.meter.bytesRead, 10, 'still 10');
      assertEqual((await env.reader.get('zero'))?.size, 0, 'an empty object fits a spent budget');
      assertEqual(await env.reader.get('absent'), null, 'an absent key is null, not a budget failure');
      await assertRejects(env.writer.get('one'), 'Storage read byte budget exceeded (10 bytes).', 'writer get shares the meter');
    }),
  },
  {
    name: 'read budget: accumulates across calls within one meter, and a fresh meter starts again',
    run: withEnv({ readBytes: 10 }, async (env) => {
      await env.writer.put('four', new Uint8Array(4));
      await env.reader.get('four');
      await env.writer.get('four');
      assertEqual(env.meter.bytesRead, 8, 'two gets of four bytes');
      await assertRejects(env.reader.get('four'), 'Storage read byte budget exceeded (10 bytes).', 'third get');
      const next = env.call();
      assertEqual(next.meter.bytesRead, 0, 'fresh meter');
      assertEqual((await next.reader.get('four'))?.size, 4, 'the next handler call may read again');
      await next.reader.get('four');
      await assertRejects(next.reader.get('four'), 'Storage read byte budget exceeded (10 bytes).', 'and has its own budget');
      assertEqual(env.meter.bytesRead, 8, 'the first meter is untouched');
    }),
  },
  {
    name: 'read budget: the message names the configured budget',
    run: withEnv({ readBytes: 33554432 - 1 }, async (env) => {
      env.meter.bytesRead = 33554432 - 2;
      await env.writer.put('two', new Uint8Array(2));
      await assertRejects(env.reader.get('two'), 'Storage read byte budget exceeded (33554431 bytes).', 'lowered budget in the message');
    }),
  },
  {
    name: 'read budget: head and list are free',
    run: withEnv({ readBytes: 1 }, async (env) => {
      for (let i = 0; i < 5; i++) await env.writer.put(`free/${i}`, new Uint8Array(100));
      for (let i = 0; i < 5; i++) assertEqual((await env.reader.head(`free/${i}`))?.size, 100, `head ${i}`);
      assertEqual((await env.reader.list({ prefix: 'free/' })).objects.length, 5, 'list');
      await listAll(env.reader, 'free/', 1);
      assertEqual(env.meter.bytesRead, 0, 'bytesRead after head and list');
      await assertRejects(env.reader.get('free/0'), 'Storage read byte budget exceeded (1 bytes).', 'get is not free');
    }),
  },
  {
    name: 'write budget: put charges the byte length, judged before the write; accumulates; a fresh meter resets',
    run: withEnv({ writeBytes: 10 }, async (env) => {
      await env.writer.put('w/six', new Uint8Array(6));
      await env.writer.put('w/four', new Uint8Array(4));
      assertEqual(env.meter.bytesWritten, 10, 'exactly the budget');
      assertEqual(env.writes.count, 2, 'onWrite');
      await assertRejects(env.writer.put('w/one', bytesOf(1)), 'Storage write byte budget exceeded (10 bytes).', 'one byte more');
      await assertRejects(env.writer.put('w/six', bytesOf(1)), 'Storage write byte budget exceeded (10 bytes).', 'a replacement is charged too');
      assertEqual(await env.reader.head('w/one'), null, 'nothing written');
      assertEqual((await env.reader.head('w/six'))?.size, 6, 'the existing object is untouched');
      assertEqual(env.meter.bytesWritten, 10, 'nothing charged for refusals');
      assertEqual(env.writes.count, 2, 'onWrite not called for refusals');
      await env.writer.put('w/empty', new Uint8Array(0));
      await env.writer.delete('w/four');
      assertEqual(env.meter.bytesWritten, 10, 'empty objects and deletes are free');
      const next = env.call();
      await next.writer.put('w/ten', new Uint8Array(10));
      assertEqual(next.meter.bytesWritten, 10, 'a fresh meter has the whole budget');
      await assertRejects(next.writer.put('w/x', 'x'), 'Storage write byte budget exceeded (10 bytes).', 'and its own limit');
    }),
  },
  {
    name: 'write budget: strings are charged in UTF-8 bytes',
    run: withEnv({ writeBytes: 5 }, async (env) => {
      assertEqual((await env.writer.put('s/1', 'éé')).size, 4, 'two characters, four bytes');
      await assertRejects(env.writer.put('s/2', 'é'), 'Storage write byte budget exceeded (5 bytes).', 'two more bytes');
      assertEqual((await env.writer.put('s/3', 'e')).size, 1, 'one more byte fits');
      assertEqual(env.meter.bytesWritten, 5, 'bytesWritten');
    }),
  },
  {
    name: 'maxObjectBytes: checked first, with its exact message; nothing is written',
    run: withEnv({ maxObjectBytes: 8, writeBytes: 4 }, async (env) => {
      await assertRejects(env.writer.put('x/nine', new Uint8Array(9)), 'Storage object exceeds the declared maxObjectBytes of 8: 9 bytes.', 'both limits exceeded');
      await assertRejects(env.writer.put('x/eight', new Uint8Array(8)), 'Storage write byte budget exceeded (4 bytes).', 'within maxObjectBytes, over writeBytes');
      await assertRejects(env.writer.put('x/str', 'é'.repeat(5)), 'Storage object exceeds the declared maxObjectBytes of 8: 10 bytes.', 'five characters, ten bytes');
      assertEqual(await listKeys(env.reader), [], 'nothing written');
      assertEqual(env.meter.bytesWritten, 0, 'nothing charged');
      assertEqual(env.writes.count, 0, 'onWrite not called');
      assertEqual(env.store.puts, 0, 'the store saw no write');
    }),
  },
  {
    name: 'maxObjectBytes: an object of exactly the limit is stored; one byte more is refused even with budget left',
    run: withEnv({ maxObjectBytes: 8 }, async (env) => {
      assertEqual((await env.writer.put('x/eight', new Uint8Array(8))).size, 8, 'exactly maxObjectBytes');
      await assertRejects(env.writer.put('x/nine', new Uint8Array(9)), 'Storage object exceeds the declared maxObjectBytes of 8: 9 bytes.', 'one byte more');
      assertEqual(await env.reader.head('x/nine'), null, 'nothing written');
      const defaults = environment(() => env.driver, {});
      const huge = new Uint8Array(26214400 + 1);
      await assertRejects(defaults.writer.put('x/huge', huge), 'Storage object exceeds the declared maxObjectBytes of 26214400: 26214401 bytes.', 'the default limit');
    }),
  },

  // --- The split and the transaction -------------------------------------------------------------------
  {
    name: 'reader: a query gets get, head and list only, with no put or delete property',
    run: withEnv({}, async (env) => {
      assertEqual(Object.keys(env.reader).sort(), ['get', 'head', 'list'], 'reader keys');
      assert(!('put' in env.reader), "'put' in reader is false");
      assert(!('delete' in env.reader), "'delete' in reader is false");
      assertEqual((env.reader as unknown as Record<string, unknown>)['put'], undefined, 'reader.put');
      assertEqual(Object.keys(env.writer).sort(), ['delete', 'get', 'head', 'list', 'put'], 'writer keys');
      await env.writer.put('split/a', 'x');
      assertEqual((await env.reader.get('split/a'))?.bytes, utf8('x'), 'the reader reads what the writer wrote');
      for (const name of ['get', 'head', 'list', 'put', 'delete']) {
        assertEqual(typeof (env.writer as unknown as Record<string, unknown>)[name], 'function', `writer.${name}`);
      }
    }),
  },
  {
    name: 'transaction: writes inside a rolled-back SQL transaction leave nothing behind; committed ones stay',
    run: withEnv({}, async (env) => {
      await env.writer.put('t/keep', 'original', { contentType: 'text/plain' });
      await env.writer.put('t/doomed-delete', 'still here');
      const rollback = new Error('rollback');
      const rolledBack = await env.driver.transaction(async () => {
        await env.writer.put('t/new', 'new');
        await env.writer.put('t/keep', 'replaced');
        await env.writer.delete('t/doomed-delete');
        assertEqual((await env.reader.get('t/new'))?.bytes, utf8('new'), 'the transaction reads its own put');
        assertEqual((await env.reader.get('t/keep'))?.bytes, utf8('replaced'), 'and its own replacement');
        assertEqual(await env.reader.head('t/doomed-delete'), null, 'and its own delete');
        throw rollback;
      }).catch((error: unknown) => error);
      assertEqual(rolledBack === rollback, true, 'the transaction rolled back');
      assertEqual(await env.reader.head('t/new'), null, 'rolled-back put');
      assertEqual(
        await env.reader.get('t/keep'),
        { key: 't/keep', size: 8, contentType: 'text/plain', uploadedAt: new Date(T0), bytes: utf8('original') },
        'rolled-back replacement',
      );
      assertEqual((await env.reader.get('t/doomed-delete'))?.bytes, utf8('still here'), 'rolled-back delete');
      assertEqual(await listKeys(env.reader, 't/'), ['t/doomed-delete', 't/keep'], 'list after rollback');
      await env.driver.transaction(() => env.writer.put('t/committed', 'yes'));
      assertEqual((await env.reader.get('t/committed'))?.bytes, utf8('yes'), 'committed put');
    }),
  },
  {
    name: 'SqlObjectStore: an object larger than one row holds is split into chunks and read back whole; replacing or deleting it leaves no chunk behind',
    run: async (make) => {
      const driver = make();
      try {
        const store = new SqlObjectStore(driver);
        const big = new Uint8Array(CHUNK_BYTES * 2 + 12345).map((_, i) => (i * 31) % 251);
        await store.put({ key: 'big/a', size: big.byteLength, contentType: 'application/octet-stream', uploadedAt: T0, bytes: big });
        assertEqual((await store.get('big/a'))?.bytes, big, 'read back whole');
        assertEqual(driver.all('SELECT COUNT(*) AS n FROM __platform_object_chunks')[0]?.['n'], 2, 'two chunks past the first');
        await store.put({ key: 'big/a', size: 3, contentType: 'text/plain', uploadedAt: T0, bytes: utf8('abc') });
        assertEqual((await store.get('big/a'))?.bytes, utf8('abc'), 'replaced by a small object');
        assertEqual(driver.all('SELECT COUNT(*) AS n FROM __platform_object_chunks')[0]?.['n'], 0, 'no chunk left after the replacement');
        await store.put({ key: 'big/b', size: big.byteLength, contentType: 'application/octet-stream', uploadedAt: T0, bytes: big });
        await store.delete('big/b');
        assertEqual(driver.all('SELECT COUNT(*) AS n FROM __platform_object_chunks')[0]?.['n'], 0, 'no chunk left after the delete');
      } finally {
        driver.close();
      }
    },
  },
  {
    name: 'SqlObjectStore: objects live in __platform_objects, survive reopening, and the table is created once',
    run: async (make) => {
      const driver = make();
      try {
        const first = new SqlObjectStore(driver);
        await first.put({ key: 'db/a', size: 3, contentType: 'text/plain', uploadedAt: T0, bytes: utf8('abc') });
        const second = new SqlObjectStore(driver);
        assertEqual(await second.head('db/a'), { key: 'db/a', size: 3, contentType: 'text/plain', uploadedAt: T0 }, 'a second store on the same database');
        const columns = driver.all("SELECT name FROM pragma_table_info('__platform_objects') ORDER BY cid").map((row) => row['name']);
        assertEqual(columns, ['key', 'size', 'contentType', 'uploadedAt', 'bytes'], 'columns');
        const reopened = driver.export ? make(driver.export()) : make.reopen!(driver);
        try {
          const store = new SqlObjectStore(reopened);
          assertEqual(await store.get('db/a'), { key: 'db/a', size: 3, contentType: 'text/plain', uploadedAt: T0, bytes: utf8('abc') }, 'after reopening');
          assertEqual(await store.list({ prefix: 'db/', after: 'db/a', limit: 10 }), [], 'list after the last key');
          assertEqual(await store.list({ prefix: 'db/', limit: 0 }), [], 'limit 0');
        } finally {
          reopened.close();
        }
      } finally {
        driver.close();
      }
    },
  },
];
