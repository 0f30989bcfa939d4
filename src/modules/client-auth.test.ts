/**
 * The client module's signing-in and workspace helpers: what they ask of the platform's routes on the
 * page's own origin, what they answer, how refusals become RuntimeErrors, and what they do in the
 * playground, where the preview's persona is who the page is (the local routes of
 * src/core/runtime/local-platform.ts) and signing in or out is the host's to explain.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { localPlatformResponse, personaAuth, type PersonaName } from '../core/runtime';
import { createWorkspace, getAuth, installClientHost, inviteToWorkspace, isRuntimeError, joinWorkspace, leaveWorkspace, signIn, signOut, type ClientHost } from './client';

let uninstall: (() => void) | undefined;
afterEach(() => {
  uninstall?.();
  uninstall = undefined;
});

/** A preview as `persona`: the platform's routes answered as the playground's runtime answers them. */
function preview(persona: PersonaName, extra: Partial<ClientHost> = {}): void {
  const auth = personaAuth('team-board', persona, 's');
  uninstall = installClientHost({ fetch: async (path, init) => localPlatformResponse(persona, auth, new Request(new URL(path, 'http://app.local'), init)), ...extra });
}

/** A hosted page whose platform routes answer `answer(method, path, body)`; the requests are kept. */
function hosted(answer: (method: string, path: string, body: unknown) => Response): { method: string; path: string; body: unknown; headers: Headers }[] {
  const seen: { method: string; path: string; body: unknown; headers: Headers }[] = [];
  uninstall = installClientHost({
    fetch: async (path, init) => {
      const body = typeof init.body === 'string' ? (JSON.parse(init.body) as unknown) : undefined;
      seen.push({ method: init.method ?? 'GET', path, body, headers: new Headers(init.headers) });
      return answer(init.method ?? 'GET', path, body);
    },
  });
  return seen;
}

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

describe('in the playground (personas)', () => {
  it("useAuth's answer is the preview's persona: its kind, appUserId and fixed workspaces", async () => {
    preview('alice');
    expect(await getAuth()).toEqual({
      kind: 'user',
      appUserId: personaAuth('team-board', 'alice').appUserId,
      workspaces: [
        { id: 'ws-team', name: 'ws-team', members: 2 },
        { id: 'ws-alice', name: 'ws-alice', members: 1 },
      ],
    });
    uninstall!();
    preview('guest');
    expect(await getAuth()).toMatchObject({ kind: 'guest', workspaces: [] });
  });

  it('workspace changes are refused local_personas, saying to switch persona', async () => {
    preview('bob');
    for (const attempt of [() => createWorkspace('x'), () => inviteToWorkspace('ws-team'), () => joinWorkspace('xwi_token'), () => leaveWorkspace('ws-team')]) {
      const error = await attempt().then(() => undefined, (reason: unknown) => reason);
      expect(isRuntimeError(error)).toBe(true);
      expect(error).toMatchObject({ status: 409, code: 'local_personas', message: expect.stringContaining('switch the preview to another persona') });
    }
  });

  it('signIn and signOut go to the host, which explains personas; nothing navigates', async () => {
    const asked: string[] = [];
    preview('guest', { signIn: (path) => void asked.push(`in ${path}`), signOut: () => void asked.push('out') });
    signIn('/board');
    await signOut();
    expect(asked).toEqual(['in /board', 'out']);
  });
});

describe('hosted', () => {
  it('creates, invites, joins (by link or token) and leaves through the reserved routes, as JSON POSTs', async () => {
    const workspace = { id: 'ws_aaaaaaaaaaaaaaaaaaaaaaaaaa', name: 'Design', members: 1 };
    const seen = hosted((method, path) => {
      if (path === '/__platform/auth/me') return json(200, { kind: 'user', appUserId: 'user:1', workspaces: [workspace] });
      if (path === '/__platform/workspaces') return json(201, { workspace });
      if (path.endsWith('/invites')) return json(201, { invite: { url: 'http://app-x.localhost:4310/__platform/join/xwi_abc', token: 'xwi_abc', expiresAt: '2026-07-08T00:00:00.000Z' } });
      if (path.startsWith('/__platform/join/')) return json(200, { workspace });
      if (path.endsWith('/leave')) return json(200, { left: workspace.id });
      return json(404, { protocol: 'platform.runtime.v0', error: { code: 'not_found', message: method, errorId: '' } });
    });
    expect(await createWorkspace('Design')).toEqual(workspace);
    const invite = await inviteToWorkspace(workspace.id);
    expect(invite).toEqual({ url: 'http://app-x.localhost:4310/__platform/join/xwi_abc', token: 'xwi_abc', expiresAt: new Date('2026-07-08T00:00:00.000Z') });
    expect(await joinWorkspace(invite.url)).toEqual(workspace);
    await joinWorkspace('xwi_abc');
    await leaveWorkspace(workspace.id);
    const writes = seen.filter((request) => request.method === 'POST');
    expect(writes.map((request) => [request.path, request.body])).toEqual([
      ['/__platform/workspaces', { name: 'Design' }],
      [`/__platform/workspaces/${workspace.id}/invites`, {}],
      ['/__platform/join/xwi_abc', {}],
      ['/__platform/join/xwi_abc', {}],
      [`/__platform/workspaces/${workspace.id}/leave`, {}],
    ]);
    for (const request of writes) expect(request.headers.get('content-type')).toBe('application/json');
    // Who the page is was asked again after each change.
    expect(seen.filter((request) => request.path === '/__platform/auth/me').length).toBeGreaterThanOrEqual(4);
  });

  it('a refusal rejects with its RuntimeError (status, code, message)', async () => {
    hosted(() => json(401, { protocol: 'platform.runtime.v0', error: { code: 'not_signed_in', message: 'Sign in first.', errorId: 'err_1' } }));
    const error = await createWorkspace('x').then(() => undefined, (reason: unknown) => reason);
    expect(error).toMatchObject({ status: 401, code: 'not_signed_in', message: 'Sign in first.', errorId: 'err_1' });
  });

  it('signOut posts to the sign-out route, then asks who the page is again', async () => {
    const seen = hosted((_method, path) => (path === '/__platform/auth/me' ? json(200, { kind: 'guest', appUserId: 'guest:1', workspaces: [] }) : json(200, { signedOut: true })));
    await signOut();
    expect(seen.map((request) => `${request.method} ${request.path}`)).toEqual(['POST /__platform/auth/sign-out', 'GET /__platform/auth/me']);
  });

  it('signIn needs a page the platform serves: an installed host without a sign-in of its own refuses', () => {
    hosted(() => json(200, {}));
    expect(() => signIn()).toThrow(/Signing in needs a page served by the platform/);
  });
});
