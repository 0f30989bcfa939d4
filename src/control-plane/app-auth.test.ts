/**
 * Signing in to hosted apps and workspaces, under attack, with in-memory requests: the app origin's
 * reserved routes (app-auth.ts) and the control plane's confirmation (app-sign-in-routes.ts), driven
 * by a test browser that keeps cookies per host and sends Origin and Sec-Fetch-Site as Chromium does.
 * Forged, replayed, expired and misdirected sign-in codes, open redirects, another app's session,
 * cross-origin POSTs, used and expired invitations, leaving and then acting as a member, pairwise
 * appUserIds, and what an app's origin may learn (never the account's name or id).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostedOrigin, type Environment, hostedTarget } from '../core/deploy';
import type { Auth } from '../core/runtime';
import { APP_SESSION_COOKIE, APP_SESSION_TTL_MS, AppAuth, CODE_TTL_MS, INVITE_TTL_MS, MAX_WORKSPACES, SIGN_IN_COOKIE, WORKSPACES_PER_DAY, appUserIdOf, safeReturnPath, type GuestVisitor } from './app-auth';
import { createControlPlane, type ControlPlane } from './control-plane';
import { BASE, registerAccount } from '../testing/control-plane';
import { TestBrowser, type Visit } from '../testing/test-browser';

let work: string;
let plane: ControlPlane;
let appAuth: AppAuth;
let clock = Date.UTC(2026, 6, 1);
const APP_A = 'app_aaaaaaaaaaaaaaaaaaaaaaaaaa';
const APP_B = 'app_bbbbbbbbbbbbbbbbbbbbbbbbbb';
const origin = (appId: string, environment: Environment = 'preview') => hostedOrigin(appId, environment, BASE);
const A = origin(APP_A);
const B = origin(APP_B);
const A_PRODUCTION = origin(APP_A, 'production');

/** The guest a hosted request would be (hosting.ts makes it from its own cookie). */
const guest = (): GuestVisitor => ({ auth: Object.freeze({ appUserId: 'guest:0123456789abcdef01234567', kind: 'guest', roles: [], permissions: [], workspaceIds: [], sessionId: 'g', id: 'guest:0123456789abcdef01234567' }) as unknown as Auth });

/** Requests of the test browser: an app origin's `/__platform/` paths to AppAuth, everything else to the control plane. */
async function send(request: Request): Promise<Response> {
  const target = hostedTarget(new URL(request.url).host);
  if (target) return appAuth.serve(request, target, guest);
  return plane.app.request(request);
}

const browser = () => new TestBrowser(send);
const accounts = new Map<string, string>();

/** A browser signed in to the control plane as `name` (an account made once, with a passkey). */
async function personAt(name: string): Promise<TestBrowser> {
  const person = browser();
  let cookie = accounts.get(name);
  if (!cookie) {
    cookie = (await registerAccount(plane, name)).cookie;
    accounts.set(name, cookie);
  }
  person.setCookie(BASE, `${cookie}; Path=/; HttpOnly; SameSite=Strict`);
  return person;
}

/** The hidden fields of the confirmation page's form. */
function confirmation(visit: Visit): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const match of visit.text.matchAll(/<input type="hidden" name="(\w+)" value="([^"]*)">/g)) fields[match[1]!] = match[2]!;
  return fields;
}

/** Starts a sign-in on an app origin (its Sign in button) and lands on the control plane's page. */
async function start(person: TestBrowser, appOrigin: string, returnPath = '/'): Promise<Visit> {
  person.page = appOrigin;
  return person.navigate(`${appOrigin}/__platform/auth/sign-in?return=${encodeURIComponent(returnPath)}`);
}

/** Confirms on the control plane's page, without following the redirect back: the callback URL and code. */
async function confirm(person: TestBrowser, visit: Visit): Promise<string> {
  const answer = await person.request(`${BASE}/sign-in-to-app`, { form: { ...confirmation(visit), decision: 'continue' }, from: BASE, navigation: true });
  expect(answer.status).toBe(303);
  return answer.headers.get('location')!;
}

/** A whole sign-in: the browser ends on the app's `returnPath` with an app session. */
async function signInTo(person: TestBrowser, appOrigin: string, returnPath = '/'): Promise<string> {
  const page = await start(person, appOrigin, returnPath);
  const callback = await confirm(person, page);
  const back = await person.navigate(callback, { from: BASE });
  expect(back.url).toBe(`${appOrigin}${returnPath}`);
  return person.cookies(appOrigin)[APP_SESSION_COOKIE]!;
}

const sessionRequest = (appOrigin: string, session: string | undefined) => new Request(`${appOrigin}/_platform/v0/query/x`, { headers: session ? { cookie: `${APP_SESSION_COOKIE}=${session}` } : {} });
const userOf = (appOrigin: string, session: string | undefined) => appAuth.user(sessionRequest(appOrigin, session), hostedTarget(new URL(appOrigin).host)!);
const json = async (response: Response) => (await response.json()) as Record<string, any>;
const codeOf = async (response: Response) => (await json(response)).error?.code as string | undefined;
const pageCode = (text: string) => /<main[^>]* data-code="([a-z_]+)"/.exec(text)?.[1];

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'platform-app-auth-'));
  plane = await createControlPlane({ dataDir: join(work, 'data'), now: () => clock });
  appAuth = new AppAuth(plane.context);
  for (const [id, name] of [
    [APP_A, 'team-board'],
    [APP_B, 'other-app'],
  ] as const) {
    await plane.context.records.run("INSERT INTO apps (id, name, ownerId, state, createdAt) VALUES (?, ?, 'bld_x', 'active', ?)", [id, name, clock]);
  }
});

afterAll(async () => {
  await plane.close();
  rmSync(work, { recursive: true, force: true });
});

describe('signing in through the control plane', () => {
  it('asks the person to confirm with the app and account names, then sets a host-only HttpOnly Lax session and returns where they were', async () => {
    const ada = await personAt('ada');
    const page = await start(ada, A, '/board?tab=2#top');
    expect(page.url).toMatch(new RegExp(`^${BASE}/sign-in-to-app\\?app=${APP_A}&env=preview&state=[A-Za-z0-9_-]{22}`));
    expect(page.text).toContain('Sign in to team-board as ada?');
    expect(page.text).toContain(A);
    // The form's redirect to the app origin is allowed by the page's CSP, and only that origin.
    expect(page.response.headers.get('content-security-policy')).toContain(`form-action 'self' ${A};`);
    const callback = await confirm(ada, page);
    expect(callback).toMatch(new RegExp(`^${A}/__platform/auth/callback\\?code=xac_[A-Za-z0-9_-]{43}&state=`));
    const back = await ada.request(callback, { from: BASE, navigation: true, site: 'cross-site' });
    expect(back.status).toBe(303);
    expect(back.headers.get('location')).toBe('/board?tab=2#top');
    const cookie = back.headers.getSetCookie().find((c) => c.startsWith(`${APP_SESSION_COOKIE}=`))!;
    expect(cookie).toMatch(new RegExp(`^${APP_SESSION_COOKIE}=xap_[A-Za-z0-9_-]{43}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${APP_SESSION_TTL_MS / 1000}$`));
    expect(cookie).not.toMatch(/Domain/i);
    // The sign-in cookie is spent.
    expect(back.headers.getSetCookie().find((c) => c.startsWith(`${SIGN_IN_COOKIE}=`))).toMatch(/Max-Age=0/);
    const auth = (await userOf(A, ada.cookies(A)[APP_SESSION_COOKIE]))!;
    expect(auth).toMatchObject({ kind: 'user', appUserId: expect.stringMatching(/^user:[0-9a-f]{32}$/), roles: [], permissions: [], workspaceIds: [], sessionId: expect.stringMatching(/^aps_/) });
    expect(auth.id).toBe(auth.appUserId);
    expect(Object.isFrozen(auth)).toBe(true);
    // Only hashes are kept.
    const stored = (await plane.context.records.get('SELECT * FROM app_sessions WHERE id = ?', [auth.sessionId!]))!;
    expect(JSON.stringify(stored)).not.toContain(ada.cookies(A)[APP_SESSION_COOKIE]!);
  });

  it('goes straight to the confirmation for a person already signed in: the page reached from the app reloads itself to get its Strict cookie', async () => {
    const ada = await personAt('ada');
    ada.page = A;
    // The first answer, to a request from another site, carries no account cookie: a reload from here.
    const first = await ada.request(`${A}/__platform/auth/sign-in?return=/`, { from: A, navigation: true });
    const location = first.headers.get('location')!;
    const crossSite = await ada.request(location, { from: A, navigation: true, site: 'cross-site' });
    expect(await crossSite.text()).toContain('http-equiv="refresh"');
    const page = await start(ada, A);
    expect(page.text).toContain('Sign in to team-board as ada?');
  });

  it('asks someone not signed in to sign in with a passkey or create an account, never naming anyone', async () => {
    const stranger = browser();
    const page = await start(stranger, A);
    expect(page.text).toContain('Sign in to team-board');
    expect(page.text).toContain('data-action="sign-in"');
    expect(page.text).toContain('id="register"');
    expect(page.text).not.toContain(' as ');
    // Confirming without a sign-in does nothing.
    const refused = await stranger.request(`${BASE}/sign-in-to-app`, { form: { ...confirmation(page), app: APP_A, env: 'preview', decision: 'continue' }, from: BASE });
    expect(refused.status).toBe(401);
  });

  it('cancelled, goes back where the person was, signed in to nothing', async () => {
    const ada = await personAt('ada');
    const page = await start(ada, A, '/cards');
    const back = await ada.navigate(`${BASE}/sign-in-to-app`, { method: 'POST', form: { ...confirmation(page), decision: 'cancel' }, from: BASE });
    expect(back.url).toBe(`${A}/cards`);
    expect(ada.cookies(A)[APP_SESSION_COOKIE]).toBeUndefined();
  });

  it('"use another account" signs the control plane out and asks again', async () => {
    const ada = await personAt('ada');
    const page = await start(ada, A);
    const again = await ada.navigate(`${BASE}/sign-in-to-app`, { method: 'POST', form: { ...confirmation(page), decision: 'switch' }, from: BASE });
    expect(again.text).toContain('data-action="sign-in"');
    expect(ada.cookies(BASE).platform_account).toBeUndefined();
    accounts.delete('ada');
    // A fresh account session for the tests below.
    accounts.set('ada', (await registerAccount(plane, 'ada2')).cookie);
  });

  it('refuses a confirmation posted from another origin (an app page, another site)', async () => {
    const ada = await personAt('ada');
    const page = await start(ada, A);
    for (const from of [A, 'http://evil.example']) {
      const answer = await ada.request(`${BASE}/sign-in-to-app`, { form: { ...confirmation(page), decision: 'continue' }, from });
      expect(answer.status).toBe(403);
      expect(pageCode(await answer.text())).toBe('foreign_origin');
    }
  });

  it('refuses sign-in links that name no app, a deleted one, or a malformed state', async () => {
    const ada = await personAt('ada');
    for (const query of ['app=app_cccccccccccccccccccccccccc&env=preview&state=aaaaaaaaaaaaaaaaaaaaaa', `app=${APP_A}&env=staging&state=aaaaaaaaaaaaaaaaaaaaaa`, `app=${APP_A}&env=preview&state=short`]) {
      const visit = await ada.navigate(`${BASE}/sign-in-to-app?${query}`, { from: null });
      expect(visit.response.status).toBeGreaterThanOrEqual(400);
      expect(pageCode(visit.text)).toMatch(/^(app_not_found|invalid_request)$/);
    }
  });
});

describe('sign-in codes under attack', () => {
  it('a forged code makes no session', async () => {
    const eve = await personAt('eve');
    const page = await start(eve, A);
    const state = confirmation(page).state!;
    const forged = await eve.navigate(`${A}/__platform/auth/callback?code=xac_${'A'.repeat(43)}&state=${state}`, { from: BASE });
    expect(forged.response.status).toBe(400);
    expect(pageCode(forged.text)).toBe('code_unknown');
    expect(eve.cookies(A)[APP_SESSION_COOKIE]).toBeUndefined();
  });

  it('a replayed code is refused, and ends the session the first use made', async () => {
    const ada = await personAt('ada');
    const page = await start(ada, A);
    const callback = await confirm(ada, page);
    // Someone who saw the URL and the sign-in cookie (a proxy log, a shared machine) tries it again.
    const signInCookie = ada.cookies(A)[SIGN_IN_COOKIE]!;
    await ada.navigate(callback, { from: BASE });
    const session = ada.cookies(A)[APP_SESSION_COOKIE]!;
    expect((await userOf(A, session))?.kind).toBe('user');
    const thief = browser();
    thief.setCookie(A, `${SIGN_IN_COOKIE}=${signInCookie}; Path=/__platform/auth/`);
    const replay = await thief.navigate(callback, { from: BASE });
    expect(pageCode(replay.text)).toBe('code_used');
    expect(thief.cookies(A)[APP_SESSION_COOKIE]).toBeUndefined();
    expect((await userOf(A, session))).toBeUndefined();
  });

  it('a code presented twice at once makes one session, and the second use ends it', async () => {
    const ada = await personAt('ada');
    const page = await start(ada, A);
    const callback = await confirm(ada, page);
    const signInCookie = ada.cookies(A)[SIGN_IN_COOKIE]!;
    const thief = browser();
    thief.setCookie(A, `${SIGN_IN_COOKIE}=${signInCookie}; Path=/__platform/auth/`);
    // Both requests race through the records: the code is read and spent in one transaction.
    const [mine, theirs] = await Promise.all([ada.navigate(callback, { from: BASE }), thief.navigate(callback, { from: BASE })]);
    const codes = [pageCode(mine.text), pageCode(theirs.text)];
    expect(codes.filter((code) => code === 'code_used')).toHaveLength(1);
    const sessions = [ada.cookies(A)[APP_SESSION_COOKIE], thief.cookies(A)[APP_SESSION_COOKIE]].filter((cookie) => cookie !== undefined);
    expect(sessions).toHaveLength(1);
    expect(await userOf(A, sessions[0])).toBeUndefined();
  });

  it('an expired code (over a minute old) is refused', async () => {
    const ada = await personAt('ada');
    const callback = await confirm(ada, await start(ada, A));
    clock += CODE_TTL_MS + 1;
    try {
      const late = await ada.navigate(callback, { from: BASE });
      expect(pageCode(late.text)).toBe('code_expired');
      expect(ada.cookies(A)[APP_SESSION_COOKIE]).toBeUndefined();
    } finally {
      clock += 1000;
    }
  });

  it("a code for one app (or environment) is worth nothing at another's callback", async () => {
    const ada = await personAt('ada');
    const callback = new URL(await confirm(ada, await start(ada, A)));
    for (const other of [B, A_PRODUCTION]) {
      // Even with a sign-in cookie of the other origin carrying the same state, as an attacker could arrange.
      const page = await start(ada, other);
      const state = confirmation(page).state!;
      const moved = await ada.navigate(`${other}/__platform/auth/callback?code=${callback.searchParams.get('code')}&state=${state}`, { from: BASE });
      expect(pageCode(moved.text)).toMatch(/^(code_unknown|state_mismatch)$/);
      expect(ada.cookies(other)[APP_SESSION_COOKIE]).toBeUndefined();
    }
  });

  it('a code finishes only in the browser that started the sign-in: a stolen one, or an attacker’s own planted in a victim’s browser (login CSRF), is refused', async () => {
    const ada = await personAt('ada');
    const callback = await confirm(ada, await start(ada, A));
    // Stolen: a browser that never started a sign-in.
    const thief = browser();
    const stolen = await thief.navigate(callback, { from: BASE });
    expect(pageCode(stolen.text)).toBe('state_mismatch');
    // Planted: the victim started a sign-in of their own; the attacker's code and state are not theirs.
    const victim = await personAt('victor');
    await start(victim, A);
    const planted = await victim.navigate(callback, { from: 'http://evil.example' });
    expect(pageCode(planted.text)).toBe('state_mismatch');
    expect(victim.cookies(A)[APP_SESSION_COOKIE]).toBeUndefined();
    // The victim's own state with the attacker's code: the code was issued for another state.
    const own = await start(victim, A);
    const mixed = await victim.navigate(`${A}/__platform/auth/callback?code=${new URL(callback).searchParams.get('code')}&state=${confirmation(own).state}`, { from: BASE });
    expect(pageCode(mixed.text)).toBe('state_mismatch');
    expect(victim.cookies(A)[APP_SESSION_COOKIE]).toBeUndefined();
  });

  it('a sign-in cookie with an edited return path or state is not accepted', async () => {
    const ada = await personAt('ada');
    const page = await start(ada, A, '/mine');
    const [state, , expires, signature] = ada.cookies(A)[SIGN_IN_COOKIE]!.split('.');
    ada.setCookie(A, `${SIGN_IN_COOKIE}=${state}.${Buffer.from('//evil.example').toString('base64url')}.${expires}.${signature}; Path=/__platform/auth/`);
    const callback = await confirm(ada, page);
    const back = await ada.navigate(callback, { from: BASE });
    expect(pageCode(back.text)).toBe('state_mismatch');
  });
});

describe('no open redirect', () => {
  it('keeps only paths of the app origin', () => {
    expect(safeReturnPath('/board?x=1#y')).toBe('/board?x=1#y');
    expect(safeReturnPath('/__platform/join/xwi_abc')).toBe('/__platform/join/xwi_abc');
    for (const hostile of ['https://evil.example/', '//evil.example', '/\\evil.example', '\\\\evil.example', 'javascript:alert(1)', '/\t/evil.example', ' /x', 'evil.example', '', '/__platform/auth/sign-in?return=//evil', undefined, 42]) {
      expect(safeReturnPath(hostile)).toBe('/');
    }
  });

  it('a sign-in started with a hostile return ends on the app itself', async () => {
    const ada = await personAt('ada');
    for (const hostile of ['https://evil.example/', '//evil.example/x', '/\\evil.example']) {
      const page = await start(ada, A, hostile);
      const back = await ada.request(await confirm(ada, page), { from: BASE, navigation: true });
      expect(back.headers.get('location')).toBe('/');
    }
  });

  it('the control plane redirects only to the origin of the app it names, whatever else the request says', async () => {
    const ada = await personAt('ada');
    const page = await start(ada, A);
    const answer = await ada.request(`${BASE}/sign-in-to-app?redirect_uri=https://evil.example`, { form: { ...confirmation(page), decision: 'continue', redirect_uri: 'https://evil.example', return: 'https://evil.example' }, from: BASE });
    expect(new URL(answer.headers.get('location')!).origin).toBe(A);
  });
});

describe('app sessions', () => {
  it("another app's session, or the other environment's, signs nobody in", async () => {
    const ada = await personAt('ada');
    const session = await signInTo(ada, A);
    expect((await userOf(A, session))?.kind).toBe('user');
    expect((await userOf(B, session))).toBeUndefined();
    expect((await userOf(A_PRODUCTION, session))).toBeUndefined();
    const me = await json(await appAuth.serve(new Request(`${B}/__platform/auth/me`, { headers: { cookie: `${APP_SESSION_COOKIE}=${session}` } }), hostedTarget(new URL(B).host)!, guest));
    expect(me.kind).toBe('guest');
  });

  it('gives one person a different appUserId in each app, the same in preview and production of one app, and never the account id', async () => {
    const ada = await personAt('ada');
    const inA = (await userOf(A, await signInTo(ada, A)))!;
    const inB = (await userOf(B, await signInTo(ada, B)))!;
    const inProduction = (await userOf(A_PRODUCTION, await signInTo(ada, A_PRODUCTION)))!;
    expect(inA.appUserId).not.toBe(inB.appUserId);
    expect(inProduction.appUserId).toBe(inA.appUserId);
    const accountId = String((await plane.context.records.get('SELECT accountId FROM app_sessions WHERE id = ?', [inA.sessionId!]))!.accountId);
    expect(inA.appUserId).toBe(appUserIdOf(plane.secrets.cookieKey, accountId, APP_A));
    for (const auth of [inA, inB]) expect(JSON.stringify(auth)).not.toContain(accountId.slice(4));
    // Another person in the same app: another id.
    const bob = await personAt('bob');
    expect((await userOf(A, await signInTo(bob, A)))!.appUserId).not.toBe(inA.appUserId);
  });

  it('ends when its seven days are over, and at sign-out (the cookie, sent again, is nobody)', async () => {
    const ada = await personAt('ada');
    const session = await signInTo(ada, A);
    clock += APP_SESSION_TTL_MS;
    expect((await userOf(A, session))).toBeUndefined();
    clock += 1000;
    // A new one (the account session on the control plane lasts an hour: signed in again).
    accounts.delete('ada');
    const again = await personAt('ada-again');
    const fresh = await signInTo(again, A);
    again.page = A;
    const foreign = await again.request(`${A}/__platform/auth/sign-out`, { method: 'POST', from: B });
    expect(foreign.status).toBe(403);
    expect((await userOf(A, fresh))?.kind).toBe('user');
    const out = await again.fetch('/__platform/auth/sign-out', { method: 'POST' });
    expect(out.status).toBe(200);
    expect(again.cookies(A)[APP_SESSION_COOKIE]).toBeUndefined();
    expect((await userOf(A, fresh))).toBeUndefined();
    expect((await json(await appAuth.serve(new Request(`${A}/__platform/auth/me`, { headers: { cookie: `${APP_SESSION_COOKIE}=${fresh}` } }), hostedTarget(new URL(A).host)!, guest))).kind).toBe('guest');
  });

  it('answers /__platform/auth/me with kind, appUserId and workspaces only: no name, no account id', async () => {
    const zoe = await personAt('zoe-the-person');
    await signInTo(zoe, A);
    zoe.page = A;
    await zoe.fetch('/__platform/workspaces', { method: 'POST', json: { name: 'Zoe’s things' } });
    const me = await json(await zoe.fetch('/__platform/auth/me'));
    expect(Object.keys(me).sort()).toEqual(['appUserId', 'kind', 'workspaces']);
    expect(me.workspaces).toEqual([{ id: expect.stringMatching(/^ws_[a-z2-7]{26}$/), name: 'Zoe’s things', members: 1 }]);
    const text = JSON.stringify(me);
    expect(text).not.toContain('zoe-the-person');
    expect(text).not.toContain('acc_');
    // A guest: kind guest, its guest id, no workspaces.
    const visitor = browser();
    visitor.page = A;
    expect(await json(await visitor.fetch('/__platform/auth/me'))).toEqual({ kind: 'guest', appUserId: guest().auth.appUserId, workspaces: [] });
  });
});

/** A person signed in to app A, on its page. */
async function member(name: string, appOrigin = A): Promise<TestBrowser> {
  const person = await personAt(name);
  await signInTo(person, appOrigin);
  person.page = appOrigin;
  return person;
}

async function createWorkspace(person: TestBrowser, name: string): Promise<string> {
  const answer = await person.fetch('/__platform/workspaces', { method: 'POST', json: { name } });
  expect(answer.status).toBe(201);
  return (await json(answer)).workspace.id as string;
}

async function invite(person: TestBrowser, workspaceId: string): Promise<{ url: string; token: string }> {
  const answer = await person.fetch(`/__platform/workspaces/${workspaceId}/invites`, { method: 'POST', json: {} });
  expect(answer.status).toBe(201);
  return (await json(answer)).invite as { url: string; token: string };
}

const workspaceIdsOf = async (person: TestBrowser, appOrigin = A) => [...((await userOf(appOrigin, person.cookies(appOrigin)[APP_SESSION_COOKIE]))?.workspaceIds ?? [])];

describe('workspaces', () => {
  it('a member invites by link; the invited person joins once signed in; both carry the workspace in ctx.auth', async () => {
    const owner = await member('wanda');
    const id = await createWorkspace(owner, 'Design');
    expect((await workspaceIdsOf(owner))).toEqual([id]);
    const link = await invite(owner, id);
    expect(link.url).toBe(`${A}/__platform/join/${link.token}`);
    // Not signed in: the join page offers a sign-in that comes back to it.
    const friend = await personAt('frank');
    friend.page = A;
    const before = await friend.navigate(link.url, { from: null });
    expect(before.text).toContain('Sign in to join');
    const signInLink = /href="([^"]+)"/.exec(before.text.slice(before.text.indexOf('class="button"') - 10))![1]!.replace(/&amp;/g, '&');
    const confirmationPage = await friend.navigate(new URL(signInLink, A).toString());
    const back = await friend.navigate(await confirm(friend, confirmationPage), { from: BASE });
    expect(back.url).toBe(link.url);
    expect(back.text).toContain('Join “Design”');
    // The form of the join page.
    const joined = await friend.navigate(link.url, { method: 'POST', form: {}, from: A });
    expect(joined.url).toBe(`${A}/`);
    expect((await workspaceIdsOf(friend))).toEqual([id]);
    expect((await json(await owner.fetch('/__platform/auth/me'))).workspaces).toEqual([{ id, name: 'Design', members: 2 }]);
  });

  it('refuses POSTs from other origins (another app, another site, none) and from nobody signed in', async () => {
    const owner = await member('olga');
    const id = await createWorkspace(owner, 'Mine');
    for (const from of [B, A_PRODUCTION, 'http://evil.example', BASE]) {
      for (const path of ['/__platform/workspaces', `/__platform/workspaces/${id}/invites`, `/__platform/workspaces/${id}/leave`, '/__platform/auth/sign-out']) {
        const answer = await owner.request(`${A}${path}`, { method: 'POST', json: { name: 'x' }, from });
        expect(answer.status, `${path} from ${from}`).toBe(403);
        expect(await codeOf(answer)).toBe('foreign_origin');
      }
    }
    // A request with the app's Origin but marked cross-site by the browser, or with no Origin at all.
    expect((await owner.request(`${A}/__platform/workspaces`, { method: 'POST', json: { name: 'x' }, from: A, site: 'cross-site' })).status).toBe(403);
    expect((await owner.request(`${A}/__platform/workspaces`, { method: 'POST', json: { name: 'x' } })).status).toBe(403);
    expect((await workspaceIdsOf(owner))).toEqual([id]);
    const visitor = browser();
    visitor.page = A;
    const anonymous = await visitor.fetch('/__platform/workspaces', { method: 'POST', json: { name: 'x' } });
    expect(anonymous.status).toBe(401);
    expect(await codeOf(anonymous)).toBe('not_signed_in');
  });

  it('an invitation opened by two people at once lets one of them in', async () => {
    const owner = await member('vera');
    const id = await createWorkspace(owner, 'Race');
    const link = await invite(owner, id);
    const [one, two] = [await member('walt'), await member('xena')];
    const answers = await Promise.all([one, two].map((person) => person.fetch(`/__platform/join/${link.token}`, { method: 'POST', json: {} })));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 410]);
    expect([await workspaceIdsOf(one), await workspaceIdsOf(two)].filter((ids) => ids.includes(id))).toHaveLength(1);
  });

  it('an invitation is used once, expires, belongs to its app, and dies with its sender’s membership', async () => {
    const owner = await member('ivan');
    const id = await createWorkspace(owner, 'Ops');
    const first = await member('judy');
    const link = await invite(owner, id);
    expect((await first.fetch(`/__platform/join/${link.token}`, { method: 'POST', json: {} })).status).toBe(200);
    // Used: nobody else gets in with it.
    const second = await member('karl');
    const used = await second.fetch(`/__platform/join/${link.token}`, { method: 'POST', json: {} });
    expect([used.status, await codeOf(used)]).toEqual([410, 'invite_used']);
    expect((await second.navigate(link.url)).text).toContain('invite_used');
    // Expired.
    const late = await invite(owner, id);
    clock += INVITE_TTL_MS;
    // Sessions last seven days too: karl and a new owner sign in again after the clock moved a week.
    for (const name of ['ivan', 'karl']) accounts.delete(name);
    const owner2 = await member('ivan-2');
    const karl = await member('karl-2');
    const expired = await karl.fetch(`/__platform/join/${late.token}`, { method: 'POST', json: {} });
    expect([expired.status, await codeOf(expired)]).toEqual([410, 'invite_expired']);
    clock += 1000;
    // Another app's invitation, presented at app A; a forged token.
    const other = await member('olaf', B);
    const otherId = await createWorkspace(other, 'Elsewhere');
    const foreign = await invite(other, otherId);
    for (const token of [foreign.token, `xwi_${'B'.repeat(43)}`, 'nonsense']) {
      const answer = await karl.fetch(`/__platform/join/${token}`, { method: 'POST', json: {} });
      expect([answer.status, await codeOf(answer)]).toEqual([404, 'invite_unknown']);
    }
    // The sender leaves: their open invitations go with them.
    const mine = await createWorkspace(owner2, 'Short-lived');
    const pending = await invite(owner2, mine);
    await owner2.fetch(`/__platform/workspaces/${mine}/leave`, { method: 'POST', json: {} });
    const withdrawn = await karl.fetch(`/__platform/join/${pending.token}`, { method: 'POST', json: {} });
    expect(withdrawn.status).toBe(410);
    expect((await workspaceIdsOf(karl))).toEqual([]);
  });

  it('after leaving, a person is no member: not in ctx.auth, cannot invite, list or leave again', async () => {
    const owner = await member('lena');
    const id = await createWorkspace(owner, 'Temporary');
    const other = await createWorkspace(owner, 'Kept');
    const left = await owner.fetch(`/__platform/workspaces/${id}/leave`, { method: 'POST', json: {} });
    expect(await json(left)).toEqual({ left: id });
    expect((await workspaceIdsOf(owner))).toEqual([other]);
    const inviting = await owner.fetch(`/__platform/workspaces/${id}/invites`, { method: 'POST', json: {} });
    expect([inviting.status, await codeOf(inviting)]).toEqual([404, 'workspace_not_found']);
    expect((await owner.fetch(`/__platform/workspaces/${id}/leave`, { method: 'POST', json: {} })).status).toBe(404);
    expect((await json(await owner.fetch('/__platform/workspaces'))).workspaces.map((w: { id: string }) => w.id)).toEqual([other]);
    // A workspace one never belonged to looks the same as one that does not exist.
    const stranger = await member('mona');
    expect(await codeOf(await stranger.fetch(`/__platform/workspaces/${other}/invites`, { method: 'POST', json: {} }))).toBe('workspace_not_found');
  });

  it('refuses names that are empty, too long or hold control characters, more than the membership limit, and more than a day’s new workspaces', async () => {
    const person = await member('nina');
    for (const name of ['', '   ', 'x'.repeat(81), 'a\nb', 42]) {
      const answer = await person.fetch('/__platform/workspaces', { method: 'POST', json: { name } });
      expect(answer.status).toBe(400);
    }
    for (let i = 0; i < MAX_WORKSPACES; i++) await createWorkspace(person, `w${i}`);
    const over = await person.fetch('/__platform/workspaces', { method: 'POST', json: { name: 'one more' } });
    expect([over.status, await codeOf(over)]).toEqual([409, 'workspace_limit']);
    expect((await workspaceIdsOf(person))).toHaveLength(MAX_WORKSPACES);
    // Leaving frees memberships, not the day's quota of new workspaces.
    for (const id of await workspaceIdsOf(person)) await person.fetch(`/__platform/workspaces/${id}/leave`, { method: 'POST', json: {} });
    const again = await person.fetch('/__platform/workspaces', { method: 'POST', json: { name: 'one more' } });
    expect([again.status, await codeOf(again)]).toEqual([429, 'rate_limited']);
    expect(WORKSPACES_PER_DAY).toBe(MAX_WORKSPACES);
  });

  it('ids are opaque, and the pages of the app origin never name the account', async () => {
    const owner = await member('quentin-the-owner');
    const id = await createWorkspace(owner, 'Q');
    expect(id).toMatch(/^ws_[a-z2-7]{26}$/);
    const link = await invite(owner, id);
    const guestPage = await browser().navigate(link.url, { from: null });
    const joinPage = await (await member('rosa-the-guest')).navigate(link.url, { from: null });
    for (const text of [guestPage.text, joinPage.text, JSON.stringify(await json(await owner.fetch('/__platform/workspaces')))]) {
      expect(text).not.toContain('quentin');
      expect(text).not.toContain('rosa');
      expect(text).not.toContain('acc_');
    }
  });

  it('answers unknown reserved paths 404 and wrong methods 405', async () => {
    const person = browser();
    person.page = A;
    expect((await person.fetch('/__platform/nothing')).status).toBe(404);
    expect((await person.fetch('/__platform/auth/me', { method: 'POST', json: {} })).status).toBe(405);
    expect((await person.fetch('/__platform/auth/sign-out')).status).toBe(405);
  });
});
