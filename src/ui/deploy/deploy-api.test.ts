/**
 * The Deploy panel's client against a real control plane in process: sign-in, deploy, history, promote,
 * roll back. Requests carry the playground's Origin, as a browser sends it; the panel's keys are kept in
 * memory, and what it keeps is checked: a key that cannot be exported and its id, never a token.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest';
import { createControlPlane, type ControlPlane } from '../../control-plane/control-plane';
import { build, smallApp, templateFiles } from '../../testing/control-plane-apps';
import { approve, BASE, call, signIn } from '../../testing/control-plane';
import { MemoryKeyStore } from './browser-key';
import { DEFAULT_CONTROL_URL, DeployApi, saveControlUrl, savedControlUrl, type BuiltArtifact } from './deploy-api';

const PLAYGROUND = 'http://localhost:5173';

let work: string;
let plane: ControlPlane;
const artifact = async (files: Record<string, string>): Promise<BuiltArtifact> => {
  const built = await build(files);
  return { artifactId: built.id, record: built.record, files: Object.fromEntries(built.files) };
};

/** The control plane in process, reached as the page at PLAYGROUND reaches it (the browser adds Origin). */
async function fromPlayground(request: Request, origin = PLAYGROUND): Promise<Response> {
  const headers = new Headers(request.headers);
  headers.set('origin', origin);
  const body = request.body === null ? undefined : await request.arrayBuffer();
  return plane.app.request(new Request(request.url, { method: request.method, headers, ...(body ? { body } : {}) }));
}

/** localStorage as earlier versions of the panel left it. */
class MemoryStorage implements Storage {
  readonly #items = new Map<string, string>();
  get length() {
    return this.#items.size;
  }
  key(index: number) {
    return [...this.#items.keys()][index] ?? null;
  }
  getItem(key: string) {
    return this.#items.get(key) ?? null;
  }
  setItem(key: string, value: string) {
    this.#items.set(key, value);
  }
  removeItem(key: string) {
    this.#items.delete(key);
  }
  clear() {
    this.#items.clear();
  }
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'platform-ui-deploy-'));
  plane = await createControlPlane({ dataDir: work, devicePollMs: 5 });
});
afterAll(async () => {
  await plane.close();
  rmSync(work, { recursive: true, force: true });
});
afterEach(() => {
  vi.unstubAllEnvs();
  Reflect.deleteProperty(globalThis, 'localStorage');
});

/** A fresh localStorage for the page. */
function pageStorage(): MemoryStorage {
  const storage = new MemoryStorage();
  Object.defineProperty(globalThis, 'localStorage', { value: storage, configurable: true });
  return storage;
}

it('signs in by device code, deploys, lists, promotes and rolls back', async () => {
  const keys = new MemoryKeyStore();
  const api = new DeployApi(BASE, fromPlayground, keys);
  const started = await api.startDeviceLogin();
  if (!started.ok) throw new Error(started.message);
  expect(await api.pollDeviceLogin(started.value.deviceCode)).toEqual({ ok: false, pending: true });
  await approve(plane, started.value.userCode, 'ui-builder');
  expect(await api.pollDeviceLogin(started.value.deviceCode)).toMatchObject({ ok: true, value: { name: 'ui-builder' } });
  // What the page keeps: a key id and a key it cannot export, no session.
  const kept = await keys.get(BASE);
  expect(kept?.keyId).toMatch(/^xbk_/);
  expect(kept?.privateKey.extractable).toBe(false);
  await expect(crypto.subtle.exportKey('jwk', kept!.privateKey)).rejects.toThrow();
  // The same key from another origin (a page on another port) is refused.
  const elsewhere = new DeployApi(BASE, (request) => fromPlayground(request, 'http://localhost:5174'), keys);
  expect(await elsewhere.whoami()).toMatchObject({ ok: false, code: 'foreign_origin' });
  const app = await api.ensureApp('project-1', 'endpoints');
  if (!app.ok) throw new Error(app.message);
  const first = await artifact(templateFiles('endpoints'));
  const deployed = await api.deploy(app.value.id, first);
  expect(deployed).toMatchObject({ ok: true, value: { url: app.value.urls.preview, deployment: { environment: 'preview', state: 'completed' } } });
  const receipt = deployed.ok ? deployed.value.deployment.receiptId! : '';
  expect((await api.promote(app.value.id, { receiptId: receipt })).ok).toBe(true);
  const other = await artifact(smallApp({ storage: false, name: 'endpoints' }));
  expect((await api.deploy(app.value.id, other)).ok).toBe(true);
  expect((await api.promote(app.value.id)).ok).toBe(true);
  expect((await api.rollback(app.value.id, first.artifactId)).ok).toBe(true);
  const history = await api.deployments(app.value.id);
  expect(history.ok && history.value.map((d) => d.kind)).toEqual(['rollback', 'promote', 'deploy', 'promote', 'deploy']);
  const refused = await api.rollback(app.value.id, `sha256:${'f'.repeat(64)}`);
  expect(refused).toMatchObject({ ok: false, code: 'no_deployment' });
}, 60_000);

it('accepts a pasted token only when the control plane does, and says when it cannot be reached', async () => {
  const keys = new MemoryKeyStore();
  const api = new DeployApi(BASE, fromPlayground, keys);
  expect(await api.useToken('not a token')).toMatchObject({ ok: false });
  expect(await api.useToken(`xst_${'A'.repeat(43)}`)).toMatchObject({ ok: false, code: 'unauthorized' });
  expect(await keys.get(BASE)).toBeUndefined();
  expect(await api.useToken(await signIn(plane, 'pasted'))).toMatchObject({ ok: true, value: { name: 'pasted' } });
  expect(await api.whoami()).toMatchObject({ ok: true, value: { name: 'pasted' } });
  expect(JSON.stringify(await keys.get(BASE))).not.toMatch(/xbs_|xst_/);
  // Sign-out ends the key there and deletes it here.
  const keyId = (await keys.get(BASE))!.keyId;
  await api.signOut();
  expect(await keys.get(BASE)).toBeUndefined();
  expect((await plane.context.records.get('SELECT revokedAt FROM browser_keys WHERE keyId = ?', [keyId]))!.revokedAt).not.toBeNull();
});

it('proposes the control plane npm start started (VITE_PLATFORM_CONTROL_URL), unless the person saved another', () => {
  const storage = pageStorage();
  expect(savedControlUrl()).toBe(DEFAULT_CONTROL_URL);
  vi.stubEnv('VITE_PLATFORM_CONTROL_URL', 'http://localhost:4999');
  expect(savedControlUrl()).toBe('http://localhost:4999');
  // Not a usable control plane URL: the default, as if npm start had said nothing.
  vi.stubEnv('VITE_PLATFORM_CONTROL_URL', 'http://example.com:4999');
  expect(savedControlUrl()).toBe(DEFAULT_CONTROL_URL);
  vi.stubEnv('VITE_PLATFORM_CONTROL_URL', 'http://localhost:4999');
  saveControlUrl('http://127.0.0.1:4555');
  expect(savedControlUrl()).toBe('http://127.0.0.1:4555');
  expect(storage.getItem('platform.deploy.controlUrl')).toBe('http://127.0.0.1:4555');
});

it('says "npm start" only when nothing answers at the URL it tried, and names that URL', async () => {
  const nothing = () => Promise.reject(new TypeError('Failed to fetch'));
  const down = await new DeployApi('http://127.0.0.1:9', nothing).startDeviceLogin();
  expect(down).toMatchObject({ ok: false });
  expect(!down.ok && down.message).toContain('http://127.0.0.1:9');
  expect(!down.ok && down.message).toContain('npm start');
  // npm start runs its control plane elsewhere: the panel says where, rather than to start it.
  vi.stubEnv('VITE_PLATFORM_CONTROL_URL', 'http://localhost:4999');
  const elsewhere = await new DeployApi('http://localhost:4310', nothing).startDeviceLogin();
  expect(!elsewhere.ok && elsewhere.message).toContain('http://localhost:4310');
  expect(!elsewhere.ok && elsewhere.message).toContain('npm start started one at http://localhost:4999');
  expect(!elsewhere.ok && elsewhere.message).not.toContain('Start it with npm start');
  // Something answers there: never told to start it.
  const up = await new DeployApi(BASE, fromPlayground).startDeviceLogin();
  expect(up.ok).toBe(true);
  const notControl = await new DeployApi('http://localhost:4310', async () => new Response('<!doctype html>', { headers: { 'content-type': 'text/html' } })).startDeviceLogin();
  expect(!notControl.ok && notControl.message).not.toContain('npm start');
});

it('names a CORS refusal as such, not as a control plane that cannot be reached', async () => {
  // What a browser at another origin does: sends Origin, and rejects an answer without a matching
  // Access-Control-Allow-Origin as "Failed to fetch"; a no-cors request resolves (opaque) if the server answers.
  const browserAt = (origin: string) => async (request: Request) => {
    const sent = new Request(request, { headers: { ...Object.fromEntries(request.headers), origin } });
    const answer = await plane.app.request(sent);
    if (request.mode === 'no-cors') return new Response(null);
    if (answer.headers.get('access-control-allow-origin') !== origin) throw new TypeError('Failed to fetch');
    return answer;
  };
  const refused = await new DeployApi(BASE, browserAt('http://localhost:7777')).startDeviceLogin();
  expect(refused).toMatchObject({ ok: false, code: 'cors_refused' });
  expect(!refused.ok && refused.message).toContain('CORS');
  expect(!refused.ok && refused.message).toContain('--playground-origin');
  expect((await new DeployApi(BASE, browserAt('http://localhost:5173')).startDeviceLogin()).ok).toBe(true);
});

it('removes the sessions earlier versions kept in localStorage, and signs them out', async () => {
  const session = await signIn(plane, 'old-panel');
  const storage = pageStorage();
  storage.setItem(`platform.deploy.credential:${BASE}`, session);
  storage.setItem(`platform.deploy.app:${BASE}:project-1`, 'app_kept');
  const api = new DeployApi(BASE, fromPlayground, new MemoryKeyStore());
  expect(storage.getItem(`platform.deploy.credential:${BASE}`)).toBeNull();
  expect(api.knownApp('project-1')).toBe('app_kept');
  expect(await api.signedIn()).toBe(false);
  await expect.poll(async () => ((await (await call(plane, 'GET', '/v0/auth/whoami', { token: session })).json()) as { error?: { code: string } }).error?.code).toBe('unauthorized');
});
