/**
 * `platform tunnel` as a person runs it: the real CLI in its own process, signed in to a control plane
 * listening on loopback, exposing a loopback HTTP server at the control plane's tunnel URL; Ctrl-C
 * closes it cleanly. Attacks: another builder cannot serve, answer or close someone's tunnel (even with
 * its key), the opener's own credential needs the key too, a visitor's path cannot make the CLI reach
 * anything but its own loopback server, redirects are not followed, and bodies are capped both ways.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileCredentialStore } from '../adapters/node/credentials';
import { TUNNEL_KEY_HEADER, TUNNEL_MAX_BODY_BYTES } from '../core/deploy';
import { startCli } from '../testing/cli';
import { compiler } from '../testing/control-plane-apps';
import { startControlPlane, type Started } from './main';
import { eventually, hostedRequest, platformOverLoopback, signIn } from '../testing/control-plane';

let work: string;
let started: Started;
let local: Server;
let localPort: number;
let other: Server;
let otherHits = 0;
const seen: Array<{ method: string; url: string; body: string; header?: string }> = [];
const tokens: Record<string, string> = {};

function listen(server: Server): Promise<number> {
  return new Promise((done) => server.listen(0, '127.0.0.1', () => done((server.address() as { port: number }).port)));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((done) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => done(Buffer.concat(chunks).toString('utf8')));
  });
}

const api = (path: string, init: { method?: string; token?: string; key?: string; body?: unknown } = {}) =>
  fetch(`${started.url}${path}`, {
    method: init.method ?? 'GET',
    headers: { ...(init.token ? { authorization: `Bearer ${init.token}` } : {}), ...(init.key ? { [TUNNEL_KEY_HEADER]: init.key } : {}), ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'platform-tunnel-'));
  started = await startControlPlane({ dataDir: join(work, 'data'), port: 0, devicePollMs: 5, tunnels: { pollMs: 2000 } });
  for (const who of ['alice', 'mallory']) {
    tokens[who] = await signIn(started.plane, who);
    await new FileCredentialStore(join(work, who, 'config')).write(started.url, { token: tokens[who]!, builder: { id: 'bld_x', name: who }, createdAt: new Date().toISOString() });
  }
  // The builder's own server (what platform dev would be), and another loopback server the tunnel must never reach.
  local = createServer((req, res) => {
    void readBody(req).then((body) => {
      seen.push({ method: req.method!, url: req.url!, body, ...(req.headers['x-visitor'] ? { header: String(req.headers['x-visitor']) } : {}) });
      if (req.url === '/redirect') {
        res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data' });
        return res.end();
      }
      if (req.url === '/huge') return res.end(Buffer.alloc(TUNNEL_MAX_BODY_BYTES + 1, 0x61));
      res.setHeader('content-type', 'application/json');
      res.setHeader('x-local', 'yes');
      res.end(JSON.stringify({ method: req.method, url: req.url, body }));
    });
  });
  localPort = await listen(local);
  other = createServer((_req, res) => {
    otherHits++;
    res.end('secret');
  });
  await listen(other);
}, 60_000);

afterAll(async () => {
  await started?.stop();
  await Promise.all([local, other].map((s) => new Promise((done) => s?.close(done))));
  rmSync(work, { recursive: true, force: true });
});

/** `platform tunnel --port <port> --json` in its own process, as alice; resolves with its URL once it printed it. */
function openTunnel(port: number): Promise<{ child: ChildProcess; url: string; done: Promise<{ code: number | null; envelope: any }> }> {
  const { child, output, ended } = startCli(['tunnel', '--port', String(port), '--json'], {
    cwd: work,
    env: { PLATFORM_SERVICE_TOKEN: '', PLATFORM_CONFIG_DIR: join(work, 'alice', 'config'), PLATFORM_CONTROL_URL: started.url },
  });
  const done = ended.then(({ code, stdout }): { code: number | null; envelope: any } => ({ code, envelope: stdout ? JSON.parse(stdout) : undefined }));
  return new Promise((resolve, reject) => {
    child.stderr!.on('data', () => {
      const url = /tunnel open: (\S+)/.exec(output.stderr)?.[1];
      if (url) resolve({ child, url, done });
    });
    void done.then((exit) => reject(new Error(`platform tunnel exited ${exit.code} before opening: ${output.stderr} ${output.stdout}`)));
  });
}

describe('platform tunnel', { shuffle: false }, () => {
  it('refuses a bad --port (DG0002), a server that is not there (DG2001) and a builder not signed in (DG5002)', async () => {
    const as = (who: string, args: string[]) => platformOverLoopback(args, { cwd: work, work: join(work, who), controlUrl: started.url, compiler });
    expect((await as('alice', ['tunnel'])).envelope.diagnostics.map((d: { code: string }) => d.code)).toEqual(['DG0002']);
    expect((await as('alice', ['tunnel', '--port', '70000'])).envelope.diagnostics.map((d: { code: string }) => d.code)).toEqual(['DG0002']);
    expect((await as('alice', ['tunnel', '--port', '1'])).envelope.diagnostics.map((d: { code: string }) => d.code)).toEqual(['DG2001']);
    expect((await as('nobody', ['tunnel', '--port', String(localPort)])).envelope.diagnostics.map((d: { code: string }) => d.code)).toEqual(['DG5002']);
    expect((await api('/v0/tunnels', { method: 'POST', body: {} })).status).toBe(401);
  });

  it('serves the loopback server at the control plane\'s URL, only it, and closes cleanly on Ctrl-C', async () => {
    const { child, url, done } = await openTunnel(localPort);
    expect(url).toMatch(new RegExp(`^http://tun-[a-z2-7]{26}\\.localhost:${started.port}$`));

    const get = await hostedRequest(url, '/hello?x=1', { headers: { 'x-visitor': 'v1' } });
    expect(get.status).toBe(200);
    expect(get.headers['x-local']).toBe('yes');
    expect(JSON.parse(get.text)).toEqual({ method: 'GET', url: '/hello?x=1', body: '' });
    expect(seen.at(-1)).toMatchObject({ url: '/hello?x=1', header: 'v1' });
    const post = await hostedRequest(url, '/items', { method: 'POST', body: JSON.stringify({ a: 1 }) });
    expect(JSON.parse(post.text)).toEqual({ method: 'POST', url: '/items', body: '{"a":1}' });

    // A path naming another host reaches the builder's own server, as a path of it.
    const sneaky = await hostedRequest(url, `//127.0.0.1:${(other.address() as { port: number }).port}/secret`);
    expect(JSON.parse(sneaky.text).url).toBe(`/127.0.0.1:${(other.address() as { port: number }).port}/secret`);
    expect(otherHits).toBe(0);
    // A redirect elsewhere is handed to the visitor, never followed by the CLI.
    const redirect = await hostedRequest(url, '/redirect');
    expect(redirect.status).toBe(302);
    expect(redirect.headers.location).toBe('http://169.254.169.254/latest/meta-data');

    // Bodies are capped both ways.
    const big = await hostedRequest(url, '/upload', { method: 'POST', body: 'a'.repeat(TUNNEL_MAX_BODY_BYTES + 1) });
    expect(big.status).toBe(413);
    expect(seen.some((s) => s.url === '/upload')).toBe(false);
    const huge = await hostedRequest(url, '/huge');
    expect(huge.status).toBe(502);

    child.kill('SIGINT');
    const exit = await done;
    expect(exit.code).toBe(0);
    expect(exit.envelope).toMatchObject({ ok: true, command: 'tunnel', result: { url, target: `http://127.0.0.1:${localPort}`, served: 5, closed: 'interrupted (Ctrl-C)' } });
    expect((await hostedRequest(url, '/hello')).status).toBe(404);
  }, 120_000);

  it('lets no one but the opener, with its key, take, answer or close a tunnel\'s requests', async () => {
    const opened = (await (await api('/v0/tunnels', { method: 'POST', token: tokens.alice, body: {} })).json()) as { tunnel: { id: string; url: string }; key: string };
    const { id, url } = opened.tunnel;
    // A visitor's request waits for the tunnel.
    const visitor = hostedRequest(url, '/private');
    // Mallory, even holding the key, is told there is no such tunnel; alice without it, or with another, is refused.
    expect((await api(`/v0/tunnels/${id}/next`, { token: tokens.mallory, key: opened.key })).status).toBe(404);
    expect((await api(`/v0/tunnels/${id}/next`, { token: tokens.alice })).status).toBe(403);
    expect((await api(`/v0/tunnels/${id}/next`, { token: tokens.alice, key: 'A'.repeat(43) })).status).toBe(403);
    expect((await api(`/v0/tunnels/${id}/next`, { key: opened.key })).status).toBe(401);
    expect((await api(`/v0/tunnels/${id}`, { method: 'DELETE', token: tokens.mallory, key: opened.key })).status).toBe(404);
    // The opener takes it; mallory cannot answer it in her place.
    let taken: { request: { id: string; path: string } | null } = { request: null };
    await eventually(async () => {
      taken = (await (await api(`/v0/tunnels/${id}/next`, { token: tokens.alice, key: opened.key })).json()) as typeof taken;
      return taken.request !== null;
    });
    expect(taken.request!.path).toBe('/private');
    const answer = { status: 200, headers: { 'content-type': 'text/plain' }, body: Buffer.from('forged').toString('base64') };
    expect((await api(`/v0/tunnels/${id}/answers/${taken.request!.id}`, { method: 'POST', token: tokens.mallory, key: opened.key, body: answer })).status).toBe(404);
    const real = { ...answer, body: Buffer.from('from alice').toString('base64') };
    expect((await api(`/v0/tunnels/${id}/answers/${taken.request!.id}`, { method: 'POST', token: tokens.alice, key: opened.key, body: real })).status).toBe(200);
    expect((await visitor).text).toBe('from alice');
    // An answer over the cap is refused, the visitor waits on; closing ends the wait with 502.
    const second = hostedRequest(url, '/again');
    await eventually(async () => {
      taken = (await (await api(`/v0/tunnels/${id}/next`, { token: tokens.alice, key: opened.key })).json()) as typeof taken;
      return taken.request !== null;
    });
    const oversize = { ...answer, body: Buffer.alloc(TUNNEL_MAX_BODY_BYTES + 1).toString('base64') };
    expect((await api(`/v0/tunnels/${id}/answers/${taken.request!.id}`, { method: 'POST', token: tokens.alice, key: opened.key, body: oversize })).status).toBe(413);
    expect((await api(`/v0/tunnels/${id}`, { method: 'DELETE', token: tokens.alice, key: opened.key })).status).toBe(200);
    expect((await second).status).toBe(502);
    expect((await hostedRequest(url, '/private')).status).toBe(404);
  }, 60_000);

  it('refuses a flood of visitors past what a tunnel may hold (503), and closes a tunnel whose command is gone', async () => {
    const opened = (await (await api('/v0/tunnels', { method: 'POST', token: tokens.alice, body: {} })).json()) as { tunnel: { id: string; url: string }; key: string };
    // Nobody takes these: the first 32 wait (each holding its body), the rest are refused at once.
    const flood = Array.from({ length: 40 }, (_, i) => hostedRequest(opened.tunnel.url, `/flood/${i}`, { method: 'POST', body: 'x'.repeat(1000) }));
    const refused = await Promise.race([Promise.all(flood.slice(32)), new Promise<'stuck'>((done) => setTimeout(() => done('stuck'), 20_000))]);
    expect(refused).not.toBe('stuck');
    expect((refused as Array<{ status: number }>).map((r) => r.status)).toEqual(Array(8).fill(503));
    // Its command never polls: after three poll periods the next open closes it, and its waiting visitors get 502.
    await new Promise((done) => setTimeout(done, 3 * 2000 + 500));
    expect((await api('/v0/tunnels', { method: 'POST', token: tokens.alice, body: {} })).status).toBe(201);
    expect((await Promise.all(flood.slice(0, 32))).every((r) => r.status === 502)).toBe(true);
    expect((await hostedRequest(opened.tunnel.url, '/after')).status).toBe(404);
  }, 60_000);
});
