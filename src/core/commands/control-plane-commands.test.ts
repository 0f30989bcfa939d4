/**
 * The commands that talk to a control plane, run through the CLI's own entry (`main`) against a real
 * control plane in process: every DG50xx and DG51xx path they have.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileCredentialStore } from '../../adapters/node/credentials';
import { runInProcess } from '../../testing/cli';
import { createControlPlane, type ControlPlane } from '../../control-plane/control-plane';
import { compiler } from '../../testing/control-plane-apps';
import { approve, BASE, signIn } from '../../testing/control-plane';

const ROOT = join(import.meta.dirname, '../../..');
const UNTRUSTED = 'http://app-aaaaaaaaaaaaaaaaaaaaaaaaaa.localhost:4310';
const SERVICE_TOKEN_SHAPE = `xst_${'A'.repeat(43)}`;
const FAKE_APP = 'app_bbbbbbbbbbbbbbbbbbbbbbbbbb';
const ARTIFACT = `sha256:${'a'.repeat(64)}`;
let work: string;
let plane: ControlPlane;
let limited: ControlPlane;
let closedUrl: string;

interface Run {
  code: number;
  envelope: { ok: boolean; result?: any; diagnostics: Array<{ code: string; message: string; hint?: string; file?: string }> };
  stdout: string;
  stderr: string;
}

/** `platform <args> --json` as `who` (a config directory), against `target` (the main control plane by default). */
async function cli(args: string[], options: { cwd?: string; who?: string; env?: Record<string, string>; target?: ControlPlane | 'network'; onStderr?: (t: string) => void } = {}): Promise<Run> {
  const target = options.target ?? plane;
  const { code, stdout, stderr } = await runInProcess([...args, '--json'], {
    cwd: options.cwd ?? work,
    compiler,
    env: { PLATFORM_CONFIG_DIR: join(work, 'config', options.who ?? 'alice'), PLATFORM_CONTROL_URL: BASE, ...options.env },
    ...(target === 'network' ? {} : { fetch: (request: Request) => Promise.resolve(target.app.request(request)) }),
    ...(options.onStderr ? { onStderr: options.onStderr } : {}),
  });
  return { code, envelope: JSON.parse(stdout), stdout, stderr };
}

const codes = (run: Run) => run.envelope.diagnostics.map((d) => d.code);

/** A copy of a template in its own directory. */
function project(name: string, template = 'endpoints'): string {
  const dir = join(work, 'projects', name);
  cpSync(join(ROOT, 'templates', template), dir, { recursive: true });
  return dir;
}

function edit(dir: string, path: string, change: (text: string) => string): void {
  writeFileSync(join(dir, path), change(readFileSync(join(dir, path), 'utf8')));
}

async function storeSession(controlPlane: ControlPlane, who: string, url = BASE): Promise<void> {
  const token = await signIn(controlPlane, who);
  await new FileCredentialStore(join(work, 'config', who)).write(url, { token, builder: { id: 'bld_x', name: who }, createdAt: new Date().toISOString() });
}

const hosted = (appId: string, path: string, init?: RequestInit) => plane.app.request(new Request(`http://${appId.replace('_', '-')}--preview.localhost:4310${path}`, init));

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'platform-cmd-'));
  plane = await createControlPlane({ dataDir: join(work, 'plane'), devicePollMs: 5, appStartTimeoutMs: 2000 });
  limited = await createControlPlane({ dataDir: join(work, 'limited'), devicePollMs: 5, quotas: { appsPerBuilder: 1, deploysPerHour: 1 } });
  await storeSession(plane, 'bob');
  await storeSession(limited, 'quinn');
  // A port nothing listens on.
  closedUrl = await new Promise<string>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(`http://127.0.0.1:${port}`));
    });
  });
}, 60_000);

afterAll(async () => {
  await plane.close();
  await limited.close();
  rmSync(work, { recursive: true, force: true });
});

// One control plane and one signed-in builder for the whole file: each command's steps build on the
// previous ones (the app deployed, its history, its tokens), so they run in the order written, even
// when the suite is shuffled.
describe('the control plane commands against one control plane', { shuffle: false }, () => {
  describe('platform auth', () => {
    it('signs in once a person approves the code, shows the status, and signs out', async () => {
      let approval: Promise<Response> | undefined;
      const login = await cli(['auth', 'login'], {
        onStderr: (text) => {
          const code = /code ([A-Z]{4}-[A-Z]{4})/.exec(text)?.[1];
          if (code && !approval) approval = approve(plane, code, 'alice');
        },
      });
      expect(login.envelope).toMatchObject({ ok: true, result: { builder: { name: 'alice' }, credential: 'session', controlUrl: BASE } });
      expect((await approval)?.status).toBe(200);
      expect((await cli(['auth', 'status'])).envelope.result).toMatchObject({ builder: { name: 'alice' }, credential: 'session' });
      await storeSession(plane, 'temp');
      expect((await cli(['auth', 'logout'], { who: 'temp' })).envelope.result).toEqual({ controlUrl: BASE, signedOut: true });
      expect(codes(await cli(['auth', 'status'], { who: 'temp' }))).toEqual(['DG5002']);
      expect((await cli(['auth', 'logout'], { who: 'temp' })).envelope.result.signedOut).toBe(false);
    });

    it('DG5005: a code nobody approves in time expires', async () => {
      const short = await createControlPlane({ dataDir: join(work, 'short'), devicePollMs: 5, deviceTtlMs: 1 });
      const run = await cli(['auth', 'login'], { who: 'nobody', target: short });
      expect(codes(run)).toEqual(['DG5005']);
      await short.close();
    });

    it('DG5009: a denied sign-in', async () => {
      let denial: Promise<Response> | undefined;
      const run = await cli(['auth', 'login'], {
        who: 'denied',
        onStderr: (text) => {
          const code = /code ([A-Z]{4}-[A-Z]{4})/.exec(text)?.[1];
          if (code && !denial) denial = approve(plane, code, 'xena', { decision: 'deny' });
        },
      });
      expect(codes(run)).toEqual(['DG5009']);
    });

    it.each([
      [['auth'], 'DG5000'],
      [['auth', 'frobnicate'], 'DG5000'],
      [['auth', 'as'], 'DG5000'],
      [['auth', 'as', 'mallory'], 'DG5000'],
      [['auth', 'status', '--control-url', 'http://localhost:4310/v0'], 'DG5001'],
      [['auth', 'status', '--control-url', 'http://control.example.com'], 'DG5001'],
      [['auth', 'status', '--control-url', 'ftp://localhost'], 'DG5001'],
      [['auth', 'status'], 'DG5002'],
    ])('%j is %s', async (args, code) => {
      expect(codes(await cli(args, { who: 'nobody' }))).toEqual([code]);
    });

    it('DG5003: a malformed PLATFORM_SERVICE_TOKEN is refused without echoing it', async () => {
      const run = await cli(['auth', 'status'], { env: { PLATFORM_SERVICE_TOKEN: 'hunter2-secret-value' } });
      expect(codes(run)).toEqual(['DG5003']);
      expect(run.stdout).not.toContain('hunter2');
    });

    it('DG5008: an unreadable credential file', async () => {
      mkdirSync(join(work, 'config', 'broken'), { recursive: true });
      writeFileSync(join(work, 'config', 'broken', 'credentials.json'), '{ "token": "xbs_leaked"');
      const run = await cli(['auth', 'status'], { who: 'broken' });
      expect(codes(run)).toEqual(['DG5008']);
      expect(run.stdout).not.toContain('leaked');
    });

    it('DG5002: a revoked service token', async () => {
      const created = await cli(['token', 'create', '--name', 'short-lived']);
      await cli(['token', 'revoke', created.envelope.result.token.id]);
      expect(codes(await cli(['auth', 'status'], { env: { PLATFORM_SERVICE_TOKEN: created.envelope.result.secret } }))).toEqual(['DG5002']);
    });
  });

  describe('platform token', () => {
    it('creates (shown once), lists and revokes tokens; a service token deploys under its builder', async () => {
      const created = await cli(['token', 'create', '--name', 'ci bot']);
      expect(created.envelope.result.secret).toMatch(/^xst_[A-Za-z0-9_-]{43}$/);
      const listed = await cli(['token', 'ls']);
      expect(listed.envelope.result.tokens.map((t: { name: string }) => t.name)).toContain('ci bot');
      expect(listed.stdout).not.toContain(created.envelope.result.secret);
      const viaToken = await cli(['auth', 'status'], { who: 'nobody', env: { PLATFORM_SERVICE_TOKEN: created.envelope.result.secret } });
      expect(viaToken.envelope.result).toMatchObject({ builder: { name: 'alice' }, credential: 'service-token' });
      expect((await cli(['token', 'revoke', created.envelope.result.token.id])).envelope.ok).toBe(true);
      expect(codes(await cli(['token', 'revoke', created.envelope.result.token.id]))).toEqual(['DG5181']);
    });

    it.each([
      [['token'], {}],
      [['token', 'mint'], {}],
      [['token', 'create'], {}],
      [['token', 'create', '--name', '  '], {}],
      [['token', 'ls', '--name', 'x'], {}],
      [['token', 'revoke', 'abc'], {}],
      [['token', 'revoke'], {}],
      [['token', 'ls'], { who: 'nobody' }],
      [['token', 'create', '--name', 'child'], { who: 'nobody', env: { PLATFORM_SERVICE_TOKEN: SERVICE_TOKEN_SHAPE } }],
    ])('DG5180: %j', async (args, options) => {
      expect(codes(await cli(args, options))).toEqual(['DG5180']);
    });

    it('DG5180 does not echo a token given where an id belongs', async () => {
      const run = await cli(['token', 'revoke', SERVICE_TOKEN_SHAPE]);
      expect(codes(run)).toEqual(['DG5180']);
      expect(run.stdout).not.toContain(SERVICE_TOKEN_SHAPE);
    });
  });

  describe('platform deploy', () => {
    let dir: string;
    let appId: string;
    let firstArtifact: string;

    it('builds, claims an identity and deploys to preview', async () => {
      dir = project('main');
      const run = await cli(['deploy'], { cwd: dir });
      expect(run.envelope.diagnostics).toEqual([]);
      appId = run.envelope.result.appId;
      firstArtifact = run.envelope.result.artifactId;
      expect(JSON.parse(readFileSync(join(dir, 'platform.project.json'), 'utf8')).appId).toBe(appId);
      expect(JSON.parse(readFileSync(join(dir, '.platform/project.json'), 'utf8'))).toMatchObject({ format: 'platform.project-cache.v0', appId });
      expect((await hosted(appId, '/')).status).toBe(200);
      const again = await cli(['deploy', dir, '--environment', 'production'], { cwd: work });
      expect(again.envelope.result).toMatchObject({ appId, environment: 'production', artifactId: firstArtifact });
    });

    it.each([['dev'], ['staging']])('DG5105: --environment %s', async (environment) => {
      expect(codes(await cli(['deploy', '--environment', environment], { cwd: dir }))).toEqual(['DG5105']);
    });

    it('DG5107: the build failed, its diagnostics follow', async () => {
      const broken = project('broken');
      edit(broken, 'src/server/index.ts', (t) => t.replace("?? 'Hello'", '?? 42'));
      edit(broken, 'src/server/index.ts', (t) => t.replace('const greeting', 'const greeting: string'));
      const run = await cli(['deploy'], { cwd: broken });
      expect(codes(run)[0]).toBe('DG5107');
      expect(codes(run)).toContain('DG1205');
    });

    it('DG5120 and DG5121: an unusable identity file, a cache naming another app', async () => {
      const bad = project('bad-identity');
      writeFileSync(join(bad, 'platform.project.json'), '{"format": "platform.project.v0", "appId": "nope"}');
      const unusable = await cli(['deploy'], { cwd: bad });
      expect(codes(unusable)).toEqual(['DG5120']);
      expect(unusable.envelope.diagnostics[0]!.file).toBe('platform.project.json');
      writeFileSync(join(bad, 'platform.project.json'), JSON.stringify({ format: 'platform.project.v0', appId }));
      mkdirSync(join(bad, '.platform'), { recursive: true });
      writeFileSync(join(bad, '.platform/project.json'), JSON.stringify({ format: 'platform.project-cache.v0', appId: FAKE_APP, controlUrl: BASE }));
      const conflict = await cli(['deploy'], { cwd: bad });
      expect(codes(conflict)).toEqual(['DG5121']);
      expect(conflict.envelope.diagnostics[0]!.hint).toContain(`platform link --app ${appId}`);
      expect((await cli(['link', '--app', appId], { cwd: bad })).envelope.ok).toBe(true);
      expect((await cli(['deployments'], { cwd: bad })).envelope.ok).toBe(true);
    });

    it('DG5111: an appId owned by another builder; DG5123: one this control plane does not know', async () => {
      expect(codes(await cli(['deploy'], { cwd: dir, who: 'bob' }))).toEqual(['DG5111']);
      const unknown = project('unknown-app');
      writeFileSync(join(unknown, 'platform.project.json'), JSON.stringify({ format: 'platform.project.v0', appId: FAKE_APP }));
      expect(codes(await cli(['deploy'], { cwd: unknown }))).toEqual(['DG5123']);
    });

    it('DG5101, DG5103, DG5104: a module that throws on load, one that never finishes loading, one that breaks the runtime', async () => {
      const throws = project('throws');
      edit(throws, 'src/server/index.ts', (t) => `${t}\nif (Math.random() < 2) throw new Error('boom at load');\n`);
      const thrown = await cli(['deploy'], { cwd: throws });
      expect(codes(thrown)).toEqual(['DG5101']);
      expect(thrown.envelope.diagnostics[0]!.message).toContain('boom at load');
      const hangs = project('hangs');
      edit(hangs, 'src/server/index.ts', (t) => `${t}\nlet spin = 0;\nwhile (spin >= 0) spin++;\n`);
      expect(codes(await cli(['deploy'], { cwd: hangs }))).toEqual(['DG5103']);
      const sabotages = project('sabotages');
      edit(sabotages, 'src/server/index.ts', (t) => `${t}\n(globalThis as { decodeURIComponent: unknown }).decodeURIComponent = () => { throw new Error('broken'); };\n`);
      expect(codes(await cli(['deploy'], { cwd: sabotages }))).toEqual(['DG5104']);
    }, 60_000);

    it('DG5106: a database declaration the environment\'s data does not fit; the previous version keeps serving', async () => {
      await hosted(appId, '/api/visits/home', { method: 'POST' });
      edit(dir, 'app.manifest.json', (t) => t.replace('"path": { "type": "string", "maxLength": 200 }', '"path": { "type": "string", "maxLength": 100 }'));
      expect(codes(await cli(['deploy'], { cwd: dir }))).toEqual(['DG5106']);
      edit(dir, 'app.manifest.json', (t) => t.replace('"maxLength": 100', '"maxLength": 200'));
      expect(await (await hosted(appId, '/api/greet/x')).json()).toEqual({ message: 'Hello, x!' });
    });

    it('DG5112 and DG5113: the apps and deploy quotas, naming the reset moment', async () => {
      const first = project('quota-a');
      expect((await cli(['deploy'], { cwd: first, who: 'quinn', target: limited })).envelope.ok).toBe(true);
      const spent = await cli(['deploy'], { cwd: first, who: 'quinn', target: limited });
      expect(codes(spent)).toEqual(['DG5113']);
      expect(spent.envelope.diagnostics[0]!.message).toMatch(/allowed at \d{4}-\d\d-\d\dT/);
      expect(codes(await cli(['promote', '--dir', first], { who: 'quinn', target: limited }))).toEqual(['DG5171']);
      const artifact = JSON.parse(readFileSync(join(first, '.platform/latest.json'), 'utf8')).artifact;
      expect(codes(await cli(['rollback', artifact, '--environment', 'preview', '--dir', first], { who: 'quinn', target: limited }))).toEqual(['DG5161']);
      expect(codes(await cli(['deploy'], { cwd: project('quota-b'), who: 'quinn', target: limited }))).toEqual(['DG5112']);
      expect(codes(await cli(['env', 'set', 'A', 'b', '--dir', project('quota-c')], { who: 'quinn', target: limited }))).toEqual(['DG5133']);
      expect(codes(await cli(['link', '--new', '--dir', project('quota-d')], { who: 'quinn', target: limited }))).toEqual(['DG5112']);
    });

    it('DG5102: the control plane refuses (a disabled app)', async () => {
      const disabled = project('disabled');
      await cli(['deploy'], { cwd: disabled });
      expect((await cli(['disable', '--dir', disabled])).envelope.ok).toBe(true);
      expect(codes(await cli(['deploy'], { cwd: disabled }))).toEqual(['DG5102']);
      expect((await hosted(JSON.parse(readFileSync(join(disabled, 'platform.project.json'), 'utf8')).appId, '/')).status).toBe(503);
      expect((await cli(['enable', '--dir', disabled])).envelope.ok).toBe(true);
      expect((await cli(['deploy'], { cwd: disabled })).envelope.ok).toBe(true);
    });

    describe('promote and rollback', () => {
      it('promotes by default, by receipt and by artifact; rolls back', async () => {
        edit(dir, 'src/server/index.ts', (t) => t.replace("?? 'Hello'", "?? 'Howdy'"));
        const second = await cli(['deploy'], { cwd: dir });
        expect(second.envelope.ok).toBe(true);
        expect((await cli(['promote', '--receipt', second.envelope.result.receiptId, '--dir', dir])).envelope.result.artifactId).toBe(second.envelope.result.artifactId);
        expect((await cli(['promote', '--from-artifact', firstArtifact, '--dir', dir])).envelope.result.artifactId).toBe(firstArtifact);
        expect((await cli(['promote'], { cwd: dir })).envelope.result.artifactId).toBe(second.envelope.result.artifactId);
        const rolled = await cli(['rollback', firstArtifact], { cwd: dir });
        expect(rolled.envelope.result).toMatchObject({ environment: 'production', artifactId: firstArtifact });
        expect((await cli(['rollback', firstArtifact, '--environment', 'preview'], { cwd: dir })).envelope.result.environment).toBe('preview');
      });

      it.each([
        [['promote', '--from-artifact', 'sha256:abc'], 'DG5170'],
        [['promote', '--receipt', 'review_short'], 'DG5176'],
        [['promote', '--receipt', 'review_aaaaaaaaaaaaaaaaaaaaaaaaaa'], 'DG5176'],
        [['promote', '--receipt', 'review_aaaaaaaaaaaaaaaaaaaaaaaaaa', '--from-artifact', ARTIFACT], 'DG5177'],
        [['promote', '--from-artifact', ARTIFACT], 'DG5174'],
        [['rollback'], 'DG5160'],
        [['rollback', 'v1'], 'DG5160'],
        [['rollback', ARTIFACT, '--environment', 'dev'], 'DG5160'],
        [['rollback', ARTIFACT], 'DG5164'],
      ])('%j is %s', async (args, code) => {
        expect(codes(await cli(args, { cwd: dir }))).toEqual([code]);
      });

      it('DG5171 and DG5161 for another builder\'s app, DG5175 with nothing in preview', async () => {
        expect(codes(await cli(['promote'], { cwd: dir, who: 'bob' }))).toEqual(['DG5171']);
        expect(codes(await cli(['rollback', firstArtifact], { cwd: dir, who: 'bob' }))).toEqual(['DG5161']);
        const empty = project('empty');
        expect((await cli(['link', '--new'], { cwd: empty })).envelope.ok).toBe(true);
        expect(codes(await cli(['promote'], { cwd: empty }))).toEqual(['DG5175']);
      });
    });

    describe('platform deployments', () => {
      it('lists the history, by project or by app name', async () => {
        const listed = await cli(['deployments', '--limit', '3'], { cwd: dir });
        expect(listed.envelope.result.deployments).toHaveLength(3);
        expect(listed.envelope.result.deployments[0]).toMatchObject({ kind: 'rollback', environment: 'preview' });
        expect((await cli(['deployments', appId])).envelope.result.appId).toBe(appId);
      });

      it.each([
        [['deployments', '--limit', '0'], 'DG5140'],
        [['deployments', '--limit', '201'], 'DG5140'],
        [['deployments', '--limit', 'ten'], 'DG5140'],
        [['deployments'], 'DG5140'],
        [['deployments', 'no-such-app'], 'DG5143'],
        [['deployments', FAKE_APP], 'DG5143'],
      ])('%j is %s', async (args, code) => {
        expect(codes(await cli(args, { cwd: work }))).toEqual([code]);
      });

      it('DG5141: another builder\'s history', async () => {
        expect(codes(await cli(['deployments', appId], { who: 'bob' }))).toEqual(['DG5141']);
      });
    });
  });

  describe('platform link', () => {
    it('lists your apps, links to one, gives a new identity', async () => {
      const listed = await cli(['link']);
      expect(listed.envelope.result.apps.length).toBeGreaterThan(0);
      const dir = project('linked');
      const made = await cli(['link', '--new'], { cwd: dir });
      const appId = made.envelope.result.app.id;
      expect(JSON.parse(readFileSync(join(dir, 'platform.project.json'), 'utf8')).appId).toBe(appId);
      const other = listed.envelope.result.apps[0].id;
      expect((await cli(['link', '--app', other], { cwd: dir })).envelope.result.app.id).toBe(other);
      expect(JSON.parse(readFileSync(join(dir, 'platform.project.json'), 'utf8')).appId).toBe(other);
    });

    it.each([
      [['link', '--app', 'app_x', '--new'], 'DG5122', 'alice'],
      [['link', '--app', 'my-app'], 'DG5122', 'alice'],
      [['link', '--app', FAKE_APP], 'DG5123', 'alice'],
    ])('%j is %s', async (args, code, who) => {
      expect(codes(await cli(args, { who }))).toEqual([code]);
    });

    it('DG5123: another builder\'s app', async () => {
      const apps = (await cli(['link'])).envelope.result.apps;
      expect(codes(await cli(['link', '--app', apps[0].id], { who: 'bob' }))).toEqual(['DG5123']);
    });
  });

  describe('platform env', () => {
    let dir: string;

    it('sets, lists, pulls and removes values', async () => {
      dir = project('env');
      const set = await cli(['env', 'set', 'API_URL', 'https://api.example', '--environment', 'prod'], { cwd: dir });
      expect(set.envelope.result).toMatchObject({ action: 'set', environment: 'production', name: 'API_URL' });
      // The first `env set` claimed the project.
      expect(JSON.parse(readFileSync(join(dir, 'platform.project.json'), 'utf8')).appId).toBe(set.envelope.result.appId);
      await cli(['env', 'set', 'DEV_ONLY', 'yes', '--environment', 'dev'], { cwd: dir });
      const listed = await cli(['env', 'ls', '--environment', 'production'], { cwd: dir });
      expect(listed.envelope.result.variables.map((v: { name: string }) => v.name)).toEqual(['API_URL']);
      expect(listed.stdout).not.toContain('api.example');
      const pulled = await cli(['env', 'pull', '--environment', 'dev'], { cwd: dir });
      expect(pulled.envelope.result).toMatchObject({ file: '.platform/env.dev.local.json', names: ['DEV_ONLY'] });
      expect(JSON.parse(readFileSync(join(dir, '.platform/env.dev.local.json'), 'utf8'))).toEqual({ format: 'platform.env-local.v0', values: { DEV_ONLY: 'yes' } });
      expect((await cli(['env', 'rm', 'API_URL', '--environment', 'prod'], { cwd: dir })).envelope.result.removed).toBe(true);
    });

    it.each([
      [['env']],
      [['env', 'show']],
      [['env', 'ls', '--environment', 'staging']],
      [['env', 'set']],
      [['env', 'set', 'lower', 'x']],
      [['env', 'set', 'NAME']],
      [['env', 'rm']],
      [['env', 'ls', 'NAME']],
      [['env', 'pull', 'NAME', 'x']],
    ])('DG5130: %j', async (args) => {
      expect(codes(await cli(args, { cwd: dir }))).toEqual(['DG5130']);
    });

    it('DG5130 without a manifest or an identity; DG5134 for a local file it will not overwrite; DG5131 refused', async () => {
      expect(codes(await cli(['env', 'ls'], { cwd: work }))).toEqual(['DG5130']);
      expect(codes(await cli(['env', 'ls'], { cwd: project('env-unlinked') }))).toEqual(['DG5130']);
      writeFileSync(join(dir, '.platform/env.preview.local.json'), '{"values": {"A": 1}}');
      expect(codes(await cli(['env', 'pull'], { cwd: dir }))).toEqual(['DG5134']);
      expect(readFileSync(join(dir, '.platform/env.preview.local.json'), 'utf8')).toBe('{"values": {"A": 1}}');
      expect(codes(await cli(['env', 'ls'], { cwd: dir, who: 'bob' }))).toEqual(['DG5131']);
    });
  });

  describe('platform disable, enable, delete', () => {
    it('takes an app offline and back by name, and deletes it with its exact name', async () => {
      const dir = project('lifecycle');
      const deployed = await cli(['deploy'], { cwd: dir });
      const appId = deployed.envelope.result.appId;
      expect((await cli(['disable', appId])).envelope.result.app.state).toBe('disabled');
      expect((await cli(['enable', appId])).envelope.result.app.state).toBe('active');
      expect(codes(await cli(['delete', appId]))).toEqual(['DG5150']);
      expect(codes(await cli(['delete', appId, '--confirm', 'endpointz']))).toEqual(['DG5151']);
      expect(codes(await cli(['delete', appId, '--confirm', 'endpoints'], { who: 'bob' }))).toEqual(['DG5151']);
      expect((await cli(['delete', '--confirm', 'endpoints'], { cwd: dir })).envelope.result.app.state).toBe('deleted');
      expect((await hosted(appId, '/')).status).toBe(404);
      expect(codes(await cli(['disable'], { cwd: dir }))).toEqual(['DG5153']);
      expect(codes(await cli(['delete', appId, '--confirm', 'endpoints']))).toEqual(['DG5153']);
      expect(codes(await cli(['rollback', ARTIFACT], { cwd: dir }))).toEqual(['DG5163']);
      expect(codes(await cli(['promote'], { cwd: dir }))).toEqual(['DG5173']);
      expect(codes(await cli(['env', 'ls'], { cwd: dir }))).toEqual(['DG5131']);
      expect(codes(await cli(['deployments'], { cwd: dir }))).toEqual(['DG5143']);
    });

    it('DG5150 without an app identity, DG5153 for a name that matches none', async () => {
      expect(codes(await cli(['disable'], { cwd: work }))).toEqual(['DG5150']);
      expect(codes(await cli(['enable', 'no-such-app']))).toEqual(['DG5153']);
    });
  });

  describe('answers that cannot be trusted, and a control plane that cannot be reached', () => {
    let dir: string;
    beforeAll(async () => {
      dir = project('elsewhere');
      writeFileSync(join(dir, 'platform.project.json'), JSON.stringify({ format: 'platform.project.v0', appId: FAKE_APP }));
      for (const url of [UNTRUSTED, closedUrl]) {
        await new FileCredentialStore(join(work, 'config', 'elsewhere')).write(url, { token: `xbs_${'B'.repeat(43)}`, builder: { id: 'bld_x', name: 'x' }, createdAt: new Date().toISOString() });
      }
    });

    it.each([
      [['auth', 'status'], 'DG5004', 'DG5009'],
      [['auth', 'login'], 'DG5004', 'DG5009'],
      [['token', 'ls'], 'DG5182', 'DG5189'],
      [['deploy'], 'DG5102', 'DG5109'],
      [['link'], 'DG5124', 'DG5129'],
      [['env', 'ls'], 'DG5132', 'DG5139'],
      [['deployments'], 'DG5142', 'DG5149'],
      [['disable'], 'DG5152', 'DG5159'],
      [['rollback', ARTIFACT], 'DG5162', 'DG5169'],
      [['promote'], 'DG5172', 'DG5179'],
    ])('%j: %s for an answer that is not the protocol, %s when unreachable', async (args, untrusted, unreachable) => {
      const env = { PLATFORM_SERVICE_TOKEN: SERVICE_TOKEN_SHAPE };
      expect(codes(await cli(args, { cwd: dir, who: 'elsewhere', env: { ...env, PLATFORM_CONTROL_URL: UNTRUSTED } }))).toEqual([untrusted]);
      expect(codes(await cli(args, { cwd: dir, who: 'elsewhere', env: { ...env, PLATFORM_CONTROL_URL: closedUrl }, target: 'network' }))).toEqual([unreachable]);
    });
  });
});
