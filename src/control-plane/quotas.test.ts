/** Quotas under concurrency, as a builder racing them would try: every request checks and records its place in one step. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createControlPlane, type ControlPlane } from './control-plane';
import { build, deployBody, smallApp, withFile, type BuiltApp } from '../testing/control-plane-apps';
import { call, signIn } from '../testing/control-plane';

let work: string;
let plane: ControlPlane;
let small: BuiltApp;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'platform-quotas-'));
  plane = await createControlPlane({ dataDir: join(work, 'data'), quotas: { appsPerBuilder: 5, deploysPerHour: 60 } });
  small = await build(smallApp({ storage: false }));
}, 120_000);

afterAll(async () => {
  await plane.close();
  rmSync(work, { recursive: true, force: true });
});

describe('quotas are checked and recorded atomically', () => {
  it('lets exactly 52 of 60 concurrent deploys past the quota when 8 of 60 are used, and records each of them', async () => {
    const token = await signIn(plane, 'racer');
    const appId = ((await (await call(plane, 'POST', '/v0/apps', { token, body: { name: 'small-app' } })).json()) as { app: { id: string } }).app.id;
    // Eight deployments already made (refused artifacts count: they are failed deployments).
    const refused = deployBody(small);
    refused.artifact.id = `sha256:${'1'.repeat(64)}`;
    for (let i = 0; i < 8; i++) expect((await call(plane, 'POST', `/v0/apps/${appId}/deployments`, { token, body: refused })).status).toBe(422);

    // Sixty at once. Each accepted one is received and checked (an await between the quota and the
    // outcome, where the race was); its server bundle is refused at receipt, so no app starts 52 times
    // on a shared machine: what is counted is the quota, not the hosting.
    const crafted = deployBody(withFile(small, 'server/index.js', `import 'node:fs';\n${new TextDecoder().decode(small.files.get('server/index.js'))}`));
    const answers = await Promise.all(Array.from({ length: 60 }, () => call(plane, 'POST', `/v0/apps/${appId}/deployments`, { token, body: crafted })));
    const codes = await Promise.all(answers.map(async (a) => ((await a.json()) as { error: { code: string; quota?: string } }).error));
    expect(codes.filter((e) => e.code === 'quota_exceeded')).toHaveLength(8);
    expect(codes.filter((e) => e.code === 'quota_exceeded').every((e) => e.quota === 'deploys-hour')).toBe(true);
    expect(codes.filter((e) => e.code === 'module_invalid')).toHaveLength(52);

    const history = (await (await call(plane, 'GET', `/v0/apps/${appId}/deployments?limit=200`, { token })).json()) as { deployments: { state: string }[] };
    expect(history.deployments).toHaveLength(60);
    // And nothing more fits, whatever the route.
    expect((await call(plane, 'POST', `/v0/apps/${appId}/deployments`, { token, body: deployBody(small) })).status).toBe(429);
  });

  it('accepts exactly what is left when deploys that start the app race', async () => {
    const token = await signIn(plane, 'second');
    const appId = ((await (await call(plane, 'POST', '/v0/apps', { token, body: { name: 'small-app' } })).json()) as { app: { id: string } }).app.id;
    const refused = deployBody(small);
    refused.artifact.id = `sha256:${'1'.repeat(64)}`;
    for (let i = 0; i < 57; i++) await call(plane, 'POST', `/v0/apps/${appId}/deployments`, { token, body: refused });
    const answers = await Promise.all(Array.from({ length: 6 }, () => call(plane, 'POST', `/v0/apps/${appId}/deployments`, { token, body: deployBody(small) })));
    expect(answers.map((a) => a.status).sort()).toEqual([201, 201, 201, 429, 429, 429]);
  }, 120_000);

  it('creates exactly as many apps as the quota allows when 12 are asked for at once', async () => {
    const token = await signIn(plane, 'hoarder');
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => call(plane, 'POST', '/v0/apps', { token, body: { name: `app-${i}` } })));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(5);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(7);
    const listed = (await (await call(plane, 'GET', '/v0/apps', { token })).json()) as { apps: unknown[] };
    expect(listed.apps).toHaveLength(5);
  });
});
