/**
 * Deploy bodies may be 64 MiB each, read once the caller is known. Many at once from a signed-in
 * builder must not add up in the control plane's memory: they are read a couple at a time, the others
 * held back in their sockets.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startControlPlane, type Started } from './main';
import { call, sendHuge, signIn } from '../testing/control-plane';

const MiB = 1024 * 1024;
let work: string;
let started: Started;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'platform-deploy-memory-'));
  started = await startControlPlane({ dataDir: join(work, 'data'), port: 0 });
}, 60_000);

afterAll(async () => {
  await started?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('concurrent deploy bodies', () => {
  it('twenty 48 MiB deploys at once are each answered, and the control plane holds a few of them at a time, not twenty', async () => {
    const token = await signIn(started.plane, 'bulk');
    const appId = ((await (await call(started.plane, 'POST', '/v0/apps', { token, body: { name: 'bulk-app' } })).json()) as { app: { id: string } }).app.id;
    const before = process.memoryUsage().rss;
    // Bodies of spaces: read in full (48 MiB, under the 64 MiB limit), then refused as not JSON.
    const sent = await Promise.all(Array.from({ length: 20 }, () => sendHuge(started.port, `/v0/apps/${appId}/deployments`, 48 * MiB, { authorization: `Bearer ${token}` })));
    expect(sent.map((s) => s.status)).toEqual(Array(20).fill(400));
    const peak = Math.max(...sent.map((s) => s.peakRss));
    // Read two at a time: about 300 MB here. Twenty held at once: over 1 GB (each a 48 MiB text besides its chunks).
    expect((peak - before) / MiB).toBeLessThan(600);
    expect((await call(started.plane, 'GET', '/v0/health')).status).toBe(200);
  }, 120_000);
});
