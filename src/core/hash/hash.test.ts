import { describe, expect, it } from 'vitest';
import { canonicalJson, hmacSha256Hex, sha256Hex } from './index';

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

describe('hmacSha256Hex', () => {
  it('gives RFC 4231 test case 2 for text and for bytes', () => {
    const key = new TextEncoder().encode('Jefe');
    expect(hmacSha256Hex(key, 'what do ya want for nothing?')).toBe('5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843');
    expect(hmacSha256Hex(key, new TextEncoder().encode('what do ya want for nothing?'))).toBe('5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843');
  });
});
