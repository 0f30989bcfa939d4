import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../core/hash';
import { nodeSha256 } from './hash';

describe("Node's SHA-256 for the core's digests", () => {
  it('gives the digests of the core\'s own SHA-256, for text (UTF-8) and bytes', () => {
    const texts = ['', 'abc', 'é ✓ 😀', 'x'.repeat(100_000)];
    for (const text of texts) {
      const expected = bytesToHex(sha256(new TextEncoder().encode(text)));
      expect(nodeSha256(text)).toBe(expected);
      expect(sha256Hex(text)).toBe(expected);
    }
    const bytes = Uint8Array.from({ length: 1000 }, (_, i) => (i * 7) & 255);
    expect(sha256Hex(bytes)).toBe(bytesToHex(sha256(bytes)));
  });
});
