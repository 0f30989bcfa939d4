import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { describe, expect, it } from 'vitest';
import { hmacSha256Hex, sha256Hex } from '../../core/hash';
import { IdentityVerifier, signIdentity } from '../../core/host';
import { nodeSha256 } from './hash';

describe("Node's SHA-256 and HMAC for the core's digests", () => {
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

  it('gives RFC 4231 test case 2 as the core\'s HMAC-SHA-256, for text and bytes', () => {
    const key = new TextEncoder().encode('Jefe');
    expect(hmacSha256Hex(key, 'what do ya want for nothing?')).toBe('5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843');
    expect(hmacSha256Hex(key, new TextEncoder().encode('what do ya want for nothing?'))).toBe('5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843');
  });

  it('signs identities that the engine verifies with Web Crypto, the body hash included, and no other key does', async () => {
    const key = new Uint8Array(32).fill(7);
    const body = new TextEncoder().encode('{"input":{}}');
    const header = signIdentity(key, { auth: { appUserId: 'guest:x' } as never, url: 'http://a.localhost/x', method: 'post', body, sequence: 1 });
    const verifier = new IdentityVerifier(key);
    const identity = await verifier.verify(header);
    expect(identity?.method).toBe('POST');
    expect(identity?.bodyHash).toBe(await verifier.bodyHash(body));
    expect(await new IdentityVerifier(new Uint8Array(32).fill(8)).verify(header)).toBeUndefined();
  });
});
