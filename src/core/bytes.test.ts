import { describe, expect, it } from 'vitest';
import { sameContent, sameFiles } from './bytes';

describe('byte helpers', () => {
  it('compares contents: equal texts or equal bytes, never a text with bytes', () => {
    expect(sameContent('a', 'a')).toBe(true);
    expect(sameContent(new Uint8Array([1, 2]), new Uint8Array([1, 2]))).toBe(true);
    expect(sameContent(new Uint8Array([1, 2]), new Uint8Array([1, 3]))).toBe(false);
    expect(sameContent('a', new TextEncoder().encode('a'))).toBe(false);
  });

  it('compares bytes wherever they differ, aligned or not, in the words or in the tail', () => {
    const bytes = Uint8Array.from({ length: 1027 }, (_, i) => (i * 7) & 255);
    for (const at of [0, 3, 4, 513, 1023, 1024, 1026]) {
      const other = bytes.slice();
      other[at] = other[at]! ^ 1;
      expect(sameContent(bytes, other)).toBe(false);
    }
    expect(sameContent(bytes, bytes.slice())).toBe(true);
    // Views at offsets that are not a multiple of four, over larger buffers.
    const buffer = new Uint8Array(1040);
    buffer.set(bytes, 5);
    expect(sameContent(buffer.subarray(5, 5 + 1027), bytes)).toBe(true);
    expect(sameContent(buffer.subarray(4, 4 + 1027), bytes)).toBe(false);
    expect(sameContent(bytes.subarray(0, 1026), bytes)).toBe(false);
  });

  it("compares projects' files: the same paths, each with the same content", () => {
    const files = { 'a.ts': 'a', 'b.png': new Uint8Array([1]) };
    expect(sameFiles(files, { 'b.png': new Uint8Array([1]), 'a.ts': 'a' })).toBe(true);
    expect(sameFiles(files, { 'a.ts': 'a' })).toBe(false);
    expect(sameFiles(files, { 'a.ts': 'a', 'c.png': new Uint8Array([1]) })).toBe(false);
    expect(sameFiles(files, { 'a.ts': 'b', 'b.png': new Uint8Array([1]) })).toBe(false);
  });
});
