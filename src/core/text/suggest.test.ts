import { describe, expect, it } from 'vitest';
import { closest, didYouMean, editDistance } from './suggest';

describe('editDistance', () => {
  it('counts insertions, deletions, substitutions and swaps as one edit each', () => {
    expect(editDistance('name', 'name')).toBe(0);
    expect(editDistance('nmae', 'name')).toBe(1);
    expect(editDistance('nam', 'name')).toBe(1);
    expect(editDistance('nxme', 'name')).toBe(1);
    expect(editDistance('', 'abc')).toBe(3);
  });
});

describe('closest', () => {
  const keys = ['format', 'name', 'entrypoints', 'indexes', 'authPolicies', 'queries'];
  it('finds a plausible misspelling, ignoring case', () => {
    expect(closest('nmae', keys)).toBe('name');
    expect(closest('FORMAT', keys)).toBe('format');
    expect(closest('querys', keys)).toBe('queries');
  });
  it('finds a truncation at either end', () => {
    expect(closest('index', keys)).toBe('indexes');
    expect(closest('policies', keys)).toBe('authPolicies');
  });
  it('suggests nothing for a distant word', () => {
    expect(closest('banana', keys)).toBeUndefined();
    expect(didYouMean('zz', keys)).toBeUndefined();
  });
  it('phrases the suggestion', () => {
    expect(didYouMean('nmae', keys)).toBe('Did you mean "name"?');
  });
});
