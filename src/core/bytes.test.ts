import { describe, expect, it } from 'vitest';
import { sameContent, sameFiles } from './bytes';

describe('byte helpers', () => {
  it('compares contents: equal texts or equal bytes, never a text with bytes', () => {
    expect(sameContent('a', 'a')).toBe(true);
    expect(sameContent(new Uint8Array([1, 2]), new Uint8Array([1, 2]))).toBe(true);
    expect(sameContent(new Uint8Array([1, 2]), new Uint8Array([1, 3]))).toBe(false);
    expect(sameContent('a', new TextEncoder().encode('a'))).toBe(false);
  });

  it("compares projects' files: the same paths, each with the same content", () => {
    const files = { 'a.ts': 'a', 'b.png': new Uint8Array([1]) };
    expect(sameFiles(files, { 'b.png': new Uint8Array([1]), 'a.ts': 'a' })).toBe(true);
    expect(sameFiles(files, { 'a.ts': 'a' })).toBe(false);
    expect(sameFiles(files, { 'a.ts': 'a', 'c.png': new Uint8Array([1]) })).toBe(false);
    expect(sameFiles(files, { 'a.ts': 'b', 'b.png': new Uint8Array([1]) })).toBe(false);
  });
});
