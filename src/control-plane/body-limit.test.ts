/** Request bodies past the limit, as an attacker sends them: declared, chunked without a length, and 1.5 GB over real HTTP. */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BodyTooLargeError, limitRequest, readLimited } from './body-limit';
import { MAX_BODY_BYTES } from './control-plane';
import { startControlPlane, type Started } from './main';
import { BASE, sendHuge, signIn } from '../testing/control-plane';

let work: string;
let started: Started;
let token: string;
let appId: string;

/** A body of `total` bytes in 1 MiB chunks, made as they are read (the sender holds one chunk). */
function chunked(total: number): ReadableStream<Uint8Array> {
  const chunk = new Uint8Array(1024 * 1024).fill(0x20);
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent >= total) return controller.close();
      const size = Math.min(chunk.byteLength, total - sent);
      sent += size;
      controller.enqueue(size === chunk.byteLength ? chunk : chunk.subarray(0, size));
    },
  });
}

const inProcess = (path: string, body: ReadableStream<Uint8Array> | string, headers: Record<string, string> = {}) =>
  Promise.resolve(started.plane.app.request(new Request(`${BASE}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body, duplex: 'half' } as RequestInit)));

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'platform-body-'));
  started = await startControlPlane({ dataDir: join(work, 'data'), port: 0 });
  token = await signIn(started.plane, 'mallory');
  const created = (await (await inProcess('/v0/apps', JSON.stringify({ name: 'target' }), { authorization: `Bearer ${token}` })).json()) as { app: { id: string } };
  appId = created.app.id;
});

afterAll(async () => {
  await started?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('the helper', () => {
  it('counts a stream as it is read, whatever the Content-Length says', async () => {
    const lying = new Request('http://x/', { method: 'POST', headers: { 'content-length': '10' }, body: chunked(5000), duplex: 'half' } as RequestInit);
    await expect(readLimited(lying, 4096)).rejects.toBeInstanceOf(BodyTooLargeError);
    expect(() => limitRequest(new Request('http://x/', { method: 'POST', headers: { 'content-length': '5000' }, body: 'x' }), 4096)).toThrow(BodyTooLargeError);
    await expect(limitRequest(new Request('http://x/', { method: 'POST', body: chunked(5000), duplex: 'half' } as RequestInit), 4096).text()).rejects.toBeInstanceOf(BodyTooLargeError);
    expect((await readLimited(new Request('http://x/', { method: 'POST', body: chunked(4096), duplex: 'half' } as RequestInit), 4096)).byteLength).toBe(4096);
  });
});

describe('every route counts its body', () => {
  it('answers 413 too_large to a chunked body past the limit with no Content-Length, on a public route', async () => {
    const answer = await inProcess('/v0/auth/device', chunked(MAX_BODY_BYTES + 1));
    expect(answer.status).toBe(413);
    expect(((await answer.json()) as { error: { code: string } }).error.code).toBe('too_large');
    expect(answer.headers.get('connection')).toBe('close');
  });

  it('answers 413 to a declared Content-Length past the limit without reading the body', async () => {
    const answer = await inProcess('/v0/auth/device', chunked(1024), { 'content-length': String(MAX_BODY_BYTES + 1) });
    expect(answer.status).toBe(413);
  });

  it('answers 413 on an authenticated route and on the approval form, and changes nothing', async () => {
    const apps = await inProcess('/v0/apps', chunked(MAX_BODY_BYTES * 2), { authorization: `Bearer ${token}` });
    expect(apps.status).toBe(413);
    const form = await Promise.resolve(started.plane.app.request(new Request(`${BASE}/device`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: chunked(MAX_BODY_BYTES * 2), duplex: 'half' } as RequestInit)));
    expect(form.status).toBe(413);
    const listed = (await (await started.plane.app.request(new Request(`${BASE}/v0/apps`, { headers: { authorization: `Bearer ${token}` } }))).json()) as { apps: unknown[] };
    expect(listed.apps).toHaveLength(1);
  });

  it('accepts a deploy body up to 64 MiB and refuses one past it as it streams, recording nothing', async () => {
    const answer = await inProcess(`/v0/apps/${appId}/deployments`, chunked(64 * 1024 * 1024 + 1), { authorization: `Bearer ${token}` });
    expect(answer.status).toBe(413);
    const history = (await (await started.plane.app.request(new Request(`${BASE}/v0/apps/${appId}/deployments`, { headers: { authorization: `Bearer ${token}` } }))).json()) as { deployments: unknown[] };
    expect(history.deployments).toEqual([]);
    expect(readdirSync(join(work, 'data')).filter((name) => name === 'blobs' || name === 'artifacts')).toEqual([]);
  });
});

describe('over real HTTP', () => {
  it('answers a 1.5 GB chunked body 413 with memory flat, on the deploy route and on a public route', async () => {
    const total = 1536 * 1024 * 1024;
    for (const [path, headers] of [
      [`/v0/apps/${appId}/deployments`, { authorization: `Bearer ${token}` }],
      ['/v0/auth/device', {}],
    ] as const) {
      const before = process.memoryUsage().rss;
      const sent = await sendHuge(started.port, path, total, headers);
      expect(sent.status).toBe(413);
      // The server stopped reading long before the end, and held at most the limit.
      expect(sent.written).toBeLessThan(total);
      const grown = (sent.peakRss - before) / 1024 / 1024;
      console.log(`${path.startsWith('/v0/auth') ? 'public route' : 'deploy route'}: ${(sent.written / 1024 / 1024).toFixed(0)} MiB written before the connection closed, RSS grew ${grown.toFixed(0)} MB at most`);
      expect(grown).toBeLessThan(300);
    }
    const health = await fetch(`${started.url}/v0/health`);
    expect(health.status).toBe(200);
  }, 60_000);
});
