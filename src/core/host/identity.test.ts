import { describe, expect, it } from 'vitest';
import { personaAuth } from '../runtime';
import { bodyHash, IdentityVerifier, SequenceWindow, signIdentity } from './identity';

const key = new Uint8Array(32).fill(7);
const auth = personaAuth('app', 'alice', 's1');
const body = new TextEncoder().encode('{"input":{}}');

describe('signed identity', () => {
  it('verifies what was signed with the key, and nothing edited, forged, foreign or expired', async () => {
    const verify = (withKey: Uint8Array, value: string | null, now: number) => new IdentityVerifier(withKey).verify(value, now);
    const header = signIdentity(key, { auth, url: 'http://app.localhost/api/x', method: 'post', body, sequence: 4 }, 1000);
    expect(await verify(key, header, 1000)).toEqual({
      auth: JSON.parse(JSON.stringify(auth)),
      url: 'http://app.localhost/api/x',
      method: 'POST',
      bodyHash: bodyHash(body),
      sequence: 4,
      expiresAt: 61_000,
    });
    const [payload, tag] = header.split('.');
    expect(await verify(key, `${payload!.replace('alice', 'bob__')}.${tag}`, 1000)).toBeUndefined();
    expect(await verify(key, `${payload!.replace('POST', 'GET_')}.${tag}`, 1000)).toBeUndefined();
    expect(await verify(new Uint8Array(32).fill(8), header, 1000)).toBeUndefined();
    expect(await verify(key, header, 61_001)).toBeUndefined();
    for (const bad of [null, '', 'x', '%.y', `${payload}.`]) expect(await verify(key, bad, 1000)).toBeUndefined();
  });

  it('names no body for a request without one, and tells bodies apart', () => {
    expect(bodyHash(undefined)).toBe('');
    expect(bodyHash(new Uint8Array())).toBe('');
    expect(bodyHash(body)).toMatch(/^[0-9a-f]{64}$/);
    expect(bodyHash(body)).not.toBe(bodyHash(new TextEncoder().encode('{"input":{"a":1}}')));
  });
});

describe('IdentityVerifier, the engine\'s side', () => {
  it('refuses malformed signatures and encodings, and hashes bodies as the signer does', async () => {
    const verifier = new IdentityVerifier(key);
    const header = signIdentity(key, { auth, url: 'http://app.localhost/api/x', method: 'POST', body, sequence: 9 }, 1000);
    const [payload, tag] = header.split('.');
    for (const bad of [`${payload}.${'z'.repeat(64)}`, `%zz.${tag}`]) expect(await verifier.verify(bad, 1000)).toBeUndefined();
    expect(await verifier.bodyHash(body)).toBe(bodyHash(body));
    expect(await verifier.bodyHash(null)).toBe('');
  });
});

describe('SequenceWindow', () => {
  it('accepts each number once, in any order, and refuses what is too old to remember', () => {
    const window = new SequenceWindow();
    expect([3, 1, 2, 0].map((n) => window.accept(n))).toEqual([true, true, true, true]);
    expect([0, 1, 2, 3].map((n) => window.accept(n))).toEqual([false, false, false, false]);
    expect(window.accept(-1)).toBe(false);
    expect(window.accept(1.5)).toBe(false);
    expect(window.accept(200_000)).toBe(true);
    // Far behind the highest: refused even if never seen.
    expect(window.accept(10)).toBe(false);
    expect(window.accept(199_999)).toBe(true);
  });

  it('stays bounded over a long life', () => {
    const window = new SequenceWindow();
    for (let n = 0; n < 300_000; n++) expect(window.accept(n)).toBe(true);
    expect(window.accept(299_999)).toBe(false);
    expect(window.accept(250_000)).toBe(false);
  });
});
