import { beforeAll, describe, expect, it } from 'vitest';
import { nodeSqlDriverFactory } from '../../../adapters/node/sqljs';
import type { SqlDriverFactory } from '../sql-driver';
import { tableConformance } from './conformance';
import { queryPlanConformance } from './query-plans';
import { decodeValue, encodeValue, jsonProblem } from './values';

let factory: SqlDriverFactory;
beforeAll(async () => {
  factory = await nodeSqlDriverFactory();
});

describe('table API conformance (sql.js in Node)', () => {
  it('has cases with unique names', () => {
    const names = tableConformance.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names.length).toBeGreaterThan(30);
  });
  for (const c of tableConformance) it(c.name, () => c.run(factory));
});

describe('query plans (sql.js in Node)', () => {
  for (const c of queryPlanConformance) it(c.name, () => c.run(factory));
});

describe('values', () => {
  it('encodes each type to its SQL value and decodes it back', () => {
    const at = new Date(Date.UTC(2026, 1, 2, 3, 4, 5, 6));
    expect(encodeValue('t', 'f', { type: 'boolean' }, true)).toBe(1);
    expect(encodeValue('t', 'f', { type: 'datetime' }, at)).toBe(at.getTime());
    expect(encodeValue('t', 'f', { type: 'json' }, { a: [1] })).toBe('{"a":[1]}');
    expect(decodeValue({ type: 'boolean' }, 0)).toBe(false);
    expect(decodeValue({ type: 'datetime' }, at.getTime())).toEqual(at);
    expect(decodeValue({ type: 'json' }, '{"a":[1]}')).toEqual({ a: [1] });
    expect(decodeValue({ type: 'string', optional: true }, null)).toBeUndefined();
  });

  it('copies bytes so later changes to the caller\'s array do not leak in', () => {
    const bytes = new Uint8Array([1, 2, 3]);
    const encoded = encodeValue('t', 'f', { type: 'bytes' }, bytes) as Uint8Array;
    bytes[0] = 9;
    expect(Array.from(encoded)).toEqual([1, 2, 3]);
  });

  it('describes what is not JSON', () => {
    expect(jsonProblem({ a: [1, { b: Symbol('x') }] }, 'v')).toBe('v.a[1].b is a symbol');
    expect(jsonProblem({ 'odd key': () => 1 }, 'v')).toBe('v["odd key"] is a function');
    expect(jsonProblem(Object.create(null) as object, 'v')).toBeUndefined();
    const shared = { x: 1 };
    expect(jsonProblem({ a: shared, b: shared }, 'v')).toBeUndefined();
  });
});
