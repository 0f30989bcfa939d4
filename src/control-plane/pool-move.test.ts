/**
 * An environment's data from before the pool moves into it (issue 32): a control plane that ran each
 * environment in a process of its own stops; the next one, on the same data directory, hosts it in the
 * pool's shared processes, and the first visit finds every write acknowledged before. A deploy after
 * the move probes and serves on the moved data, and deleting the app removes it. Real workerd, real
 * HTTP on loopback.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hostedOrigin, hostedTarget } from '../core/deploy';
import { build, databaseApp, deployBody, deployOverHttp } from '../testing/control-plane-apps';
import { hostedRequest, signIn } from '../testing/control-plane';
import { startControlPlane, type Started } from './main';

const server = (version: number) => `import { defineServer, mutation, query } from 'platform/server';
export default defineServer({
  queries: {
    'notes.list': query({ input: {}, handler: async (ctx) => (await ctx.db.table('notes').all()).map((note) => note.text) }),
    'app.version': query({ input: {}, handler: async () => ${version} }),
  },
  mutations: { 'notes.add': mutation({ input: { text: 'string' }, handler: async (ctx, input) => { await ctx.db.table('notes').insert({ text: input.text }); } }) },
});
`;
const files = (version: number) => databaseApp({ name: 'moving-notes', tables: { notes: { text: 'string' } }, server: server(version) });

const work = mkdtempSync(join(tmpdir(), 'platform-pool-move-'));
const dataDir = join(work, 'data');
let started: Started | undefined;

afterAll(async () => {
  await started?.stop();
  rmSync(work, { recursive: true, force: true });
});

const call = async (origin: string, kind: 'query' | 'mutation', name: string, input: unknown) => {
  const answer = await hostedRequest(origin, `/_platform/v0/${kind}/${name}`, { method: 'POST', body: JSON.stringify({ input }) });
  return { status: answer.status, result: (JSON.parse(answer.text) as { result?: unknown }).result };
};

describe('data from before the pool', () => {
  it('moves in on the first pooled start, serves, takes a new deploy and goes with the app', async () => {
    started = await startControlPlane({ dataDir, port: 0, hostingPool: false });
    const token = await signIn(started.plane, 'mover');
    const before = await deployOverHttp(started.url, token, 'moving-notes', files(1));
    const { appId } = hostedTarget(new URL(before).host)!;
    for (const text of ['one', 'two']) expect((await call(before, 'mutation', 'notes.add', { text })).status).toBe(200);
    expect(existsSync(join(dataDir, 'apps', appId, 'preview', 'platform-app-store'))).toBe(true);
    await started.stop();

    started = await startControlPlane({ dataDir, port: 0 });
    expect(started.plane.hosting.pooled).toBe(true);
    const origin = hostedOrigin(appId, 'preview', started.url);
    expect(await call(origin, 'query', 'notes.list', {})).toEqual({ status: 200, result: ['one', 'two'] });
    expect((await call(origin, 'mutation', 'notes.add', { text: 'three' })).status).toBe(200);
    // The old folder is kept beside, under another name: it is never moved in twice.
    expect(existsSync(join(dataDir, 'apps', appId, 'preview'))).toBe(false);
    expect(existsSync(join(dataDir, 'apps', appId, 'preview.process'))).toBe(true);

    // A deploy probes a copy of the pooled data, then serves on it.
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const deployed = await fetch(`${started.url}/v0/apps/${appId}/deployments`, { method: 'POST', headers, body: JSON.stringify(deployBody(await build(files(2)))) });
    expect(deployed.status, await deployed.clone().text()).toBe(201);
    expect(await call(origin, 'query', 'app.version', {})).toEqual({ status: 200, result: 2 });
    expect(await call(origin, 'query', 'notes.list', {})).toEqual({ status: 200, result: ['one', 'two', 'three'] });

    // Deleted: its data goes with it.
    const database = await started.plane.hosting.databaseOf(appId, 'preview');
    expect(database).toBeDefined();
    expect(existsSync(database!)).toBe(true);
    const deleted = await fetch(`${started.url}/v0/apps/${appId}/delete`, { method: 'POST', headers, body: JSON.stringify({ confirm: 'moving-notes' }) });
    expect(deleted.status, await deleted.clone().text()).toBe(200);
    expect(existsSync(join(dataDir, 'apps', appId))).toBe(false);
    expect(existsSync(database!)).toBe(false);
  }, 180_000);
});
