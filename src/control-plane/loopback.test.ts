/**
 * The whole loop over real HTTP on loopback: the control plane on port 0, `platform auth login`
 * approved on the approval page, `platform deploy` of a template, the hosted app (index.html, an
 * endpoint write, a query), `promote`, a second deploy, `rollback`, env values, preview and production
 * data kept apart, and everything still there after a restart.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeCompiler } from '../adapters/node/compiler';
import type { Compiler } from '../core/build';
import { startControlPlane, type Started } from './main';
import { approveOverHttp, cookieOf, hostedRequest, platformOverLoopback } from '../testing/control-plane';

const ROOT = join(import.meta.dirname, '../..');
let work: string;
let dataDir: string;
let project: string;
let started: Started;
let shared: Compiler | undefined;
const compiler = async () => (shared ??= nodeCompiler());

const platform = (args: string[], options: { onStderr?: (text: string) => void } = {}) =>
  platformOverLoopback(args, { cwd: project, work, controlUrl: started.url, compiler, ...options });

const query = (origin: string, name: string, input: unknown, cookie?: string) =>
  hostedRequest(origin, `/_platform/v0/query/${name}`, { method: 'POST', body: JSON.stringify({ input }), ...(cookie ? { headers: { cookie } } : {}) });

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'platform-loop-'));
  dataDir = join(work, 'data');
  project = join(work, 'endpoints');
  cpSync(join(ROOT, 'templates/endpoints'), project, { recursive: true });
  started = await startControlPlane({ dataDir, port: 0, devicePollMs: 20 });
});

afterAll(async () => {
  await started?.stop();
  rmSync(work, { recursive: true, force: true });
});

// The steps of one story (sign in, deploy, promote, roll back, restart): each builds on the one before,
// so they run in the order written, even when the suite is shuffled.
describe('deploy, serve, promote and roll back over loopback', { shuffle: false }, () => {
  let previewUrl: string;
  let productionUrl: string;
  let firstArtifact: string;

  it('signs in with a device code a person approves on the approval page', async () => {
    let approval: Promise<Response> | undefined;
    const login = await platform(['auth', 'login'], {
      onStderr(text) {
        const code = /code ([A-Z]{4}-[A-Z]{4})/.exec(text)?.[1];
        const url = /open (\S+)/.exec(text)?.[1];
        if (!code || !url || approval) return;
        expect(url).toBe(`${started.url}/device?code=${code}`);
        approval = approveOverHttp(started.url, code, 'alice', started.plane.secrets.operatorSecret);
      },
    });
    expect((await approval)?.status).toBe(200);
    expect(login.envelope).toMatchObject({ ok: true, result: { builder: { name: 'alice' }, credential: 'session' } });
    // The secret is stored, never printed.
    const stored = readFileSync(join(work, 'config/credentials.json'), 'utf8');
    const token = /"token": "(xbs_[^"]+)"/.exec(stored)![1]!;
    expect(login.stderr).not.toContain(token);
    expect(JSON.stringify(login.envelope)).not.toContain(token);
    const status = await platform(['auth', 'status']);
    expect(status.envelope.result).toMatchObject({ builder: { name: 'alice' }, controlUrl: started.url });
  });

  it('deploys the template to preview and serves it at its own origin', async () => {
    const deployed = await platform(['deploy', '.']);
    expect(deployed.envelope.diagnostics).toEqual([]);
    expect(deployed.code).toBe(0);
    const result = deployed.envelope.result;
    expect(result).toMatchObject({ environment: 'preview', artifactId: expect.stringMatching(/^sha256:[0-9a-f]{64}$/), receiptId: expect.stringMatching(/^review_/) });
    firstArtifact = result.artifactId;
    previewUrl = result.url;
    expect(previewUrl).toBe(`http://${result.appId.replace('_', '-')}--preview.localhost:${started.port}`);
    expect(JSON.parse(readFileSync(join(project, 'platform.project.json'), 'utf8'))).toEqual({ format: 'platform.project.v0', appId: result.appId });

    const index = await hostedRequest(previewUrl, '/');
    expect(index.status).toBe(200);
    expect(index.headers['content-type']).toContain('text/html');
    expect(index.text).toContain('<div id="app">');
    const script = await hostedRequest(previewUrl, '/_platform/app/app.js');
    expect(script.status).toBe(200);
    expect(script.headers['content-type']).toContain('javascript');

    const visit = await hostedRequest(previewUrl, '/api/visits/home', { method: 'POST' });
    expect(visit.status).toBe(201);
    expect(JSON.parse(visit.text)).toEqual({ path: 'home', count: 1 });
    const cookie = cookieOf(visit);
    expect(cookie).toMatch(/^__platform_guest=/);
    const counted = await query(previewUrl, 'visits.count', { path: 'home' }, cookie);
    expect(JSON.parse(counted.text)).toEqual({ result: 1 });
    // A known visitor keeps its signed cookie; a forged one is replaced.
    expect(counted.headers['set-cookie']).toBeUndefined();
    const forged = await query(previewUrl, 'visits.count', { path: 'home' }, '__platform_guest=AAAAAAAAAAAAAAAAAAAAAA.forged');
    expect(cookieOf(forged)).toMatch(/^__platform_guest=/);
  });

  it('promotes what preview serves; production has its own data', async () => {
    const promoted = await platform(['promote']);
    expect(promoted.envelope).toMatchObject({ ok: true, result: { artifactId: firstArtifact } });
    productionUrl = promoted.envelope.result.url;
    expect(productionUrl).toBe(previewUrl.replace('--preview', ''));
    expect(JSON.parse((await query(productionUrl, 'visits.count', { path: 'home' })).text)).toEqual({ result: 0 });
    await hostedRequest(productionUrl, '/api/visits/home', { method: 'POST' });
    await hostedRequest(productionUrl, '/api/visits/home', { method: 'POST' });
    expect(JSON.parse((await query(productionUrl, 'visits.count', { path: 'home' })).text)).toEqual({ result: 2 });
    expect(JSON.parse((await query(previewUrl, 'visits.count', { path: 'home' })).text)).toEqual({ result: 1 });
  });

  it('deploys a change, promotes it, and rolls production back to the first artifact, keeping its data', async () => {
    const file = join(project, 'src/server/index.ts');
    writeFileSync(file, readFileSync(file, 'utf8').replace("?? 'Hello'", "?? 'Howdy'"));
    const second = await platform(['deploy']);
    expect(second.envelope.ok).toBe(true);
    expect(second.envelope.result.artifactId).not.toBe(firstArtifact);
    expect(JSON.parse((await hostedRequest(previewUrl, '/api/greet/ann')).text)).toEqual({ message: 'Howdy, ann!' });
    expect(JSON.parse((await hostedRequest(productionUrl, '/api/greet/ann')).text)).toEqual({ message: 'Hello, ann!' });

    const promoted = await platform(['promote', '--receipt', second.envelope.result.receiptId]);
    expect(promoted.envelope.ok).toBe(true);
    expect(JSON.parse((await hostedRequest(productionUrl, '/api/greet/ann')).text)).toEqual({ message: 'Howdy, ann!' });

    const rolled = await platform(['rollback', firstArtifact]);
    expect(rolled.envelope).toMatchObject({ ok: true, result: { environment: 'production', artifactId: firstArtifact } });
    expect(JSON.parse((await hostedRequest(productionUrl, '/api/greet/ann')).text)).toEqual({ message: 'Hello, ann!' });
    expect(JSON.parse((await query(productionUrl, 'visits.count', { path: 'home' })).text)).toEqual({ result: 2 });

    const history = await platform(['deployments', '--limit', '10']);
    expect(history.envelope.result.deployments.map((d: { kind: string; environment: string }) => `${d.kind}:${d.environment}`)).toEqual([
      'rollback:production', 'promote:production', 'deploy:preview', 'promote:production', 'deploy:preview',
    ]);
  });

  it('gives production its environment values', async () => {
    const set = await platform(['env', 'set', 'GREETING', 'Hi', '--environment', 'prod']);
    expect(set.envelope.ok).toBe(true);
    expect(JSON.parse((await hostedRequest(productionUrl, '/api/greet/ann')).text)).toEqual({ message: 'Hi, ann!' });
    expect(JSON.parse((await hostedRequest(previewUrl, '/api/greet/ann')).text)).toEqual({ message: 'Howdy, ann!' });
  });

  it('keeps records, artifacts and app data across a restart', async () => {
    await started.stop();
    const port = started.port;
    started = await startControlPlane({ dataDir, port, devicePollMs: 20 });
    const history = await platform(['deployments']);
    expect(history.envelope.result.deployments).toHaveLength(5);
    expect(JSON.parse((await query(productionUrl, 'visits.count', { path: 'home' })).text)).toEqual({ result: 2 });
    expect(JSON.parse((await query(previewUrl, 'visits.count', { path: 'home' })).text)).toEqual({ result: 1 });
    expect(JSON.parse((await hostedRequest(productionUrl, '/api/greet/ann')).text)).toEqual({ message: 'Hi, ann!' });
  });
});
