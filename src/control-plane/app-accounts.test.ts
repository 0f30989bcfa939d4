/**
 * The hosted story of app accounts, over real HTTP on loopback: a builder deploys team-board; people
 * with passkeys (the software authenticator) sign in to it through the control plane, one creates a
 * workspace and invites another by link, and both then pass team-board's memberOf guards and
 * workspaceTable policy in its workerd engine exactly as alice and bob do in `platform test`; a third
 * person sees nothing, a guest stays a guest, leaving takes the workspace away. A second app (a probe
 * that shows what its code receives) gives the same person another appUserId, and never sees a
 * cookie, the account's name or its id.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_SESSION_COOKIE } from './app-auth';
import { databaseApp, deployOverHttp, templateFiles } from '../testing/control-plane-apps';
import { startControlPlane, type Started } from './main';
import { TestBrowser, overHttp, type Visit } from '../testing/test-browser';
import { hostedRequest, registerAccount, signIn } from '../testing/control-plane';
import { GUEST_COOKIE } from './hosting/hosting';
import { CLIENT_HEADER } from './nodes';

const PROBE = `import { defineServer, endpoint, query } from 'platform/server';
export default defineServer({
  queries: {
    'me.auth': query({ input: {}, handler: async (ctx) => ({ appUserId: ctx.auth.appUserId, kind: ctx.auth.kind, workspaceIds: [...ctx.auth.workspaceIds], sessionId: ctx.auth.sessionId ?? null }) }),
  },
  endpoints: {
    'GET /api/whoami': endpoint(async (request, ctx) => Response.json({ auth: ctx.auth, headers: [...request.headers], url: request.url })),
  },
});
`;

let work: string;
let started: Started;
let board: string;
let probe: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'platform-app-accounts-'));
  started = await startControlPlane({ dataDir: join(work, 'data'), port: 0 });
  const token = await signIn(started.plane, 'builder');
  const files = templateFiles('team-board');
  board = await deployOverHttp(started.url, token, 'team-board', files);
  probe = await deployOverHttp(started.url, token, 'probe', databaseApp({ name: 'probe', tables: { notes: { text: 'string' } }, server: PROBE }));
}, 180_000);

afterAll(async () => {
  await started?.stop();
  rmSync(work, { recursive: true, force: true });
});

/** A person's browser: an account with a passkey made on the control plane over HTTP. */
async function person(name: string): Promise<TestBrowser> {
  const browser = new TestBrowser(overHttp);
  const { cookie } = await registerAccount(started.url, name);
  browser.setCookie(started.url, `${cookie}; Path=/; HttpOnly; SameSite=Strict`);
  return browser;
}

/** The person presses the app's Sign in and confirms on the control plane: back on the app, signed in. */
async function signInTo(browser: TestBrowser, origin: string, returnPath = '/'): Promise<Visit> {
  browser.page = origin;
  const page = await browser.navigate(`${origin}/__platform/auth/sign-in?return=${encodeURIComponent(returnPath)}`);
  expect(page.text).toMatch(/Sign in to (team-board|probe) as [a-z-]+\?/);
  const form: Record<string, string> = { decision: 'continue' };
  for (const match of page.text.matchAll(/<input type="hidden" name="(\w+)" value="([^"]*)">/g)) form[match[1]!] = match[2]!;
  const back = await browser.navigate(`${started.url}/sign-in-to-app`, { method: 'POST', form, from: started.url });
  expect(back.url).toBe(`${origin}${returnPath}`);
  return back;
}

/** A call of team-board's wire routes from its page. */
async function call(browser: TestBrowser, kind: 'query' | 'mutation', name: string, input: unknown): Promise<{ status: number; body: any }> {
  const answer = await browser.fetch(`/_platform/v0/${kind}/${name}`, { method: 'POST', json: { input } });
  return { status: answer.status, body: await answer.json() };
}

const titles = (answer: { body: any }) => (answer.body.result as { title: string }[]).map((card) => card.title);

describe('people sign in to a deployed app and share a workspace', () => {
  it('two people share a workspace made and joined through the platform; a third sees nothing; a guest stays a guest', async () => {
    const ann = await person('ann');
    const home = await signInTo(ann, board);
    expect(home.text).toContain('<div id="app">');
    expect(ann.cookies(board)[APP_SESSION_COOKIE]).toMatch(/^xap_/);
    // The app's server sees a user with no workspaces yet.
    expect((await call(ann, 'query', 'me.workspaces', {})).body.result).toEqual([]);

    const created = await ann.fetch('/__platform/workspaces', { method: 'POST', json: { name: 'Launch' } });
    expect(created.status).toBe(201);
    const workspace = ((await created.json()) as { workspace: { id: string } }).workspace.id;
    expect((await call(ann, 'query', 'me.workspaces', {})).body.result).toEqual([workspace]);
    expect((await call(ann, 'mutation', 'cards.add', { workspaceId: workspace, title: 'Plan the launch' })).status).toBe(200);

    // Ann invites Ben by link; Ben opens it, signs in on the way, and joins on its page.
    const link = ((await (await ann.fetch(`/__platform/workspaces/${workspace}/invites`, { method: 'POST', json: {} })).json()) as { invite: { url: string } }).invite.url;
    expect(link.startsWith(`${board}/__platform/join/xwi_`)).toBe(true);
    const ben = await person('ben');
    ben.page = board;
    const invitation = await ben.navigate(link, { from: null });
    expect(invitation.text).toContain('Join the workspace “Launch”');
    expect(invitation.text).toContain('Sign in to join');
    const back = await signInTo(ben, board, new URL(link).pathname);
    expect(back.text).toContain('<form method="post"');
    const joined = await ben.navigate(link, { method: 'POST', form: {}, from: board });
    expect(joined.url).toBe(`${board}/`);
    expect((await call(ben, 'query', 'me.workspaces', {})).body.result).toEqual([workspace]);
    expect(titles(await call(ben, 'query', 'cards.list', { workspaceId: workspace }))).toEqual(['Plan the launch']);
    expect((await call(ben, 'mutation', 'cards.add', { workspaceId: workspace, title: 'Write the notes' })).status).toBe(200);
    expect(titles(await call(ann, 'query', 'cards.list', { workspaceId: workspace }))).toEqual(['Plan the launch', 'Write the notes']);

    // Cal signed in but in no workspace: memberOf refuses, the policy alone shows nothing.
    const cal = await person('cal');
    await signInTo(cal, board);
    const refused = await call(cal, 'query', 'cards.list', { workspaceId: workspace });
    expect([refused.status, refused.body.error.code]).toEqual([400, 'operation_failed']);
    expect((await call(cal, 'query', 'cards.everywhere', {})).body.result).toEqual([]);
    expect((await call(cal, 'mutation', 'cards.add', { workspaceId: workspace, title: 'Intrusion' })).status).toBe(400);
    // The used link lets nobody else in.
    const again = await cal.fetch(new URL(link).pathname, { method: 'POST', json: {} });
    expect([again.status, ((await again.json()) as { error: { code: string } }).error.code]).toEqual([410, 'invite_used']);

    // A guest is a guest: no workspaces, cannot add.
    const visitor = new TestBrowser(overHttp);
    await visitor.navigate(`${board}/`, { from: null });
    expect(await (await visitor.fetch('/__platform/auth/me')).json()).toMatchObject({ kind: 'guest', appUserId: expect.stringMatching(/^guest:/), workspaces: [] });
    expect((await call(visitor, 'query', 'me.workspaces', {})).body.result).toEqual([]);
    expect((await call(visitor, 'mutation', 'cards.add', { workspaceId: workspace, title: 'x' })).status).toBe(400);

    // Ben leaves: the workspace is no longer his, at once.
    expect((await ben.fetch(`/__platform/workspaces/${workspace}/leave`, { method: 'POST', json: {} })).status).toBe(200);
    expect((await call(ben, 'query', 'cards.list', { workspaceId: workspace })).status).toBe(400);
    expect((await call(ben, 'query', 'cards.everywhere', {})).body.result).toEqual([]);
    expect(titles(await call(ann, 'query', 'cards.list', { workspaceId: workspace }))).toEqual(['Plan the launch', 'Write the notes']);

    // Signed out, Ann is a guest again: her session cookie, even sent again, signs nobody in.
    const session = ann.cookies(board)[APP_SESSION_COOKIE]!;
    expect((await ann.fetch('/__platform/auth/sign-out', { method: 'POST', json: {} })).status).toBe(200);
    expect((await call(ann, 'query', 'me.workspaces', {})).body.result).toEqual([]);
    ann.setCookie(board, `${APP_SESSION_COOKIE}=${session}; Path=/`);
    expect((await (await ann.fetch('/__platform/auth/me')).json()).kind).toBe('guest');
  });

  it("an app's code gets a user of its own: no cookie, no name, no account id, and another appUserId than in another app", async () => {
    const dora = await person('dora-the-person');
    await signInTo(dora, probe);
    const seen = (await (await dora.fetch('/api/whoami')).json()) as { auth: { appUserId: string; kind: string }; headers: [string, string][] };
    expect(seen.auth).toMatchObject({ kind: 'user', appUserId: expect.stringMatching(/^user:[0-9a-f]{32}$/), workspaceIds: [], roles: [], permissions: [] });
    expect(seen.headers.map(([name]) => name)).not.toContain('cookie');
    // Sent by hand, in any case: the cookies and the control plane nodes' own headers never reach the app; the rest does.
    const raw = await hostedRequest(probe, '/api/whoami', { headers: { CoOkIe: `${APP_SESSION_COOKIE}=xap_forged; ${GUEST_COOKIE}=forged.forged`, [CLIENT_HEADER.toUpperCase()]: '10.9.8.7', 'X-Sent-By-Hand': 'kept' } });
    expect(raw.status).toBe(200);
    const byHand = (JSON.parse(raw.text) as { headers: [string, string][] }).headers;
    expect(byHand).toContainEqual(['x-sent-by-hand', 'kept']);
    expect(byHand.filter(([name]) => name === 'cookie' || name.startsWith('x-platform-node-'))).toEqual([]);
    expect(JSON.stringify(byHand)).not.toContain('forged');
    const text = JSON.stringify(seen);
    expect(text).not.toContain('dora');
    expect(text).not.toContain('acc_');
    expect(text).not.toContain('xap_');
    expect(text).not.toContain(APP_SESSION_COOKIE);
    // The page's own view: the same appUserId, no name.
    const me = (await (await dora.fetch('/__platform/auth/me')).json()) as { appUserId: string };
    expect(me.appUserId).toBe(seen.auth.appUserId);
    expect(JSON.stringify(me)).not.toContain('dora');
    // The same person in team-board is someone else there.
    await signInTo(dora, board);
    const inBoard = (await (await dora.fetch('/__platform/auth/me')).json()) as { appUserId: string };
    expect(inBoard.appUserId).not.toBe(seen.auth.appUserId);
    // The probe's page cannot use its session at team-board (its cookie is its own host's); sent anyway, it is nobody there.
    const probeSession = dora.cookies(probe)[APP_SESSION_COOKIE]!;
    const stranger = new TestBrowser(overHttp);
    stranger.setCookie(board, `${APP_SESSION_COOKIE}=${probeSession}; Path=/`);
    stranger.page = board;
    expect((await (await stranger.fetch('/__platform/auth/me')).json()).kind).toBe('guest');
  });

  it('a POST to the reserved routes from another app is refused, whoever is signed in', async () => {
    const eve = await person('eve');
    await signInTo(eve, board);
    const forged = await eve.request(`${board}/__platform/workspaces`, { method: 'POST', json: { name: 'planted' }, from: probe });
    expect(forged.status).toBe(403);
    expect(((await forged.json()) as { error: { code: string } }).error.code).toBe('foreign_origin');
    expect((await call(eve, 'query', 'me.workspaces', {})).body.result).toEqual([]);
  });
});
