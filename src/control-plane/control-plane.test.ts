/** Every route of the control plane, in process (`app.request`), with the refusals each can answer. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createControlPlane, type ControlPlane } from './control-plane';
import { build, deployBody, smallApp, templateFiles, withFile, type BuiltApp } from '../testing/control-plane-apps';
import { approve, BASE, call, signIn } from '../testing/control-plane';

let work: string;
let plane: ControlPlane;
let clock = Date.UTC(2026, 0, 1);
let alice: string;
let bob: string;
let endpoints: BuiltApp;
let withStorage: BuiltApp;
let withoutStorage: BuiltApp;

const json = async (response: Response | Promise<Response>) => (await response).json() as Promise<Record<string, any>>;
const hosted = (appId: string, environment: 'preview' | 'production', path: string, init: RequestInit = {}) =>
  plane.app.request(new Request(`http://${appId.replace('_', '-')}${environment === 'preview' ? '--preview' : ''}.localhost:4310${path}`, init));
const runQuery = (appId: string, environment: 'preview' | 'production', name: string, input: unknown = {}) =>
  hosted(appId, environment, `/_platform/v0/query/${name}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ input }) });
const runMutation = (appId: string, environment: 'preview' | 'production', name: string, input: unknown = {}) =>
  hosted(appId, environment, `/_platform/v0/mutation/${name}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ input }) });

async function newApp(token: string, name = 'endpoints'): Promise<string> {
  const created = await json(call(plane, 'POST', '/v0/apps', { token, body: { name } }));
  return created.app.id as string;
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'platform-cp-'));
  plane = await createControlPlane({ dataDir: join(work, 'data'), now: () => clock, quotas: { appsPerBuilder: 12, deploysPerHour: 40 }, deviceTtlMs: 60_000, handlerDeadlineMs: 300, handlerGraceMs: 200 });
  alice = await signIn(plane, 'alice');
  bob = await signIn(plane, 'bob');
  [endpoints, withStorage, withoutStorage] = await Promise.all([build(templateFiles('endpoints')), build(smallApp({ storage: true })), build(smallApp({ storage: false }))]);
}, 120_000);

afterAll(async () => {
  await plane.close();
  rmSync(work, { recursive: true, force: true });
});

// One control plane, one clock and two builders for the whole file: its steps build on one another
// (apps made, deployments counted, quotas spent), so they run in the order written, even when the
// suite is shuffled.
describe('the control plane, in process', { shuffle: false }, () => {
  describe('device flow and the approval page', () => {
    it('hands out a code, waits, and issues a session only after a person approves it', async () => {
      const started = await json(call(plane, 'POST', '/v0/auth/device', { body: {} }));
      expect(started).toMatchObject({ protocol: 'platform.control.v0', userCode: expect.stringMatching(/^[A-Z]{4}-[A-Z]{4}$/), verificationUri: `${BASE}/device` });
      const poll = () => json(call(plane, 'POST', '/v0/auth/device/token', { body: { deviceCode: started.deviceCode } }));
      expect((await poll()).error.code).toBe('authorization_pending');
      const page = await plane.app.request(new Request(`${BASE}/device?code=${started.userCode}`));
      expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(await page.text()).toContain(`value="${started.userCode}"`);
      expect((await approve(plane, started.userCode, 'carol', { secret: 'wrong' })).status).toBe(403);
      // Another origin's form (or a script elsewhere) cannot approve.
      expect((await approve(plane, started.userCode, 'carol', { headers: { origin: 'http://evil.example' } })).status).toBe(403);
      expect((await approve(plane, started.userCode, 'carol', { headers: { 'sec-fetch-site': 'cross-site' } })).status).toBe(403);
      expect((await poll()).error.code).toBe('authorization_pending');
      expect((await approve(plane, started.userCode, 'carol')).status).toBe(200);
      const issued = await poll();
      expect(issued.token).toMatch(/^xbs_[A-Za-z0-9_-]{43}$/);
      expect(issued.builder.name).toBe('carol');
      expect((await poll()).error.code).toBe('invalid_request');
    });

    it('expires a code nobody approved, and tells a denied terminal so', async () => {
      const started = await json(call(plane, 'POST', '/v0/auth/device', { body: {} }));
      clock += 61_000;
      expect((await json(call(plane, 'POST', '/v0/auth/device/token', { body: { deviceCode: started.deviceCode } }))).error.code).toBe('expired_token');
      expect((await approve(plane, started.userCode, 'carol')).status).toBe(410);
      const denied = await json(call(plane, 'POST', '/v0/auth/device', { body: {} }));
      expect((await approve(plane, denied.userCode, 'carol', { decision: 'deny' })).status).toBe(200);
      expect((await json(call(plane, 'POST', '/v0/auth/device/token', { body: { deviceCode: denied.deviceCode } }))).error.code).toBe('access_denied');
      expect((await approve(plane, 'ZZZZ-ZZZZ', 'carol')).status).toBe(404);
      expect((await json(call(plane, 'POST', '/v0/auth/device/token', { body: {} }))).error.code).toBe('invalid_request');
    });
  });

  describe('sessions and service tokens', () => {
    it('says who is signed in, and ends a session on logout', async () => {
      const session = await signIn(plane, 'dave');
      expect(await json(call(plane, 'GET', '/v0/auth/whoami', { token: session }))).toMatchObject({ builder: { name: 'dave' }, credential: { kind: 'session' } });
      expect((await json(call(plane, 'POST', '/v0/auth/logout', { token: session }))).revoked).toBe(true);
      expect((await call(plane, 'GET', '/v0/auth/whoami', { token: session })).status).toBe(401);
      expect((await json(call(plane, 'GET', '/v0/auth/whoami'))).error.code).toBe('unauthorized');
      expect((await call(plane, 'GET', '/v0/auth/whoami', { token: 'xst_notatoken' })).status).toBe(401);
    });

    it('creates, lists and revokes service tokens; a service token can deploy but not mint or list tokens', async () => {
      const created = await json(call(plane, 'POST', '/v0/tokens', { token: alice, body: { name: 'ci' } }));
      expect(created.secret).toMatch(/^xst_[A-Za-z0-9_-]{43}$/);
      expect(created.token.id).toMatch(/^xstid_[a-z2-7]{26}$/);
      const service = created.secret as string;
      expect(await json(call(plane, 'GET', '/v0/auth/whoami', { token: service }))).toMatchObject({ builder: { name: 'alice' }, credential: { kind: 'service-token' } });
      const minted = await call(plane, 'POST', '/v0/tokens', { token: service, body: { name: 'child' } });
      expect(minted.status).toBe(403);
      expect((await minted.json()).error.code).toBe('interactive_required');
      expect((await call(plane, 'GET', '/v0/tokens', { token: service })).status).toBe(403);
      expect((await call(plane, 'GET', '/v0/apps', { token: service })).status).toBe(200);
      const listed = await json(call(plane, 'GET', '/v0/tokens', { token: alice }));
      expect(listed.tokens.map((t: { name: string }) => t.name)).toContain('ci');
      expect(JSON.stringify(listed)).not.toContain(service);
      expect((await json(call(plane, 'POST', '/v0/tokens', { token: alice, body: { name: '' } }))).error.code).toBe('invalid_request');
      expect((await json(call(plane, 'DELETE', `/v0/tokens/${created.token.id}`, { token: bob }))).error.code).toBe('token_not_found');
      expect((await call(plane, 'DELETE', `/v0/tokens/${created.token.id}`, { token: alice })).status).toBe(200);
      expect((await call(plane, 'GET', '/v0/apps', { token: service })).status).toBe(401);
    });
  });

  describe('apps', () => {
    it('creates, lists and reads an app; another builder\'s app is refused as not_owner', async () => {
      const created = await json(call(plane, 'POST', '/v0/apps', { token: alice, body: { name: 'listed' } }));
      expect(created.app).toMatchObject({ id: expect.stringMatching(/^app_[a-z2-7]{26}$/), name: 'listed', state: 'active', serving: {} });
      expect(created.app.urls.preview).toBe(`http://${created.app.id.replace('_', '-')}--preview.localhost:4310`);
      const listed = await json(call(plane, 'GET', '/v0/apps', { token: alice }));
      expect(listed.apps.map((a: { id: string }) => a.id)).toContain(created.app.id);
      expect((await json(call(plane, 'GET', `/v0/apps/${created.app.id}`, { token: alice }))).app.name).toBe('listed');
      expect((await json(call(plane, 'GET', `/v0/apps/${created.app.id}`, { token: bob }))).error.code).toBe('not_owner');
      expect((await json(call(plane, 'GET', '/v0/apps/app_aaaaaaaaaaaaaaaaaaaaaaaaaa', { token: alice }))).error.code).toBe('app_not_found');
      expect((await json(call(plane, 'POST', '/v0/apps', { token: alice, body: { name: 'Bad Name' } }))).error.code).toBe('invalid_request');
    });

    it('refuses an app past the apps-per-builder quota, saying what frees it', async () => {
      const erin = await signIn(plane, 'erin');
      for (let i = 0; i < 12; i++) await newApp(erin, `app-${i}`);
      const refused = await call(plane, 'POST', '/v0/apps', { token: erin, body: { name: 'one-more' } });
      expect(refused.status).toBe(429);
      const body = await refused.json();
      expect(body.error).toMatchObject({ code: 'quota_exceeded', quota: 'apps' });
      expect(body.error.message).toContain('delete one of your apps');
    });
  });

  describe('deployments', () => {
    let appId: string;

    it('deploys a verified artifact to preview and serves it', async () => {
      appId = await newApp(alice);
      const deployed = await call(plane, 'POST', `/v0/apps/${appId}/deployments`, { token: alice, body: deployBody(endpoints) });
      const body = await deployed.json();
      expect(deployed.status).toBe(201);
      expect(body.deployment).toMatchObject({ appId, environment: 'preview', artifactId: endpoints.id, kind: 'deploy', state: 'completed', receiptId: expect.stringMatching(/^review_/) });
      expect(body.url).toBe(`http://${appId.replace('_', '-')}--preview.localhost:4310`);
      const index = await hosted(appId, 'preview', '/');
      expect(await index.text()).toContain('<div id="app">');
      expect((await hosted(appId, 'preview', '/favicon.svg')).headers.get('content-type')).toBe('image/svg+xml');
      expect((await hosted(appId, 'preview', '/nope.txt')).status).toBe(404);
      expect((await hosted(appId, 'preview', '/server/index.js')).status).toBe(404);
      expect((await hosted(appId, 'production', '/')).status).toBe(404);
    });

    it('refuses an artifact whose blob does not match its hash or size, or whose id is not its record\'s', async () => {
      const body = deployBody(endpoints);
      const hash = endpoints.record.files['client/index.html']!.sha256;
      const tampered = { ...body, artifact: { ...body.artifact, blobs: { ...body.artifact.blobs, [hash]: Buffer.from('<p>swapped</p>').toString('base64') } } };
      const sized = await json(call(plane, 'POST', `/v0/apps/${appId}/deployments`, { token: alice, body: tampered }));
      expect(sized.error.code).toBe('artifact_invalid');
      expect(sized.error.message).toContain('DG1703');
      const html = Buffer.from(endpoints.files.get('client/index.html')!);
      html[0] = html[0]! ^ 1;
      const sameSize = { ...body, artifact: { ...body.artifact, blobs: { ...body.artifact.blobs, [hash]: html.toString('base64') } } };
      expect((await json(call(plane, 'POST', `/v0/apps/${appId}/deployments`, { token: alice, body: sameSize }))).error.message).toContain('does not match its SHA-256');
      const renamed = { ...body, artifact: { ...body.artifact, id: `sha256:${'0'.repeat(64)}` } };
      expect((await json(call(plane, 'POST', `/v0/apps/${appId}/deployments`, { token: alice, body: renamed }))).error.message).toContain('DG1702');
      expect((await json(call(plane, 'POST', `/v0/apps/${appId}/deployments`, { token: alice, body: { environment: 'dev', artifact: body.artifact } }))).error.code).toBe('invalid_request');
      expect((await json(call(plane, 'POST', `/v0/apps/${appId}/deployments`, { token: bob, body }))).error.code).toBe('not_owner');
      // Refused artifacts are failed deployments in the history.
      const history = await json(call(plane, 'GET', `/v0/apps/${appId}/deployments?limit=2`, { token: alice }));
      expect(history.deployments[0]).toMatchObject({ state: 'failed', error: { code: 'artifact_invalid' } });
    });

    it('refuses a module that cannot load, a schema that does not fit the data, and a runtime that does not answer; the previous version keeps serving', async () => {
      const broken = withFile(endpoints, 'server/index.js', 'throw new Error("boom at import");\n');
      const failed = await json(call(plane, 'POST', `/v0/apps/${appId}/deployments`, { token: alice, body: deployBody(broken) }));
      expect(failed.error.code).toBe('module_invalid');
      expect(failed.error.message).toContain('boom at import');
      const files = templateFiles('endpoints');
      const manifest = JSON.parse(files['app.manifest.json']!);
      // Narrowing what a field holding rows accepts is an incompatible change (an added optional field would apply).
      manifest.database.tables.visits.fields.path.maxLength = 100;
      const changed = await build({ ...files, 'app.manifest.json': JSON.stringify(manifest) });
      // The preview database holds data for the first schema once it served.
      await hosted(appId, 'preview', '/api/visits/x', { method: 'POST' });
      const provision = await json(call(plane, 'POST', `/v0/apps/${appId}/deployments`, { token: alice, body: deployBody(changed) }));
      expect(provision.error.code).toBe('provision_failed');
      const unhealthy = withFile(endpoints, 'server/index.js', `${new TextDecoder().decode(endpoints.files.get('server/index.js'))}\nglobalThis.decodeURIComponent = () => { throw new Error('broken'); };\n`);
      expect((await json(call(plane, 'POST', `/v0/apps/${appId}/deployments`, { token: alice, body: deployBody(unhealthy) }))).error.code).toBe('runtime_unhealthy');
      expect(await (await hosted(appId, 'preview', '/api/greet/x')).json()).toEqual({ message: 'Hello, x!' });
      // Still live on preview: the first deployment, which none of the failed ones replaced.
      const [first] = (await json(call(plane, 'GET', `/v0/apps/${appId}/deployments?limit=200`, { token: alice }))).deployments.slice(-1);
      expect(first).toMatchObject({ kind: 'deploy', state: 'completed', artifactId: endpoints.id });
      expect((await json(call(plane, 'GET', `/v0/apps/${appId}`, { token: alice }))).app.live).toEqual({ preview: first.id });
    });

    it('lists the history newest first, bounded by limit', async () => {
      const listed = await json(call(plane, 'GET', `/v0/apps/${appId}/deployments?limit=3`, { token: alice }));
      expect(listed.deployments).toHaveLength(3);
      expect(listed.deployments.map((d: { state: string }) => d.state)).toEqual(['failed', 'failed', 'failed']);
      for (const limit of ['0', '201', 'x']) expect((await json(call(plane, 'GET', `/v0/apps/${appId}/deployments?limit=${limit}`, { token: alice }))).error.code).toBe('invalid_request');
    });

    it('promotes what preview serves, a receipt\'s artifact or a named artifact, and refuses what has no completed deployment', async () => {
      const fresh = await newApp(alice);
      expect((await json(call(plane, 'POST', `/v0/apps/${fresh}/promote`, { token: alice, body: {} }))).error.code).toBe('no_preview');
      const preview = await json(call(plane, 'POST', `/v0/apps/${fresh}/deployments`, { token: alice, body: deployBody(endpoints) }));
      expect((await json(call(plane, 'POST', `/v0/apps/${fresh}/promote`, { token: alice, body: { receiptId: 'review_aaaaaaaaaaaaaaaaaaaaaaaaaa' } }))).error.code).toBe('no_receipt');
      expect((await json(call(plane, 'POST', `/v0/apps/${fresh}/promote`, { token: alice, body: { artifactId: withStorage.id } }))).error.code).toBe('no_deployment');
      expect((await json(call(plane, 'POST', `/v0/apps/${fresh}/promote`, { token: alice, body: { artifactId: endpoints.id, receiptId: preview.deployment.receiptId } }))).error.code).toBe('invalid_request');
      const byReceipt = await json(call(plane, 'POST', `/v0/apps/${fresh}/promote`, { token: alice, body: { receiptId: preview.deployment.receiptId } }));
      expect(byReceipt.deployment).toMatchObject({ environment: 'production', kind: 'promote', artifactId: endpoints.id });
      expect(byReceipt.deployment.receiptId).toBeUndefined();
      expect((await json(call(plane, 'POST', `/v0/apps/${fresh}/promote`, { token: alice, body: { artifactId: endpoints.id } }))).deployment.kind).toBe('promote');
      expect((await json(call(plane, 'POST', `/v0/apps/${fresh}/promote`, { token: alice, body: {} }))).deployment.artifactId).toBe(endpoints.id);
      // Promotion ships code, not data.
      await hosted(fresh, 'preview', '/api/visits/p', { method: 'POST' });
      expect(await (await runQuery(fresh, 'production', 'visits.count', { path: 'p' })).json()).toEqual({ result: 0 });
      expect(await (await runQuery(fresh, 'preview', 'visits.count', { path: 'p' })).json()).toEqual({ result: 1 });
    });

    it('rolls back to a completed artifact only', async () => {
      const fresh = await newApp(alice, 'small-app');
      await call(plane, 'POST', `/v0/apps/${fresh}/deployments`, { token: alice, body: deployBody(withStorage, 'production') });
      await call(plane, 'POST', `/v0/apps/${fresh}/deployments`, { token: alice, body: deployBody(withoutStorage, 'production') });
      expect((await json(call(plane, 'POST', `/v0/apps/${fresh}/rollback`, { token: alice, body: { artifactId: endpoints.id } }))).error.code).toBe('no_deployment');
      expect((await json(call(plane, 'POST', `/v0/apps/${fresh}/rollback`, { token: alice, body: { artifactId: 'sha256:x' } }))).error.code).toBe('invalid_request');
      const rolled = await json(call(plane, 'POST', `/v0/apps/${fresh}/rollback`, { token: alice, body: { artifactId: withStorage.id } }));
      expect(rolled.deployment).toMatchObject({ environment: 'production', kind: 'rollback', artifactId: withStorage.id });
      const app = (await json(call(plane, 'GET', `/v0/apps/${fresh}`, { token: alice }))).app;
      expect(app.serving.production).toBe(withStorage.id);
      // The deployment production is live from: the rollback, not the first deployment of the same artifact.
      expect(app.live).toEqual({ production: rolled.deployment.id });
    });

    it('keeps stored objects when storage is detached and re-attached', async () => {
      const fresh = await newApp(alice, 'small-app');
      await call(plane, 'POST', `/v0/apps/${fresh}/deployments`, { token: alice, body: deployBody(withStorage) });
      expect((await runMutation(fresh, 'preview', 'objects.put', { key: 'notes/a' })).status).toBe(200);
      await call(plane, 'POST', `/v0/apps/${fresh}/deployments`, { token: alice, body: deployBody(withoutStorage) });
      expect((await json(call(plane, 'GET', `/v0/apps/${fresh}`, { token: alice }))).app.storage).toEqual({ preview: 'detached' });
      expect(await (await runQuery(fresh, 'preview', 'objects.list')).json()).toEqual({ result: [] });
      await call(plane, 'POST', `/v0/apps/${fresh}/deployments`, { token: alice, body: deployBody(withStorage) });
      expect((await json(call(plane, 'GET', `/v0/apps/${fresh}`, { token: alice }))).app.storage).toEqual({ preview: 'attached' });
      expect(await (await runQuery(fresh, 'preview', 'objects.list')).json()).toEqual({ result: ['notes/a'] });
    });

    it('answers a runaway handler 504 and goes on serving', async () => {
      const fresh = await newApp(alice, 'small-app');
      await call(plane, 'POST', `/v0/apps/${fresh}/deployments`, { token: alice, body: deployBody(withStorage) });
      await runMutation(fresh, 'preview', 'objects.put', { key: 'kept' });
      const started = Date.now();
      const spun = await runQuery(fresh, 'preview', 'spin.forever');
      expect(spun.status).toBe(504);
      expect((await spun.json()).error.code).toBe('handler_deadline_exceeded');
      expect(Date.now() - started).toBeLessThan(20_000); // the watchdog answered, not a hang
      expect((await call(plane, 'GET', '/v0/health')).status).toBe(200);
      expect(await (await runQuery(fresh, 'preview', 'objects.list')).json()).toEqual({ result: ['kept'] });
    });

    it('gives each visitor a guest identity from a signed cookie, per app', async () => {
      const first = await hosted(appId, 'preview', '/api/greet/x');
      const cookie = first.headers.get('set-cookie')!;
      expect(cookie).toMatch(/^__platform_guest=[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]+; Path=\/; HttpOnly; SameSite=Lax/);
      const again = await hosted(appId, 'preview', '/api/greet/x', { headers: { cookie: cookie.split(';')[0]! } });
      expect(again.headers.get('set-cookie')).toBeNull();
      const otherEnvironment = await hosted(appId, 'production', '/api/greet/x', { headers: { cookie: cookie.split(';')[0]! } });
      expect(otherEnvironment.status).toBe(404);
    });

    it('refuses deploys past the hourly quota, naming when the next is allowed', async () => {
        const frank = await signIn(plane, 'frank');
        const fresh = await newApp(frank);
        for (let i = 0; i < 40; i++) await call(plane, 'POST', `/v0/apps/${fresh}/rollback`, { token: frank, body: { artifactId: endpoints.id } });
        // Those were refused before counting (no completed deployment); deploys count, failed ones too.
        const body = deployBody(withFile(endpoints, 'server/index.js', 'throw new Error("x");'));
        for (let i = 0; i < 40; i++) {
          const answer = await json(call(plane, 'POST', `/v0/apps/${fresh}/deployments`, { token: frank, body: { environment: 'preview', artifact: { ...body.artifact, id: 'sha256:' + '1'.repeat(64) } } }));
          expect(answer.error.code).toBe('artifact_invalid');
        }
        const refused = await call(plane, 'POST', `/v0/apps/${fresh}/deployments`, { token: frank, body: deployBody(endpoints) });
        expect(refused.status).toBe(429);
        const error = (await refused.json()).error;
        expect(error).toMatchObject({ code: 'quota_exceeded', quota: 'deploys-hour', resetAt: new Date(clock + 3_600_000).toISOString() });
        expect(error.message).toContain(error.resetAt);
        expect((await json(call(plane, 'POST', `/v0/apps/${fresh}/promote`, { token: frank, body: { artifactId: endpoints.id } }))).error.code).toBe('no_deployment');
        clock += 3_600_001;
        expect((await call(plane, 'POST', `/v0/apps/${fresh}/deployments`, { token: frank, body: deployBody(endpoints) })).status).toBe(201);
    }, 60_000);
  });

  describe('environment values', () => {
    it('sets, lists, reads and removes values per environment, and the app sees them', async () => {
      const appId = await newApp(alice);
      await call(plane, 'POST', `/v0/apps/${appId}/deployments`, { token: alice, body: deployBody(endpoints) });
      expect((await json(call(plane, 'PUT', `/v0/apps/${appId}/env/preview/GREETING`, { token: alice, body: { value: 'Hey' } }))).variable.name).toBe('GREETING');
      expect(await (await hosted(appId, 'preview', '/api/greet/x')).json()).toEqual({ message: 'Hey, x!' });
      expect((await json(call(plane, 'GET', `/v0/apps/${appId}/env/preview`, { token: alice }))).variables.map((v: { name: string }) => v.name)).toEqual(['GREETING']);
      expect(JSON.stringify(await json(call(plane, 'GET', `/v0/apps/${appId}/env/preview`, { token: alice })))).not.toContain('Hey');
      expect((await json(call(plane, 'GET', `/v0/apps/${appId}/env/preview/values`, { token: alice }))).values).toEqual({ GREETING: 'Hey' });
      expect((await json(call(plane, 'GET', `/v0/apps/${appId}/env/production/values`, { token: alice }))).values).toEqual({});
      expect((await json(call(plane, 'PUT', `/v0/apps/${appId}/env/dev/lower`, { token: alice, body: { value: 'x' } }))).error.code).toBe('invalid_request');
      expect((await json(call(plane, 'PUT', `/v0/apps/${appId}/env/staging/NAME`, { token: alice, body: { value: 'x' } }))).error.code).toBe('invalid_request');
      expect((await json(call(plane, 'GET', `/v0/apps/${appId}/env/preview`, { token: bob }))).error.code).toBe('not_owner');
      expect((await json(call(plane, 'DELETE', `/v0/apps/${appId}/env/preview/GREETING`, { token: alice }))).removed).toBe(true);
      expect((await json(call(plane, 'DELETE', `/v0/apps/${appId}/env/preview/GREETING`, { token: alice }))).removed).toBe(false);
      expect(await (await hosted(appId, 'preview', '/api/greet/x')).json()).toEqual({ message: 'Hello, x!' });
      // Still live on preview: the first deployment, which none of the failed ones replaced.
      const [first] = (await json(call(plane, 'GET', `/v0/apps/${appId}/deployments?limit=200`, { token: alice }))).deployments.slice(-1);
      expect(first).toMatchObject({ kind: 'deploy', state: 'completed', artifactId: endpoints.id });
      expect((await json(call(plane, 'GET', `/v0/apps/${appId}`, { token: alice }))).app.live).toEqual({ preview: first.id });
    });
  });

  describe('lifecycle', () => {
    it('disables (offline, data kept), enables, and deletes with the exact name', async () => {
      const appId = await newApp(alice);
      await call(plane, 'POST', `/v0/apps/${appId}/deployments`, { token: alice, body: deployBody(endpoints) });
      await hosted(appId, 'preview', '/api/visits/d', { method: 'POST' });
      expect((await json(call(plane, 'POST', `/v0/apps/${appId}/disable`, { token: alice, body: {} }))).app.state).toBe('disabled');
      expect((await hosted(appId, 'preview', '/')).status).toBe(503);
      expect((await json(call(plane, 'POST', `/v0/apps/${appId}/deployments`, { token: alice, body: deployBody(endpoints) }))).error.code).toBe('app_disabled');
      expect((await json(call(plane, 'POST', `/v0/apps/${appId}/enable`, { token: alice, body: {} }))).app.state).toBe('active');
      expect(await (await runQuery(appId, 'preview', 'visits.count', { path: 'd' })).json()).toEqual({ result: 1 });
      expect((await json(call(plane, 'POST', `/v0/apps/${appId}/delete`, { token: bob, body: { confirm: 'endpoints' } }))).error.code).toBe('not_owner');
      expect((await json(call(plane, 'POST', `/v0/apps/${appId}/delete`, { token: alice, body: { confirm: 'Endpoints' } }))).error.code).toBe('confirm_mismatch');
      const deleted = await json(call(plane, 'POST', `/v0/apps/${appId}/delete`, { token: alice, body: { confirm: 'endpoints' } }));
      expect(deleted.app).toMatchObject({ state: 'deleted', serving: {} });
      expect((await hosted(appId, 'preview', '/')).status).toBe(404);
      for (const path of [`/v0/apps/${appId}`, `/v0/apps/${appId}/deployments`]) expect((await json(call(plane, 'GET', path, { token: alice }))).error.code).toBe('app_deleted');
      expect((await json(call(plane, 'POST', `/v0/apps/${appId}/delete`, { token: alice, body: { confirm: 'endpoints' } }))).error.code).toBe('app_deleted');
      expect((await json(call(plane, 'GET', '/v0/apps', { token: alice }))).apps.map((a: { id: string }) => a.id)).not.toContain(appId);
    });
  });

  describe('the HTTP surface', () => {
    it('allows the playground\'s origins on the API, and no one else', async () => {
      const preflight = await plane.app.request(new Request(`${BASE}/v0/apps`, { method: 'OPTIONS', headers: { origin: 'http://localhost:5173', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' } }));
      expect(preflight.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
      expect(preflight.headers.get('access-control-allow-headers')).toContain('authorization');
      const e2e = await call(plane, 'GET', '/v0/health', { headers: { origin: 'http://127.0.0.1:4173' } });
      expect(e2e.headers.get('access-control-allow-origin')).toBe('http://127.0.0.1:4173');
      const other = await call(plane, 'GET', '/v0/health', { headers: { origin: 'http://evil.example' } });
      expect(other.headers.get('access-control-allow-origin')).toBeNull();
      expect((await plane.app.request(new Request(`${BASE}/device`, { headers: { origin: 'http://localhost:5173' } }))).headers.get('access-control-allow-origin')).toBeNull();
    });

    it('answers unknown routes in the protocol, and unknown app origins with 404', async () => {
      expect(await json(call(plane, 'GET', '/v0/nothing'))).toMatchObject({ protocol: 'platform.control.v0', error: { code: 'not_found' } });
      expect((await hosted('app_aaaaaaaaaaaaaaaaaaaaaaaaaa', 'preview', '/')).status).toBe(404);
    });
  });

  describe('records on disk', () => {
    it('survive a restart', async () => {
      const dataDir = join(work, 'restart');
      const first = await createControlPlane({ dataDir });
      const token = await signIn(first, 'gina');
      const created = await json(call(first, 'POST', '/v0/apps', { token, body: { name: 'kept' } }));
      await first.close();
      const second = await createControlPlane({ dataDir });
      expect((await json(call(second, 'GET', `/v0/apps/${created.app.id}`, { token }))).app.name).toBe('kept');
      expect(second.secrets.operatorSecret).toBe(first.secrets.operatorSecret);
      await second.close();
    });
  });
});
