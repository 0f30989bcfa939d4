/**
 * Route handlers are typed by the route table (middleware.ts `on`, core/deploy/routes.ts `ROUTES`): a
 * handler answers the body its route declares, or a refusal, and nothing else compiles. The
 * `@ts-expect-error` lines are the proof: `npm run typecheck` fails if any of them compiles. At run
 * time the registered handler answers as written.
 */
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { ROUTES } from '../core/deploy';
import { answer, refuse } from './context';
import { on, type ControlEnv } from './middleware';

describe('route handlers typed by the route table', () => {
  it('compile only with the declared answer or a refusal, and answer as written', async () => {
    const app = new Hono<ControlEnv>();
    on(app, ROUTES.health, () => answer(200, { ok: true }));
    on(app, ROUTES.logout, async () => refuse(401, 'unauthorized', 'Signed out already.'));

    const typedOnly = new Hono<ControlEnv>();
    // @ts-expect-error: the health route answers { ok: true }, not { ok: false }.
    on(typedOnly, ROUTES.health, () => answer(200, { ok: false }));
    // @ts-expect-error: a service token's list is { tokens: ServiceTokenInfo[] }: an id must be a string.
    on(typedOnly, ROUTES.listTokens, () => answer(200, { tokens: [{ id: 1, name: 'ci', createdAt: '2026-11-30T00:00:00.000Z' }] }));
    // @ts-expect-error: a Response made by hand is neither the route's answer nor a refusal.
    on(typedOnly, ROUTES.health, () => new Response('{"ok":true}'));
    // @ts-expect-error: nor is one behind middleware.
    on(typedOnly, ROUTES.whoami, async (_c, next) => next(), () => Response.json({}));

    const health = await app.request('/v0/health');
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ ok: true });
    const logout = await app.request('/v0/auth/logout', { method: 'POST' });
    expect(logout.status).toBe(401);
    expect(await logout.json()).toMatchObject({ error: { code: 'unauthorized' } });
  });
});
