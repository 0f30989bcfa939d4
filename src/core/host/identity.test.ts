import { describe, expect, it } from 'vitest';
import { personaAuth } from '../runtime/personas';
import { signIdentity, verifyIdentity } from './identity';

const key = new Uint8Array(32).fill(7);
const auth = personaAuth('app', 'alice', 's1');

describe('signed identity', () => {
  it('verifies what was signed with the key, and nothing edited, forged, foreign or expired', () => {
    const header = signIdentity(key, auth, 'http://app.localhost/api/x', 1000);
    expect(verifyIdentity(key, header, 1000)).toEqual({ auth: JSON.parse(JSON.stringify(auth)), url: 'http://app.localhost/api/x', expiresAt: 61_000 });
    const [payload, tag] = header.split('.');
    expect(verifyIdentity(key, `${payload!.replace('alice', 'bob__')}.${tag}`, 1000)).toBeUndefined();
    expect(verifyIdentity(new Uint8Array(32).fill(8), header, 1000)).toBeUndefined();
    expect(verifyIdentity(key, header, 61_001)).toBeUndefined();
    for (const bad of [null, '', 'x', '%.y', `${payload}.`]) expect(verifyIdentity(key, bad, 1000)).toBeUndefined();
  });
});
