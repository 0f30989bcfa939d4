import { describe, expect, it } from 'vitest';
import { canonicalJson, sha256Hex } from './index';

describe('canonicalJson', () => {
  it('sorts keys at every depth, drops undefined properties, writes undefined in arrays as null', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 2, c: undefined }, undefined], e: 'x' })).toBe('{"a":[{"d":2},null],"b":1,"e":"x"}');
  });

  it('gives arrays of strings, numbers, booleans and null, at any depth, as JSON.stringify does (the fast path)', () => {
    const values: unknown[] = [[], ['a', 'é', '"quoted"\n'], [['src/a.ts', 'ab12'], ['src/b.ts', null]], [1, -0, 2.5, true, false, null, undefined], [[[['deep']]]]];
    for (const value of values) expect(canonicalJson(value)).toBe(JSON.stringify(value));
    // With an object inside, keys are still sorted.
    expect(canonicalJson([['x', { b: 1, a: 2 }]])).toBe('[["x",{"a":2,"b":1}]]');
  });

  it('refuses non-finite numbers, in arrays too', () => {
    expect(() => canonicalJson([1, Number.NaN])).toThrow('non-finite');
    expect(() => canonicalJson([[Infinity]])).toThrow('non-finite');
  });
});

describe('sha256Hex', () => {
  it('digests text as its UTF-8 bytes', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha256Hex(new TextEncoder().encode('é'))).toBe(sha256Hex('é'));
  });
});
