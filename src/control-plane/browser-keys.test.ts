/**
 * The playground's credential as an attacker meets it (issue 29, finding 3), in process: a key bound to
 * a session the page never sees, used only from the origin that bound it, by requests it signed for
 * their method, path and time. Another local server on another port, a stolen key id, a replayed
 * header and a foreign origin are refused; CORS names only the configured playgrounds and allows no
 * cookies, and no answer of the API sets one.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newProofKey, signProof, type ProofPublicKey } from '../core/deploy';
import { createControlPlane, type ControlPlane } from './control-plane';
import { approve, BASE, call, signIn } from '../testing/control-plane';

const PLAYGROUND = 'http://localhost:5173';
const OTHER_PLAYGROUND = 'http://127.0.0.1:4173';
/** A hostile dev server on another port of the same host: same site as the control plane. */
const HOSTILE = 'http://localhost:5174';

let work: string;
let plane: ControlPlane;
let clock = Date.UTC(2026, 2, 1);

type Key = { privateKey: CryptoKey; publicKey: ProofPublicKey; keyId: string };
const json = async (response: Response | Promise<Response>) => (await response).json() as Promise<Record<string, any>>;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'platform-browser-keys-'));
  plane = await createControlPlane({ dataDir: join(work, 'data'), now: () => clock, corsOrigins: [PLAYGROUND, OTHER_PLAYGROUND] });
});

afterAll(async () => {
  await plane.close();
  rmSync(work, { recursive: true, force: true });
});

/** A request signed with `key`, from `origin` (as a browser sends it), at `at`. */
async function signed(key: { privateKey: CryptoKey; keyId: string }, method: string, path: string, options: { origin?: string | null; at?: number; body?: unknown; signedAs?: { method: string; path: string } } = {}): Promise<Response> {
  const url = `${BASE}${path}`;
  const as = options.signedAs ?? { method, path };
  const headers: Record<string, string> = { authorization: await signProof(key.privateKey, key.keyId, as.method, `${BASE}${as.path}`, options.at ?? clock) };
  if (options.origin !== null) headers.origin = options.origin ?? PLAYGROUND;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  return plane.app.request(new Request(url, { method, headers, ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}) }));
}

/** Signs `name` in as the Deploy panel does: a device code a person approves, bound to a new key from `origin`. */
async function panelSignIn(name: string, origin = PLAYGROUND): Promise<Key & { answer: Record<string, any>; text: string }> {
  const { privateKey, publicKey } = await newProofKey();
  const started = await json(call(plane, 'POST', '/v0/auth/device', { body: {}, headers: { origin } }));
  expect((await approve(plane, started.userCode, name)).status).toBe(200);
  const response = await call(plane, 'POST', '/v0/auth/browser/device', { body: { deviceCode: started.deviceCode, publicKey }, headers: { origin } });
  const text = await response.text();
  expect(response.status, text).toBe(200);
  const answer = JSON.parse(text) as Record<string, any>;
  return { privateKey, publicKey, keyId: answer.keyId, answer, text };
}

describe('the playground key, as an attacker meets it', () => {
  it('binds a device sign-in to a key and answers no secret: no token, no cookie', async () => {
    const key = await panelSignIn('ada');
    expect(key.answer).toMatchObject({ builder: { name: 'ada' }, credential: { kind: 'session' }, keyId: expect.stringMatching(/^xbk_/) });
    expect(key.text).not.toMatch(/xbs_|xst_/);
    expect(key.answer.token).toBeUndefined();
    expect(await json(signed(key, 'GET', '/v0/auth/whoami'))).toMatchObject({ builder: { name: 'ada' }, credential: { kind: 'session' } });
    // The session exists only as the key's: it was made, and its hash is all that is kept.
    const row = (await plane.context.records.get('SELECT credentialHash, origin FROM browser_keys WHERE keyId = ?', [key.keyId]))!;
    expect(row.origin).toBe(PLAYGROUND);
    expect((await plane.context.records.get('SELECT 1 AS ok FROM sessions WHERE tokenHash = ? AND revokedAt IS NULL', [row.credentialHash!]))).toEqual({ ok: 1 });
  });

  it('refuses a signed request from any origin but the one the key was bound to', async () => {
    const key = await panelSignIn('bea');
    // A page on another port of localhost (same site), another configured playground, no Origin at all (a navigation, a tool).
    for (const origin of [HOSTILE, OTHER_PLAYGROUND, 'null']) {
      const refused = await json(signed(key, 'GET', '/v0/auth/whoami', { origin }));
      expect(refused.error.code, origin).toBe('foreign_origin');
    }
    expect((await json(signed(key, 'GET', '/v0/auth/whoami', { origin: null }))).error.code).toBe('foreign_origin');
    expect((await signed(key, 'POST', '/v0/apps', { origin: HOSTILE, body: { name: 'evil' } })).status).toBe(403);
    expect((await plane.context.records.get("SELECT 1 FROM apps WHERE name = 'evil'"))).toBeUndefined();
  });

  it('binds only from a configured playground origin, and leaves the code unspent when it refuses', async () => {
    const { publicKey } = await newProofKey();
    const started = await json(call(plane, 'POST', '/v0/auth/device', { body: {} }));
    expect((await approve(plane, started.userCode, 'cyd')).status).toBe(200);
    for (const headers of [{ origin: HOSTILE }, {} as Record<string, string>, { origin: 'http://localhost:5173.evil.example' }]) {
      expect((await json(call(plane, 'POST', '/v0/auth/browser/device', { body: { deviceCode: started.deviceCode, publicKey }, headers }))).error.code).toBe('foreign_origin');
    }
    // A private key, or not a key, is refused before the code is spent.
    const body = (publicKey: unknown) => ({ body: { deviceCode: started.deviceCode, publicKey }, headers: { origin: PLAYGROUND } });
    expect((await json(call(plane, 'POST', '/v0/auth/browser/device', body({ ...publicKey, d: publicKey.x })))).error.code).toBe('invalid_request');
    expect((await json(call(plane, 'POST', '/v0/auth/browser/device', body({ ...publicKey, x: 'A'.repeat(43) })))).error.code).toBe('invalid_request');
    expect(await json(call(plane, 'POST', '/v0/auth/browser/device', body(publicKey)))).toMatchObject({ builder: { name: 'cyd' } });
  });

  it('covers the method, the path and the time: a key id alone, a replayed or re-aimed header, another key, are refused', async () => {
    const key = await panelSignIn('dot');
    const created = await json(signed(key, 'POST', '/v0/apps', { body: { name: 'mine' } }));
    expect(created.app.name).toBe('mine');
    const refused = async (response: Promise<Response>) => (await json(response)).error.code as string;
    // The header of GET /v0/apps used for POST /v0/apps, or for another path.
    expect(await refused(signed(key, 'POST', '/v0/apps', { body: { name: 'x' }, signedAs: { method: 'GET', path: '/v0/apps' } }))).toBe('unauthorized');
    expect(await refused(signed(key, 'GET', `/v0/apps/${created.app.id}/deployments`, { signedAs: { method: 'GET', path: `/v0/apps/${created.app.id}` } }))).toBe('unauthorized');
    // Signed long ago, or in the future.
    expect(await refused(signed(key, 'GET', '/v0/apps', { at: clock - 121_000 }))).toBe('unauthorized');
    expect(await refused(signed(key, 'GET', '/v0/apps', { at: clock + 121_000 }))).toBe('unauthorized');
    // The key id with another key's signature; the key id as a bearer; a header without a signature.
    const other = await newProofKey();
    expect(await refused(signed({ privateKey: other.privateKey, keyId: key.keyId }, 'GET', '/v0/apps'))).toBe('unauthorized');
    expect(await refused(call(plane, 'GET', '/v0/apps', { token: key.keyId, headers: { origin: PLAYGROUND } }))).toBe('unauthorized');
    expect(await refused(call(plane, 'GET', '/v0/apps', { headers: { origin: PLAYGROUND, authorization: `Proof ${key.keyId} ${clock}` } }))).toBe('unauthorized');
  });

  it('binds a pasted token as what it is, once, from the playground: a service token stays one', async () => {
    const session = await signIn(plane, 'eve');
    const minted = await json(call(plane, 'POST', '/v0/tokens', { token: session, body: { name: 'ci' } }));
    const { privateKey, publicKey } = await newProofKey();
    expect((await json(call(plane, 'POST', '/v0/auth/browser/token', { token: minted.secret, body: { publicKey }, headers: { origin: HOSTILE } }))).error.code).toBe('foreign_origin');
    const bound = await call(plane, 'POST', '/v0/auth/browser/token', { token: minted.secret, body: { publicKey }, headers: { origin: PLAYGROUND } });
    const text = await bound.text();
    expect(text).not.toMatch(/xbs_|xst_/);
    const key = { privateKey, keyId: (JSON.parse(text) as { keyId: string }).keyId };
    expect(await json(signed(key, 'GET', '/v0/auth/whoami'))).toMatchObject({ builder: { name: 'eve' }, credential: { kind: 'service-token' } });
    expect((await json(signed(key, 'POST', '/v0/tokens', { body: { name: 'more' } }))).error.code).toBe('interactive_required');
    // A key does not bind another key.
    const next = await newProofKey();
    expect((await json(signed(key, 'POST', '/v0/auth/browser/token', { body: { publicKey: next.publicKey } }))).error.code).toBe('unauthorized');
    // Revoking the token ends the key with it.
    await call(plane, 'DELETE', `/v0/tokens/${minted.token.id}`, { token: session });
    expect((await json(signed(key, 'GET', '/v0/auth/whoami'))).error.code).toBe('unauthorized');
  });

  it('signs out: the key and the session behind it end', async () => {
    const key = await panelSignIn('fay');
    const hash = (await plane.context.records.get('SELECT credentialHash FROM browser_keys WHERE keyId = ?', [key.keyId]))!.credentialHash!;
    expect((await json(signed(key, 'POST', '/v0/auth/logout'))).revoked).toBe(true);
    expect((await json(signed(key, 'GET', '/v0/auth/whoami'))).error.code).toBe('unauthorized');
    expect((await plane.context.records.get('SELECT revokedAt FROM sessions WHERE tokenHash = ?', [hash]))!.revokedAt).not.toBeNull();
  });

  it('ends with the session it is bound to: past 30 days it is refused as expired', async () => {
    const key = await panelSignIn('gus');
    clock += plane.context.sessionTtlMs + 1;
    const refused = await json(signed(key, 'GET', '/v0/auth/whoami'));
    expect(refused.error).toMatchObject({ code: 'credential_expired', credential: 'session' });
  });
});

describe('CORS on the API', () => {
  const preflight = (origin: string) =>
    plane.app.request(new Request(`${BASE}/v0/apps`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' } }));

  it('names only the configured playgrounds, never `*` nor an echo, and never allows credentials (cookies)', async () => {
    for (const origin of [PLAYGROUND, OTHER_PLAYGROUND]) {
      const answer = await preflight(origin);
      expect(answer.headers.get('access-control-allow-origin')).toBe(origin);
      expect(answer.headers.get('access-control-allow-credentials')).toBeNull();
    }
    for (const origin of [HOSTILE, 'null', 'http://localhost:5173.evil.example']) {
      const answer = await preflight(origin);
      expect(answer.headers.get('access-control-allow-origin'), origin).toBeNull();
      expect(answer.headers.get('access-control-allow-credentials')).toBeNull();
      const simple = await call(plane, 'GET', '/v0/health', { headers: { origin } });
      expect(simple.headers.get('access-control-allow-origin'), origin).toBeNull();
    }
  });

  it('sets no cookie on any answer of a playground sign-in', async () => {
    const { publicKey } = await newProofKey();
    const started = await call(plane, 'POST', '/v0/auth/device', { body: {}, headers: { origin: PLAYGROUND } });
    expect(started.headers.get('set-cookie')).toBeNull();
    const { deviceCode, userCode } = (await started.json()) as { deviceCode: string; userCode: string };
    await approve(plane, userCode, 'hal');
    const bound = await call(plane, 'POST', '/v0/auth/browser/device', { body: { deviceCode, publicKey }, headers: { origin: PLAYGROUND } });
    expect(bound.status).toBe(200);
    expect(bound.headers.get('set-cookie')).toBeNull();
  });
});
