/**
 * Tests of the one check at the preview frame's boundary (worker/protocol/preview.ts,
 * `readFrameMessage`): what a stranger's client code may post on the frame's port, as an attacker would.
 */
import { describe, expect, it } from 'vitest';
import { PREVIEW_NAME_LIMIT, PREVIEW_TEXT_LIMIT, readFrameMessage, type FrameMessage } from '../../../worker/protocol/preview';

/** One of each message the bootstrap sends, as it sends them. */
const VALID: FrameMessage[] = [
  { type: 'pong', at: 1700000000000 },
  { type: 'loaded' },
  { type: 'server-replaced', id: 3, ok: true },
  { type: 'client-error', message: 'TypeError: x is undefined', stack: 'at app.js:1:2' },
  { type: 'console', level: 'warn', message: 'careful', stack: '' },
  { type: 'call', id: 1, kind: 'query', name: 'todos.list', input: { done: false, at: new Date(0), tags: ['a'] } },
  { type: 'call', id: 2, kind: 'mutation', name: 'todos.add' },
  { type: 'fetch', id: 4, method: 'POST', path: '/api/items?x=1', headers: [['content-type', 'application/json']], body: new ArrayBuffer(3) },
  { type: 'fetch', id: 5, method: 'GET', path: '/_platform/v0/live', headers: [], body: null },
  { type: 'cancel-body', id: 5 },
  { type: 'download', path: '/report.csv', name: 'report.csv' },
  { type: 'sign-in' },
  { type: 'sign-out' },
  { type: 'external-link', href: 'https://example.com/' },
];

/** A valid message with one field changed (or, with `undefined` and `drop`, removed). */
function variant<T extends FrameMessage['type']>(type: T, change: Record<string, unknown>, drop: string[] = []): Record<string, unknown> {
  const base = { ...VALID.find((m) => m.type === type)! } as Record<string, unknown>;
  for (const key of drop) delete base[key];
  return { ...base, ...change };
}

describe('readFrameMessage', () => {
  it.each(VALID.map((m) => [`${m.type} ${Object.keys(m).join(',')}`, m] as const))('takes %s', (_, message) => {
    const read = readFrameMessage(message);
    expect(read).toEqual(message);
    // A copy: what the page reads is what was checked, whatever the sender's object does afterwards.
    expect(read).not.toBe(message);
  });

  it('takes what arrives through structured clone, the way the port delivers it', () => {
    for (const message of VALID) expect(readFrameMessage(structuredClone(message))).toEqual(message);
  });

  it('takes a call whose input is present but undefined (the bootstrap sends the key)', () => {
    expect(readFrameMessage({ type: 'call', id: 1, kind: 'query', name: 'a.b', input: undefined })).toEqual({ type: 'call', id: 1, kind: 'query', name: 'a.b', input: undefined });
  });

  it('takes an object without a prototype', () => {
    const message = Object.assign(Object.create(null) as object, { type: 'cancel-body', id: 2 });
    expect(readFrameMessage(message)).toEqual({ type: 'cancel-body', id: 2 });
  });

  it.each([
    ['undefined', undefined],
    ['null', null],
    ['a string', 'loaded'],
    ['a number', 1],
    ['a boolean', true],
    ['a function', Object.assign(() => undefined, { type: 'loaded' })],
    ['an array', ['loaded']],
    ['an array with a type', Object.assign([], { type: 'loaded' })],
    ['a Map', new Map([['type', 'loaded']])],
    ['a Date with a type', Object.assign(new Date(), { type: 'loaded' })],
    ['a class instance', new (class { type = 'loaded'; })()],
  ])('refuses %s', (_, value) => {
    expect(readFrameMessage(value)).toBeUndefined();
  });

  it.each([
    ['no type', {}],
    ['a type of another case', { type: 'Loaded' }],
    ['a type with spaces', { type: ' loaded' }],
    ['a type that is not a string', { type: 1 }],
    ['a type in an array', { type: ['loaded'] }],
    ['a page message (ping)', { type: 'ping', at: 1 }],
    ['a page message (result)', { type: 'result', id: 1, result: 1 }],
    ['a page message (body-chunk)', { type: 'body-chunk', id: 1, chunk: new ArrayBuffer(1) }],
    ['a direct answer', { type: 'answer', id: 1, answer: { status: 200 } }],
    ['a window message (init)', { type: 'init', code: '', afterPrelude: false, title: '', lang: 'en', assets: {} }],
    ['an Object.prototype name (constructor)', { type: 'constructor' }],
    ['an Object.prototype name (toString)', { type: 'toString' }],
    ['an Object.prototype name (hasOwnProperty)', { type: 'hasOwnProperty' }],
    ['__proto__ as the type', JSON.parse('{"type":"__proto__"}')],
  ])('refuses %s', (_, value) => {
    expect(readFrameMessage(value)).toBeUndefined();
  });

  it.each([
    ['an inherited type', Object.create({ type: 'loaded' })],
    ['inherited fields (a literal __proto__ sets the prototype)', { __proto__: { id: 1 }, type: 'cancel-body' }],
    ['an own __proto__ key (JSON.parse makes one)', JSON.parse('{"type":"loaded","__proto__":{"polluted":true}}')],
    ['an own __proto__ key, cloned', structuredClone(JSON.parse('{"type":"cancel-body","id":1,"__proto__":{"id":2}}'))],
    ['an own constructor key', { type: 'loaded', constructor: { prototype: {} } }],
    ['an extra field', { type: 'sign-in', persona: 'alice' }],
    ['an extra field on a call (a persona of its choosing)', variant('call', { persona: 'alice' })],
    ['a symbol key', { type: 'loaded', [Symbol('x')]: 1 }],
    [
      'a getter for a field (it could answer differently each read)',
      Object.defineProperty({ type: 'external-link' }, 'href', { enumerable: true, get: () => 'https://example.com/' }),
    ],
    ['a getter for the type', Object.defineProperty({}, 'type', { enumerable: true, get: () => 'loaded' })],
    ['a non-enumerable extra field', Object.defineProperty({ type: 'loaded' }, 'hidden', { value: 1, enumerable: false })],
  ])('refuses %s', (_, value) => {
    expect(readFrameMessage(value)).toBeUndefined();
  });

  it('reads each field once: a proxy that changes its answer between reads gets what it said first', () => {
    let reads = 0;
    const proxy = new Proxy(
      { type: 'external-link', href: 'https://example.com/' },
      {
        getOwnPropertyDescriptor(target, key) {
          const descriptor = Reflect.getOwnPropertyDescriptor(target, key);
          if (key === 'href' && descriptor && reads++ > 0) return { ...descriptor, value: { toString: () => 'evil' } };
          return descriptor;
        },
      },
    );
    const read = readFrameMessage(proxy);
    expect(read).toEqual({ type: 'external-link', href: 'https://example.com/' });
    expect(reads).toBe(1);
  });

  const badIds: Array<[string, unknown]> = [
    ['a negative id', -1],
    ['a fractional id', 1.5],
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['an unsafe integer', 2 ** 53],
    ['a numeric string', '1'],
    ['a boxed number', Object(1)],
    ['a bigint', 1n],
    ['null', null],
  ];
  it.each(badIds)('refuses %s as an id', (_, id) => {
    for (const type of ['server-replaced', 'call', 'fetch', 'cancel-body'] as const) expect(readFrameMessage(variant(type, { id }))).toBeUndefined();
  });

  it.each([
    ['server-replaced without id', variant('server-replaced', {}, ['id'])],
    ['server-replaced with ok as a string', variant('server-replaced', { ok: 'true' })],
    ['server-replaced with ok as 1', variant('server-replaced', { ok: 1 })],
    ['pong without at', variant('pong', {}, ['at'])],
    ['pong with at as a string', variant('pong', { at: '1' })],
    ['client-error without a stack', variant('client-error', {}, ['stack'])],
    ['client-error with a message object (toString runs page-side)', variant('client-error', { message: { toString: () => 'x' } })],
    ['client-error with a message too long', variant('client-error', { message: 'x'.repeat(PREVIEW_TEXT_LIMIT + 1) })],
    ['client-error with a stack too long', variant('client-error', { stack: 'x'.repeat(PREVIEW_TEXT_LIMIT + 1) })],
    ['console at another level', variant('console', { level: 'trace' })],
    ['console at level constructor', variant('console', { level: 'constructor' })],
    ['console with a number message', variant('console', { message: 1 })],
    ['console without a message', variant('console', {}, ['message'])],
    ['a call of another kind', variant('call', { kind: 'action' })],
    ['a call without a kind', variant('call', {}, ['kind'])],
    ['a call with a name not a string', variant('call', { name: ['todos.list'] })],
    ['a call with a name too long', variant('call', { name: 'x'.repeat(PREVIEW_NAME_LIMIT + 1) })],
    ['a call without an id', variant('call', {}, ['id'])],
    ['a fetch without a method', variant('fetch', {}, ['method'])],
    ['a fetch with a method carrying a header', variant('fetch', { method: 'GET\r\nx-platform-persona: alice' })],
    ['a fetch with a method with a space', variant('fetch', { method: 'G ET' })],
    ['a fetch with an empty method', variant('fetch', { method: '' })],
    ['a fetch with a method too long', variant('fetch', { method: 'X'.repeat(33) })],
    ['a fetch to another origin', variant('fetch', { path: 'https://evil.example/x' })],
    ['a fetch to a relative path', variant('fetch', { path: 'api/items' })],
    ['a fetch to an empty path', variant('fetch', { path: '' })],
    ['a fetch with a path not a string', variant('fetch', { path: new URL('http://app.local/api') })],
    ['a fetch with headers as an object', variant('fetch', { headers: { 'content-type': 'text/plain' } })],
    ['a fetch with a header of three parts', variant('fetch', { headers: [['a', 'b', 'c']] })],
    ['a fetch with a header value not a string', variant('fetch', { headers: [['content-length', 3]] })],
    ['a fetch with a header as a string', variant('fetch', { headers: ['a: b'] })],
    ['a fetch with a body of bytes, not a buffer', variant('fetch', { body: new Uint8Array(3) })],
    ['a fetch with a text body', variant('fetch', { body: 'hello' })],
    ['a fetch without a body key', variant('fetch', {}, ['body'])],
    ['a fetch with an undefined body', variant('fetch', { body: undefined })],
    ['a download without a name', variant('download', {}, ['name'])],
    ['a download with a name too long', variant('download', { name: 'x'.repeat(PREVIEW_NAME_LIMIT + 1) })],
    ['a download of a relative path', variant('download', { path: 'report.csv' })],
    ['an external link that is not a string', variant('external-link', { href: { href: 'x' } })],
    ['an external link without an href', variant('external-link', {}, ['href'])],
  ])('refuses %s', (_, value) => {
    expect(readFrameMessage(value)).toBeUndefined();
  });
});
