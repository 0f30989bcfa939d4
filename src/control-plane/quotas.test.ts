/** Quotas under concurrency, as a builder racing them would try: every request checks and records its place in one step. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createControlPlane, type ControlPlane } from './control-plane';
import { build, deployBody, smallApp, type BuiltApp } from './fixtures';
import { call, signIn } from './test-helpers';

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
  it('accepts exactly 52 of 60 concurrent deploys when 8 of 60 are used', async () => {
    const token = await signIn(plane, 'racer');
    const appId = ((await (await call(plane, 'POST', '/v0/apps', { token, body: { name: 'small-app' } })).json()) as { app: { id: string } }).app.id;
    // Eight deployments already made (refused artifacts count: they are failed deployments).
    const refused = deployBody(small);
    refused.artifact.id = `sha256:${'1'.repeat(64)}`;
    for (let i = 0; i < 8; i++) expect((await call(plane, 'POST', `/v0/apps/${appId}/deployments`, { token, body: refused })).status).toBe(422);

    const answers = await Promise.all(Array.from({ length: 60 }, () => call(plane, 'POST', `/v0/apps/${appId}/deployments`, { token, body: deployBody(small) })));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(52);
    expect(statuses.filter((s) => s === 429)).toHaveLength(8);
    for (const answer of answers.filter((a) => a.status === 429)) expect(((await answer.json()) as { error: { quota: string } }).error.quota).toBe('deploys-hour');

    const history = (await (await call(plane, 'GET', `/v0/apps/${appId}/deployments?limit=200`, { token })).json()) as { deployments: { state: string }[] };
    expect(history.deployments).toHaveLength(60);
    expect(history.deployments.filter((d) => d.state === 'completed')).toHaveLength(52);
    // And nothing more fits.
    expect((await call(plane, 'POST', `/v0/apps/${appId}/promote`, { token, body: {} })).status).toBe(429);
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
