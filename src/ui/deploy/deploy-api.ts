/**
 * The Deploy panel's client of the control plane: the core's `ControlClient` over the browser's fetch,
 * every request signed with a key the page cannot export (core/deploy/proof.ts, kept by browser-key.ts).
 * The page never holds a session or token: a device sign-in is bound to the key by the control plane,
 * a pasted token is sent once to be bound and then forgotten. The app of each project is kept in
 * localStorage (an id, not a secret).
 */
import type { Result } from '../../core/result';
import type { ArtifactRecord } from '../../core/build';
import { ControlClient, type ControlOutcome, controlUrlProblem, SERVICE_TOKEN, SESSION_TOKEN, type Environment, DEFAULT_CONTROL_URL, isInspectAnswer, type AppInfo, type BuilderInfo, type DeploymentInfo, type DeviceAuthorization, type InspectAnswer, type InspectView, newProofKey, signProof, type ProofPublicKey, deployRequest, ROUTES, type Activated, type BrowserKeyAnswer } from '../../core/deploy';
import { browserKeyStore, type KeyStore } from './browser-key';

export { DEFAULT_CONTROL_URL, controlUrlProblem };

/** What the panel deploys: the artifact as the compiler made it (`compile(files, 'build')` plus its record). */
export interface BuiltArtifact {
  artifactId: string;
  record: ArtifactRecord;
  /** Artifact path → bytes (`client/index.html`, `server/index.js`, …). */
  files: Record<string, Uint8Array>;
}

export type DeployResult<T> = Result<{ value: T }, { message: string; code?: string }>;

/**
 * The control plane `npm start` started alongside this playground (scripts/start.mjs gives Vite
 * VITE_PLATFORM_CONTROL_URL), when it gave a usable one.
 */
export function startedControlUrl(): string | undefined {
  const given: unknown = import.meta.env.VITE_PLATFORM_CONTROL_URL;
  return typeof given === 'string' && given && !controlUrlProblem(given) ? given : undefined;
}

/** What to do when nothing answers at `tried`: start the control plane, or use the one npm start started elsewhere. */
function whenNothingAnswers(tried: string): string {
  const started = startedControlUrl();
  return started && started !== tried ? `npm start started one at ${started}: use that URL.` : 'Start it with npm start (or npm run control-plane).';
}

function result<T>(outcome: ControlOutcome<T>, controlUrl: string): DeployResult<T> {
  switch (outcome.kind) {
    case 'ok':
      return { ok: true, value: outcome.body };
    case 'refused':
      return { ok: false, message: outcome.error.message, code: outcome.error.code };
    case 'untrusted':
      return { ok: false, message: `${outcome.message} Is this a platform control plane?` };
    case 'unreachable':
      return { ok: false, message: `${outcome.message} ${whenNothingAnswers(controlUrl)}` };
  }
}

const storage = (): Storage | undefined => (typeof localStorage === 'undefined' ? undefined : localStorage);
const CONTROL_URL_KEY = 'platform.deploy.controlUrl';
/** Where the panel kept sessions and tokens before (readable by any page of this origin): removed on load. */
const OLD_CREDENTIAL_PREFIX = 'platform.deploy.credential:';
const appKey = (controlUrl: string, project: string) => `platform.deploy.app:${controlUrl}:${project}`;

/** The control plane the panel proposes: the one the person chose and saved, else the one npm start started, else the default. */
export function savedControlUrl(): string {
  return storage()?.getItem(CONTROL_URL_KEY) ?? startedControlUrl() ?? DEFAULT_CONTROL_URL;
}

export function saveControlUrl(url: string): void {
  storage()?.setItem(CONTROL_URL_KEY, url);
}

/**
 * Removes the sessions and tokens earlier versions kept in localStorage, and signs each stored session
 * out (best effort: the control plane may be down; a token is left to expire or be revoked).
 */
export function forgetStoredCredentials(send: (request: Request) => Promise<Response>): void {
  const store = storage();
  if (!store) return;
  const found: Array<[string, string]> = [];
  for (let i = 0; i < store.length; i++) {
    const name = store.key(i);
    if (name?.startsWith(OLD_CREDENTIAL_PREFIX)) found.push([name, store.getItem(name) ?? '']);
  }
  for (const [name, value] of found) {
    store.removeItem(name);
    const controlUrl = name.slice(OLD_CREDENTIAL_PREFIX.length);
    if (SESSION_TOKEN.test(value) && !controlUrlProblem(controlUrl)) {
      void send(new Request(`${controlUrl}${ROUTES.logout.path}`, { method: ROUTES.logout.method, headers: { authorization: `Bearer ${value}` } })).catch(() => undefined);
    }
  }
}

export class DeployApi {
  readonly controlUrl: string;
  readonly #client: ControlClient;
  readonly #fetch: (request: Request) => Promise<Response>;
  readonly #keys: KeyStore;
  /** The key of a device sign-in under way: bound when the code is approved. */
  #pending: { deviceCode: string; key: Promise<{ privateKey: CryptoKey; publicKey: ProofPublicKey }> } | undefined;

  constructor(controlUrl: string, fetchImpl: (request: Request) => Promise<Response> = (request) => fetch(request), keys: KeyStore = browserKeyStore()) {
    this.controlUrl = controlUrl;
    this.#fetch = fetchImpl;
    this.#keys = keys;
    forgetStoredCredentials(fetchImpl);
    this.#client = new ControlClient(controlUrl, (request) => this.#signed(request));
  }

  /** A request signed with this control plane's key, when there is one and the request names no credential of its own. */
  async #signed(request: Request): Promise<Response> {
    const key = request.headers.has('authorization') ? undefined : await this.#keys.get(this.controlUrl).catch(() => undefined);
    if (!key) return this.#fetch(request);
    const headers = new Headers(request.headers);
    headers.set('authorization', await signProof(key.privateKey, key.keyId, request.method, request.url, Date.now()));
    const body = request.body === null ? undefined : await request.arrayBuffer();
    return this.#fetch(new Request(request.url, { method: request.method, headers, ...(body ? { body } : {}) }));
  }

  /**
   * The outcome as the panel shows it. A browser reports a control plane that refuses this page's
   * origin (CORS) exactly like one that is down ("Failed to fetch"); the two are told apart by asking
   * again in `no-cors` mode, whose answer the page may not read but which arrives only from a server
   * that is up.
   */
  async #result<T>(outcome: ControlOutcome<T>): Promise<DeployResult<T>> {
    if (outcome.kind === 'unreachable' && (await this.#answersWithoutCors())) {
      const origin = typeof location === 'undefined' ? 'this page' : location.origin;
      return {
        ok: false,
        code: 'cors_refused',
        message: `The control plane at ${this.controlUrl} is up but refuses requests from ${origin} (CORS). Start it with --playground-origin ${origin} (or PLATFORM_PLAYGROUND_ORIGINS=${origin}); npm start allows its own playground.`,
      };
    }
    return result(outcome, this.controlUrl);
  }

  async #answersWithoutCors(): Promise<boolean> {
    try {
      await this.#fetch(new Request(`${this.controlUrl}${ROUTES.health.path}`, { mode: 'no-cors' }));
      return true;
    } catch {
      return false;
    }
  }

  /** Whether this playground holds a key for the control plane (whoami says whether it still signs anyone in). */
  async signedIn(): Promise<boolean> {
    return Boolean(await this.#keys.get(this.controlUrl).catch(() => undefined));
  }

  async whoami(): Promise<DeployResult<BuilderInfo>> {
    const answer = await this.#result(await this.#client.call(ROUTES.whoami, {}));
    if (!answer.ok && (answer.code === 'unauthorized' || answer.code === 'credential_expired')) await this.#keys.delete(this.controlUrl);
    return answer.ok ? { ok: true, value: answer.value.builder } : answer;
  }

  /** Keeps the key the control plane bound, or says why it did not. */
  async #bound(answer: DeployResult<BrowserKeyAnswer>, privateKey: CryptoKey): Promise<DeployResult<BuilderInfo>> {
    if (!answer.ok) return answer;
    await this.#keys.put(this.controlUrl, { keyId: answer.value.keyId, privateKey });
    return { ok: true, value: answer.value.builder };
  }

  /** Binds a pasted token (a service token, or a session) to a new key: it is sent once, as this request's bearer, and kept nowhere. */
  async useToken(token: string): Promise<DeployResult<BuilderInfo>> {
    const trimmed = token.trim();
    if (!SERVICE_TOKEN.test(trimmed) && !SESSION_TOKEN.test(trimmed)) return { ok: false, message: 'That is not a platform token (xst_ or xbs_ followed by 43 characters).' };
    const { privateKey, publicKey } = await newProofKey();
    const answer = await this.#result(await this.#client.call(ROUTES.bindToken, {}, { body: { publicKey }, headers: { authorization: `Bearer ${trimmed}` } }));
    return this.#bound(answer, privateKey);
  }

  startDeviceLogin(): Promise<DeployResult<DeviceAuthorization>> {
    return this.#client.call(ROUTES.startDevice, {}, { body: {} }).then((outcome) => this.#result(outcome));
  }

  /** Polls once: the builder when approved (the session is bound to a new key, never sent here), `pending` while waiting. */
  async pollDeviceLogin(deviceCode: string): Promise<DeployResult<BuilderInfo> | { ok: false; pending: true }> {
    if (this.#pending?.deviceCode !== deviceCode) this.#pending = { deviceCode, key: newProofKey() };
    const { privateKey, publicKey } = await this.#pending.key;
    const answer = await this.#result(await this.#client.call(ROUTES.bindDevice, {}, { body: { deviceCode, publicKey } }));
    if (!answer.ok && answer.code === 'authorization_pending') return { ok: false, pending: true };
    this.#pending = undefined;
    return this.#bound(answer, privateKey);
  }

  /** Signs out: the control plane ends the key and its session; the key is deleted here whatever it answers. */
  async signOut(): Promise<void> {
    await this.#client.call(ROUTES.logout, {});
    await this.#keys.delete(this.controlUrl);
  }

  /** The app this project deploys to, made on first use. */
  async ensureApp(project: string, name: string): Promise<DeployResult<AppInfo>> {
    const known = storage()?.getItem(appKey(this.controlUrl, project));
    if (known) {
      const found = await this.#result(await this.#client.call(ROUTES.getApp, { appId: known }));
      if (found.ok) return { ok: true, value: found.value.app };
      if (found.code !== 'app_not_found' && found.code !== 'app_deleted' && found.code !== 'not_owner') return found;
    }
    const created = await this.#result(await this.#client.call(ROUTES.createApp, {}, { body: { name } }));
    if (!created.ok) return created;
    storage()?.setItem(appKey(this.controlUrl, project), created.value.app.id);
    return { ok: true, value: created.value.app };
  }

  async app(appId: string): Promise<DeployResult<AppInfo>> {
    const found = await this.#result(await this.#client.call(ROUTES.getApp, { appId }));
    return found.ok ? { ok: true, value: found.value.app } : found;
  }

  knownApp(project: string): string | undefined {
    return storage()?.getItem(appKey(this.controlUrl, project)) ?? undefined;
  }

  async deploy(appId: string, artifact: BuiltArtifact, environment: Environment = 'preview'): Promise<DeployResult<Activated>> {
    return await this.#result(await this.#client.call(ROUTES.deploy, { appId }, { body: deployRequest(environment, artifact.artifactId, artifact.record, Object.entries(artifact.files)) }));
  }

  async deployments(appId: string, limit = 20): Promise<DeployResult<DeploymentInfo[]>> {
    const listed = await this.#result(await this.#client.call(ROUTES.listDeployments, { appId }, { query: { limit: String(limit) } }));
    return listed.ok ? { ok: true, value: listed.value.deployments } : listed;
  }

  async promote(appId: string, choice: { receiptId?: string; artifactId?: string } = {}): Promise<DeployResult<Activated>> {
    return await this.#result(await this.#client.call(ROUTES.promote, { appId }, { body: choice }));
  }

  /** An owner's read of an environment (the same route as `platform inspect`). */
  async inspect<V extends InspectView>(appId: string, environment: Environment, view: V, query: Record<string, string> = {}): Promise<DeployResult<Extract<InspectAnswer, { view: V }>>> {
    const read = await this.#result(await this.#client.call(ROUTES.inspect, { appId, environment, view }, { query, check: (b) => isInspectAnswer(b, view) }));
    return read.ok ? { ok: true, value: read.value as Extract<InspectAnswer, { view: V }> } : read;
  }

  async rollback(appId: string, artifactId: string, environment: Environment = 'production'): Promise<DeployResult<Activated>> {
    return await this.#result(await this.#client.call(ROUTES.rollback, { appId }, { body: { artifactId, environment } }));
  }
}
