import { describe, expect, it } from 'vitest';
import {
  RuntimeError,
  base64ToBytes,
  bytesToBase64,
  decodeJson,
  decodeValue,
  encodeJson,
  encodeValue,
  isRuntimeError,
  runtimeErrorBody,
  runtimeErrorFromBody,
} from './wire';

const roundTrip = (value: unknown): unknown => decodeJson(encodeJson(value));

describe('encodeValue / decodeValue', () => {
  it('passes JSON primitives, arrays and plain objects through unchanged', () => {
    const value = { a: 1, b: 'x', c: true, d: null, e: [1, 'two', [false]], f: { g: { h: -0.5 } } };
    expect(encodeValue(value)).toEqual(value);
    expect(roundTrip(value)).toEqual(value);
  });

  it('tags Dates and Uint8Arrays and restores them', () => {
    const at = new Date('2024-05-06T07:08:09.123Z');
    const bytes = new Uint8Array([0, 1, 2, 253, 254, 255]);
    expect(encodeValue({ at, bytes })).toEqual({ at: { $date: '2024-05-06T07:08:09.123Z' }, bytes: { $bytes: 'AAEC/f7/' } });
    const back = roundTrip({ at, bytes }) as { at: Date; bytes: Uint8Array };
    expect(back.at).toBeInstanceOf(Date);
    expect(back.at.getTime()).toBe(at.getTime());
    expect(back.bytes).toBeInstanceOf(Uint8Array);
    expect([...back.bytes]).toEqual([...bytes]);
  });

  it('round-trips tags nested in arrays and objects', () => {
    const value = { list: [new Date(0), { inner: [new Uint8Array([7])] }], top: new Uint8Array(0) };
    const back = roundTrip(value) as { list: [Date, { inner: [Uint8Array] }]; top: Uint8Array };
    expect(back.list[0]).toEqual(new Date(0));
    expect([...back.list[1].inner[0]]).toEqual([7]);
    expect(back.top.length).toBe(0);
  });

  it('round-trips a top-level Date and byte string', () => {
    expect(roundTrip(new Date(86_400_000))).toEqual(new Date(86_400_000));
    expect([...(roundTrip(new Uint8Array([1, 2, 3])) as Uint8Array)]).toEqual([1, 2, 3]);
  });

  it('escapes user data that looks like a tag', () => {
    const value = { $date: 'x' };
    expect(encodeValue(value)).toEqual({ $escape: { $date: 'x' } });
    expect(encodeJson(value)).toBe('{"$escape":{"$date":"x"}}');
    expect(roundTrip(value)).toEqual({ $date: 'x' });
    expect(roundTrip({ $bytes: 'AAAA' })).toEqual({ $bytes: 'AAAA' });
    expect(roundTrip({ $escape: { a: 1 } })).toEqual({ $escape: { a: 1 } });
    expect(roundTrip({ $other: 1 })).toEqual({ $other: 1 });
  });

  it('escapes only objects whose single key starts with $', () => {
    expect(encodeValue({ $date: 'x', other: 1 })).toEqual({ $date: 'x', other: 1 });
    expect(encodeValue({ price$: 1 })).toEqual({ price$: 1 });
    // Undefined properties are dropped first, so this one is single-keyed and escaped.
    expect(encodeValue({ $date: 'x', other: undefined })).toEqual({ $escape: { $date: 'x' } });
  });

  it('escapes nested look-alikes and keeps real tags inside escapes', () => {
    const value = { a: [{ $date: new Date(0) }], b: { $escape: { $bytes: new Uint8Array([1]) } } };
    const encoded = encodeValue(value);
    expect(encoded).toEqual({
      a: [{ $escape: { $date: { $date: '1970-01-01T00:00:00.000Z' } } }],
      b: { $escape: { $escape: { $escape: { $bytes: { $bytes: 'AQ==' } } } } },
    });
    const back = decodeValue(JSON.parse(JSON.stringify(encoded))) as typeof value;
    expect(back.a[0]?.$date).toEqual(new Date(0));
    expect([...back.b.$escape.$bytes]).toEqual([1]);
  });

  it('drops undefined properties', () => {
    expect(encodeValue({ a: 1, b: undefined })).toEqual({ a: 1 });
    expect(encodeJson({ result: undefined })).toBe('{}');
    expect(encodeValue(undefined)).toBeUndefined();
  });

  it('keeps __proto__ as an own property instead of a prototype', () => {
    const decoded = decodeJson('{"__proto__":{"polluted":true},"a":1}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(decoded)).toBe(Object.prototype);
    expect(Object.prototype.hasOwnProperty.call(decoded, '__proto__')).toBe(true);
    expect((decoded as { polluted?: unknown }).polluted).toBeUndefined();
    const encoded = encodeValue(JSON.parse('{"__proto__":{"x":1}}')) as Record<string, unknown>;
    expect(Object.prototype.hasOwnProperty.call(encoded, '__proto__')).toBe(true);
  });

  it('accepts objects with a null prototype', () => {
    const bare = Object.assign(Object.create(null) as object, { a: 1 });
    expect(encodeValue(bare)).toEqual({ a: 1 });
  });

  it('passes numbers as they are; JSON turns non-finite ones into null', () => {
    expect(encodeValue(Number.NaN)).toBeNaN();
    expect(encodeJson({ n: Number.POSITIVE_INFINITY })).toBe('{"n":null}');
  });
});

describe('refusals', () => {
  class Point {
    constructor(readonly x: number) {}
  }

  it.each([
    ['a function', { handler: () => 1 }, /function at \$\.handler/],
    ['a symbol', { s: Symbol('x') }, /symbol at \$\.s/],
    ['a bigint', { list: [1, 2n] }, /bigint at \$\.list\[1\]/],
    ['a Map', { m: new Map() }, /a Map at \$\.m/],
    ['a Set', [new Set()], /a Set at \$\[0\]/],
    ['a class instance', { p: new Point(1) }, /an instance of Point at \$\.p/],
    ['an invalid Date', { d: new Date(Number.NaN) }, /invalid Date at \$\.d/],
    ['undefined in an array', { a: [undefined] }, /undefined at \$\.a\[0\]/],
    ['an array hole', { a: [1, , 3] }, /array hole at \$\.a\[1\]/],
    ['a non-identifier key', { 'a b': { c: () => 1 } }, /at \$\["a b"\]\.c/],
    ['another typed array', { f: new Float64Array(1) }, /a Float64Array at \$\.f/],
  ])('refuses %s with a TypeError naming the path', (_label, value, message) => {
    expect(() => encodeValue(value)).toThrow(TypeError);
    expect(() => encodeValue(value)).toThrow(message);
  });

  it('refuses cycles', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    expect(() => encodeValue(cyclic)).toThrow(/circular reference at \$\.self/);
  });

  it('allows the same object twice when it is not a cycle', () => {
    const shared = { a: 1 };
    expect(encodeValue({ x: shared, y: shared })).toEqual({ x: { a: 1 }, y: { a: 1 } });
  });

  it('refuses a bare undefined as a JSON document', () => {
    expect(() => encodeJson(undefined)).toThrow(TypeError);
  });

  it('refuses malformed tags on decode, naming the path', () => {
    expect(() => decodeValue({ a: { $date: 'not a date' } })).toThrow(/\$date at \$\.a/);
    expect(() => decodeValue({ $date: 5 })).toThrow(TypeError);
    expect(() => decodeValue([{ $bytes: '***' }])).toThrow(/\$bytes at \$\[0\]/);
    expect(() => decodeValue({ $escape: [1] })).toThrow(/\$escape at \$/);
  });
});

describe('base64', () => {
  it('round-trips large byte arrays (chunked)', () => {
    const bytes = new Uint8Array(200_000);
    for (let index = 0; index < bytes.length; index += 1) bytes[index] = (index * 31) % 256;
    const text = bytesToBase64(bytes);
    expect(text.length).toBe(Math.ceil(bytes.length / 3) * 4);
    const back = base64ToBytes(text);
    expect(back.length).toBe(bytes.length);
    expect(back.every((byte, index) => byte === bytes[index])).toBe(true);
  });

  it('matches the standard alphabet and padding', () => {
    expect(bytesToBase64(new TextEncoder().encode('hello'))).toBe('aGVsbG8=');
    expect(bytesToBase64(new Uint8Array(0))).toBe('');
    expect([...base64ToBytes('aGk=')]).toEqual([104, 105]);
  });
});

describe('RuntimeError', () => {
  const shape = { status: 400, code: 'operation_failed', message: 'boom', errorId: 'err_1' };

  it('carries the runtime error fields and is recognised by brand', () => {
    const error = new RuntimeError(shape);
    expect(error).toBeInstanceOf(Error);
    expect(error.message).toBe('boom');
    expect(error.toJSON()).toEqual(shape);
    expect(isRuntimeError(error)).toBe(true);
    expect(isRuntimeError({ ...shape })).toBe(false);
    const foreign = Object.assign(Object.create(null) as object, shape);
    Object.defineProperty(foreign, Symbol.for('platform.RuntimeError'), { value: true });
    expect(isRuntimeError(foreign)).toBe(true);
  });

  it('converts to and from the error body', () => {
    const body = runtimeErrorBody(shape);
    expect(body).toEqual({ protocol: 'platform.runtime.v0', error: { code: 'operation_failed', message: 'boom', errorId: 'err_1' } });
    expect(runtimeErrorFromBody(400, JSON.parse(JSON.stringify(body)))?.toJSON()).toEqual(shape);
    expect(runtimeErrorFromBody(500, { error: 'nope' })).toBeUndefined();
  });
});
