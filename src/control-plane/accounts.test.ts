/**
 * Accounts and passkeys under attack: replayed assertions, answers for another rpId or origin or for a
 * challenge never given, a counter gone backwards, a stranger's passkey claiming another account, a
 * non-builder approving, approving without signing in, wrong operator secrets (per code, per sign-in),
 * and the lifetimes of challenges and browser sessions. Passkeys are a software authenticator's
 * (src/testing/authenticator.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNT_SESSION_TTL_MS, CEREMONIES_PER_MINUTE, CHALLENGE_TTL_MS, WRONG_SECRETS_PER_SIGN_IN } from './accounts';
import { WRONG_SECRETS_PER_CODE } from './auth-routes';
import { createControlPlane, type ControlPlane } from './control-plane';
import { SoftAuthenticator } from '../testing/authenticator';
import { assertPasskey, authenticatorFor, becomeBuilder, BASE, call, passkeySession, reach, registerAccount, signIn, type PasskeySession } from '../testing/control-plane';

let work: string;
let plane: ControlPlane;
let clock = Date.UTC(2026, 6, 1);
const browser = () => reach(plane);
const body = async (response: Response | Promise<Response>) => (await (await response).json()) as Record<string, any>;
const errorCode = async (response: Response | Promise<Response>) => (await body(response)).error?.code as string | undefined;
/** A refusal page's stable code (`<main data-code>`). */
const pageCode = async (response: Response) => /<main[^>]* data-code="([a-z_]+)"/.exec(await response.text())?.[1];

const signInOptions = async () => (await body(browser().send('/account/signin/options', { json: {} }))).options as PublicKeyCredentialRequestOptionsJSON;
const registerOptions = async (name: string) => (await body(browser().send('/account/register/options', { json: { name } }))).options as PublicKeyCredentialCreationOptionsJSON;
const verifySignIn = (response: unknown) => browser().send('/account/signin/verify', { json: { response } });
const verifyRegistration = (response: unknown, cookie?: string) => browser().send('/account/register/verify', { json: { response }, ...(cookie ? { cookie } : {}) });
const startDevice = async () => (await body(call(plane, 'POST', '/v0/auth/device', { body: {} }))) as { deviceCode: string; userCode: string };
const poll = (deviceCode: string) => body(call(plane, 'POST', '/v0/auth/device/token', { body: { deviceCode } }));
const decide = (session: PasskeySession | undefined, form: Record<string, string>) => browser().send('/device', { form, ...(session ? { cookie: session.cookie } : {}) });

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'platform-accounts-'));
  plane = await createControlPlane({ dataDir: join(work, 'data'), now: () => clock });
});

afterAll(async () => {
  await plane.close();
  rmSync(work, { recursive: true, force: true });
});

describe('registration', () => {
  it('makes an account with a passkey for the public origin, signed in, not a builder', async () => {
    const options = await registerOptions('ada');
    expect(options.rp.id).toBe('localhost');
    expect(options.authenticatorSelection).toMatchObject({ residentKey: 'required', userVerification: 'preferred' });
    expect(options.attestation).toBe('none');
    const { response } = authenticatorFor('localhost').create(options, BASE);
    const verified = await verifyRegistration(response);
    expect(verified.status).toBe(200);
    expect(verified.headers.get('set-cookie')).toMatch(/^platform_account=xas_[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=3600$/);
    expect((await body(verified)).account).toMatchObject({ id: expect.stringMatching(/^acc_/), name: 'ada', builder: false });
    const stored = (await plane.context.records.get('SELECT p.* FROM passkeys p JOIN accounts a ON a.id = p.accountId WHERE a.name = ?', ['ada']))!;
    expect(stored).toMatchObject({ credentialId: response.id, counter: 0, transports: '["internal"]' });
  });

  it('refuses a name taken or malformed, and a second account with the same name at verification', async () => {
    expect(await errorCode(browser().send('/account/register/options', { json: { name: 'ada' } }))).toBe('name_taken');
    expect(await errorCode(browser().send('/account/register/options', { json: { name: 'A' } }))).toBe('name_invalid');
    expect(await errorCode(browser().send('/account/register/options', { json: {} }))).toBe('name_invalid');
    // Two people racing for one name: the second to answer is refused.
    const first = await registerOptions('twin');
    const second = await registerOptions('twin');
    expect((await verifyRegistration(authenticatorFor('localhost').create(first, BASE).response)).status).toBe(200);
    const late = await verifyRegistration(authenticatorFor('localhost').create(second, BASE).response);
    expect(late.status).toBe(409);
    expect(await errorCode(late)).toBe('name_taken');
  });

  it('refuses a response for a challenge never issued, and one for another origin or rpId', async () => {
    const authenticator = new SoftAuthenticator();
    const options = await registerOptions('eve');
    const forged = authenticator.create({ ...options, challenge: 'bmV2ZXItaXNzdWVk' }, BASE);
    expect(await errorCode(verifyRegistration(forged.response))).toBe('challenge_unknown');
    const phished = authenticator.create(await registerOptions('eve'), 'http://localhost.evil.example');
    const refused = await verifyRegistration(phished.response);
    expect(refused.status).toBe(400);
    expect(await body(refused)).toMatchObject({ error: { code: 'verification_failed', message: expect.stringContaining('origin') } });
    const otherRp = authenticator.create(await registerOptions('eve'), BASE, { rpId: 'evil.example' });
    expect(await body(verifyRegistration(otherRp.response))).toMatchObject({ error: { code: 'verification_failed', message: expect.stringContaining('RP ID') } });
    // Nothing was made.
    expect((await plane.context.records.get('SELECT 1 FROM accounts WHERE name = ?', ['eve']))).toBeUndefined();
    expect(await errorCode(verifyRegistration({ response: {} }))).toBe('invalid_request');
  });

  it('binds a challenge to its ceremony: a sign-in challenge cannot register, a registration challenge cannot sign in', async () => {
    const authenticator = new SoftAuthenticator();
    const signInChallenge = (await signInOptions()).challenge;
    const registration = authenticator.create({ ...(await registerOptions('mixer')), challenge: signInChallenge }, BASE);
    expect(await errorCode(verifyRegistration(registration.response))).toBe('challenge_unknown');
    const ada = await passkeySession(plane, 'ada');
    const options = await registerOptions('mixer');
    const assertion = authenticatorFor('localhost').get({ challenge: options.challenge, rpId: 'localhost' }, BASE, ada.credential);
    expect(await errorCode(verifySignIn(assertion))).toBe('challenge_unknown');
  });

  it('lets a challenge be answered for 5 minutes only', async () => {
    const options = await registerOptions('slow');
    clock += CHALLENGE_TTL_MS + 1;
    expect(await errorCode(verifyRegistration(authenticatorFor('localhost').create(options, BASE).response))).toBe('challenge_expired');
  });

  it('adds a second passkey only for the signed-in account that asked, and both sign in', async () => {
    const ada = await passkeySession(plane, 'ada');
    expect(await errorCode(browser().send('/account/passkeys/options', { json: {} }))).toBe('not_signed_in');
    const options = (await body(browser().send('/account/passkeys/options', { json: {}, cookie: ada.cookie }))).options as PublicKeyCredentialCreationOptionsJSON;
    expect(options.user.name).toBe('ada');
    expect(options.excludeCredentials?.map((c) => c.id)).toEqual([ada.credential.id]);
    const laptop = new SoftAuthenticator();
    const added = laptop.create(options, BASE);
    // Another browser (no session, or another account's) cannot finish it.
    expect(await errorCode(verifyRegistration(added.response))).toBe('not_signed_in');
    const again = laptop.create((await body(browser().send('/account/passkeys/options', { json: {}, cookie: ada.cookie }))).options, BASE);
    expect((await body(verifyRegistration(again.response, ada.cookie))).account.name).toBe('ada');
    const signedIn = await assertPasskey(plane, again.credential);
    expect(signedIn.session?.account).toMatchObject({ name: 'ada' });
    expect(Number((await plane.context.records.get("SELECT count(*) AS n FROM passkeys p JOIN accounts a ON a.id = p.accountId WHERE a.name = 'ada'"))!.n)).toBe(2);
  });
});

describe('signing in with a passkey', () => {
  it('refuses a replayed assertion (its challenge was used)', async () => {
    const ada = await passkeySession(plane, 'ada');
    const assertion = authenticatorFor('localhost').get(await signInOptions(), BASE, ada.credential);
    expect((await verifySignIn(assertion)).status).toBe(200);
    const replayed = await verifySignIn(assertion);
    expect(replayed.status).toBe(400);
    expect(await errorCode(replayed)).toBe('challenge_unknown');
  });

  it('refuses an assertion made for another rpId or origin, or for a challenge never given', async () => {
    const ada = await passkeySession(plane, 'ada');
    const authenticator = authenticatorFor('localhost');
    expect(await body(verifySignIn(authenticator.get(await signInOptions(), BASE, ada.credential, { rpId: 'evil.example' })))).toMatchObject({ error: { code: 'verification_failed', message: expect.stringContaining('RP ID') } });
    expect(await body(verifySignIn(authenticator.get(await signInOptions(), 'http://evil.example', ada.credential)))).toMatchObject({ error: { code: 'verification_failed', message: expect.stringContaining('origin') } });
    // A hosted app's origin is another origin too (see docs/control-plane.md: rpID and app origins).
    expect(await errorCode(verifySignIn(authenticator.get(await signInOptions(), 'http://app-x--preview.localhost:4310', ada.credential)))).toBe('verification_failed');
    expect(await errorCode(verifySignIn(authenticator.get(await signInOptions(), BASE, ada.credential, { challenge: 'bmV2ZXItaXNzdWVk' })))).toBe('challenge_unknown');
  });

  it('refuses a signature counter that goes backwards or stays, and a bad signature', async () => {
    const ada = await passkeySession(plane, 'ada');
    const authenticator = authenticatorFor('localhost');
    expect((await verifySignIn(authenticator.get(await signInOptions(), BASE, ada.credential, { counter: 50 }))).status).toBe(200);
    const back = await verifySignIn(authenticator.get(await signInOptions(), BASE, ada.credential, { counter: 49 }));
    expect(back.status).toBe(401);
    expect(await body(back)).toMatchObject({ error: { code: 'counter_regressed', message: expect.stringContaining('from 50 to 49') } });
    expect(await errorCode(verifySignIn(authenticator.get(await signInOptions(), BASE, ada.credential, { counter: 50 })))).toBe('counter_regressed');
    expect((await plane.context.records.get('SELECT counter FROM passkeys WHERE credentialId = ?', [ada.credential.id]))!.counter).toBe(50);
    const forged = authenticator.get(await signInOptions(), BASE, ada.credential, { counter: 51 });
    forged.response.signature = authenticator.get(await signInOptions(), BASE, ada.credential, { counter: 52 }).response.signature;
    expect(await errorCode(verifySignIn(forged))).toBe('verification_failed');
  });

  it('refuses a passkey it does not know, and one that names another account', async () => {
    const stranger = new SoftAuthenticator().create(await registerOptions('ghost'), BASE).credential;
    expect(await errorCode(verifySignIn(new SoftAuthenticator().get(await signInOptions(), BASE, stranger)))).toBe('passkey_unknown');
    const ada = await passkeySession(plane, 'ada');
    const twin = (await plane.context.records.get("SELECT userHandle FROM accounts WHERE name = 'twin'"))!;
    const claimed = authenticatorFor('localhost').get(await signInOptions(), BASE, { ...ada.credential, userHandle: String(twin.userHandle) });
    expect(await errorCode(verifySignIn(claimed))).toBe('verification_failed');
  });

  it('keeps the browser signed in for an hour, not longer; a forged cookie is nobody', async () => {
    const { session } = await assertPasskey(plane, (await passkeySession(plane, 'ada')).credential);
    const who = (cookie: string) => browser().send('/account/session', { method: 'GET', cookie });
    expect((await body(who(session!.cookie))).account.name).toBe('ada');
    expect(await errorCode(who(`platform_account=xas_${'A'.repeat(43)}`))).toBe('not_signed_in');
    clock += ACCOUNT_SESSION_TTL_MS;
    expect(await errorCode(who(session!.cookie))).toBe('not_signed_in');
  });

  it('refuses every POST from another origin or site', async () => {
    for (const headers of [{ origin: 'http://evil.example' }, { 'sec-fetch-site': 'cross-site' }] as Record<string, string>[]) {
      for (const path of ['/account/register/options', '/account/signin/options', '/account/signin/verify', '/account/register/verify', '/account/passkeys/options']) {
        const refused = await browser().send(path, { json: { name: 'zed' }, headers });
        expect(refused.status).toBe(403);
        expect(await errorCode(refused)).toBe('foreign_origin');
      }
    }
  });

  it('bounds the ceremonies one address may start in a minute', async () => {
    clock += 120_000;
    for (let i = 0; i < CEREMONIES_PER_MINUTE; i++) expect((await browser().send('/account/signin/options', { json: {} })).status).toBe(200);
    const refused = await browser().send('/account/signin/options', { json: {} });
    expect(refused.status).toBe(429);
    expect((await body(refused)).error).toMatchObject({ code: 'rate_limited', resetAt: new Date(clock + 60_000).toISOString() });
    expect(refused.headers.get('retry-after')).toBe('60');
    clock += 60_001;
  });
});

describe('approving a device code', () => {
  it('refuses approving without signing in, and says so', async () => {
    const device = await startDevice();
    const refused = await decide(undefined, { code: device.userCode, decision: 'approve', secret: plane.secrets.operatorSecret });
    expect(refused.status).toBe(401);
    expect(await pageCode(refused)).toBe('not_signed_in');
    expect((await poll(device.deviceCode)).error.code).toBe('authorization_pending');
    const page = await (await browser().send(`/device?code=${device.userCode}`, { method: 'GET' })).text();
    expect(page).toContain('Sign in with a passkey');
    expect(page).not.toContain('name="secret"');
  });

  it('refuses a non-builder (approve or deny), who may become one here with the operator secret', async () => {
    const device = await startDevice();
    const bob = await passkeySession(plane, 'bob');
    expect(bob.account.builder).toBe(false);
    const page = await (await browser().send(`/device?code=${device.userCode}`, { method: 'GET', cookie: bob.cookie })).text();
    expect(page).toContain('Signed in as <strong>bob</strong>');
    expect(page).toContain('name="secret"');
    for (const decision of ['approve', 'deny']) {
      const refused = await decide(bob, { code: device.userCode, decision });
      expect(refused.status).toBe(403);
      expect(await pageCode(refused)).toBe('not_builder');
    }
    expect((await poll(device.deviceCode)).error.code).toBe('authorization_pending');
    expect((await decide(bob, { code: device.userCode, decision: 'approve', secret: plane.secrets.operatorSecret })).status).toBe(200);
    expect((await poll(device.deviceCode)).builder.name).toBe('bob');
    expect((await passkeySession(plane, 'bob')).account.builder).toBe(true);
  });

  it('counts wrong operator secrets per code: the fifth spends it, other codes are untouched', async () => {
    const mallory = await passkeySession(plane, 'mallory');
    const theirs = await startDevice();
    const mine = await startDevice();
    for (let i = 1; i < WRONG_SECRETS_PER_CODE; i++) {
      const wrong = await decide(mallory, { code: theirs.userCode, decision: 'approve', secret: `guess-${i}` });
      expect(wrong.status).toBe(403);
      expect(await pageCode(wrong)).toBe('wrong_secret');
    }
    const spent = await decide(mallory, { code: theirs.userCode, decision: 'approve', secret: 'guess-5' });
    expect(spent.status).toBe(429);
    expect(await pageCode(spent)).toBe('secret_attempts_exhausted');
    expect((await poll(theirs.deviceCode)).error.code).toBe('access_denied');
    expect((await decide(mallory, { code: theirs.userCode, decision: 'approve', secret: plane.secrets.operatorSecret })).status).toBe(404);
    const operator = await passkeySession(plane, 'operator');
    expect((await decide(operator, { code: mine.userCode, decision: 'approve', secret: plane.secrets.operatorSecret })).status).toBe(200);
    expect((await poll(mine.deviceCode)).builder.name).toBe('operator');
  });

  it('records the builder who approved, and the terminal signs in as that builder', async () => {
    const token = await signIn(plane, 'grace');
    expect(await body(call(plane, 'GET', '/v0/auth/whoami', { token }))).toMatchObject({ builder: { id: expect.stringMatching(/^bld_/), name: 'grace' } });
  });
});

describe('builder status', () => {
  it('is granted once per account with the operator secret on the account page; wrong secrets end the sign-in at the fifth', async () => {
    const carol = await passkeySession(plane, 'carol');
    for (let i = 1; i < WRONG_SECRETS_PER_SIGN_IN; i++) {
      const wrong = await becomeBuilder(plane, carol, 'wrong');
      expect(wrong.status).toBe(403);
      expect(await pageCode(wrong)).toBe('wrong_secret');
    }
    const ended = await becomeBuilder(plane, carol, 'wrong');
    expect(ended.status).toBe(429);
    expect(await pageCode(ended)).toBe('secret_attempts_exhausted');
    expect(await errorCode(browser().send('/account/session', { method: 'GET', cookie: carol.cookie }))).toBe('not_signed_in');
    // A new passkey sign-in may try again.
    const again = await assertPasskey(plane, carol.credential);
    const granted = await becomeBuilder(plane, again.session!, plane.secrets.operatorSecret);
    expect(granted.status).toBe(200);
    expect(await granted.text()).toContain('carol is now a builder');
    expect((await becomeBuilder(plane, again.session!, 'anything')).status).toBe(200);
    expect((await plane.context.records.get("SELECT builderId FROM accounts WHERE name = 'carol'"))!.builderId).toMatch(/^bld_/);
  });

  it('needs a signed-in account', async () => {
    const refused = await browser().send('/account/builder', { form: { secret: plane.secrets.operatorSecret } });
    expect(refused.status).toBe(401);
    expect(await pageCode(refused)).toBe('not_signed_in');
  });

  it('claims a builder from before accounts by its name, so its apps stay its own', async () => {
    await plane.context.records.run("INSERT INTO builders (id, name, createdAt) VALUES ('bld_legacy', 'legacy', 0)");
    await plane.context.records.run("INSERT INTO apps (id, name, ownerId, state, createdAt) VALUES ('app_aaaaaaaaaaaaaaaaaaaaaaaaaa', 'old', 'bld_legacy', 'active', 0)");
    const token = await signIn(plane, 'legacy');
    expect((await body(call(plane, 'GET', '/v0/auth/whoami', { token }))).builder.id).toBe('bld_legacy');
    expect((await body(call(plane, 'GET', '/v0/apps', { token }))).apps.map((a: { id: string }) => a.id)).toEqual(['app_aaaaaaaaaaaaaaaaaaaaaaaaaa']);
  });

  it('shows on the account page, with the passkeys', async () => {
    const grace = await passkeySession(plane, 'grace');
    const page = await browser().send('/account', { method: 'GET', cookie: grace.cookie });
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await page.text();
    expect(html).toContain('<span class="badge">builder</span>');
    expect(html).toContain(`${grace.credential.id.slice(0, 10)}…`);
    const script = await browser().send('/account/assets/webauthn.js', { method: 'GET' });
    expect(script.headers.get('content-type')).toContain('javascript');
    expect(await script.text()).toContain('SimpleWebAuthnBrowser');
  });

  it('says on its pages that passkeys cannot work when the public origin is an IP address', async () => {
    const byAddress = await createControlPlane({ dataDir: join(work, 'by-address'), publicOrigin: 'http://127.0.0.1:4310' });
    try {
      for (const path of ['/account', '/device']) {
        const html = await (await byAddress.app.request(new Request(`http://127.0.0.1:4310${path}`))).text();
        expect(html).toContain('Passkeys need a host name');
      }
    } finally {
      await byAddress.close();
    }
    expect(await (await browser().send('/account', { method: 'GET' })).text()).not.toContain('Passkeys need a host name');
  });

  it('and accounts survive a restart, passkeys and all', async () => {
    const dataDir = join(work, 'restart');
    const first = await createControlPlane({ dataDir });
    await registerAccount(first, 'kept');
    await first.close();
    const second = await createControlPlane({ dataDir });
    try {
      expect((await passkeySession(second, 'kept')).account.name).toBe('kept');
    } finally {
      await second.close();
    }
  });
});
