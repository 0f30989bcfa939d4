/**
 * The Deploy panel's client of the control plane: the core's `ControlClient` over the browser's fetch,
 * with the credential and the app of each project kept in localStorage (the playground's own origin;
 * apps run in opaque-origin sandboxes and cannot read it).
 */
import type { ArtifactRecord } from '../../core/build/artifact';
import { ControlClient, type ControlOutcome } from '../../core/deploy/client';
import { controlUrlProblem, SERVICE_TOKEN, SESSION_TOKEN, type Environment } from '../../core/deploy/ids';
import { DEFAULT_CONTROL_URL, isInspectAnswer, type AppInfo, type BuilderInfo, type DeploymentInfo, type DeviceAuthorization, type InspectAnswer, type InspectView } from '../../core/deploy/protocol';
import { deployRequest, ROUTES, type Activated } from '../../core/deploy/routes';

export { DEFAULT_CONTROL_URL, controlUrlProblem };

/** What the panel deploys: the artifact as the compiler made it (`compile(files, 'build')` plus its record). */
export interface BuiltArtifact {
  artifactId: string;
  record: ArtifactRecord;
  /** Artifact path → bytes (`client/index.html`, `server/index.js`, …). */
  files: Record<string, Uint8Array>;
}

export type Result<T> = { ok: true; value: T } | { ok: false; message: string; code?: string };

function result<T>(outcome: ControlOutcome<T>): Result<T> {
  switch (outcome.kind) {
    case 'ok':
      return { ok: true, value: outcome.body };
    case 'refused':
      return { ok: false, message: outcome.error.message, code: outcome.error.code };
    case 'untrusted':
      return { ok: false, message: `${outcome.message} Is this a platform control plane?` };
    case 'unreachable':
      return { ok: false, message: `${outcome.message} Start it with npm start (or npm run control-plane).` };
  }
}

const storage = (): Storage | undefined => (typeof localStorage === 'undefined' ? undefined : localStorage);
const CONTROL_URL_KEY = 'platform.deploy.controlUrl';
const credentialKey = (controlUrl: string) => `platform.deploy.credential:${controlUrl}`;
const appKey = (controlUrl: string, project: string) => `platform.deploy.app:${controlUrl}:${project}`;

export function savedControlUrl(): string {
  return storage()?.getItem(CONTROL_URL_KEY) ?? DEFAULT_CONTROL_URL;
}

export function saveControlUrl(url: string): void {
  storage()?.setItem(CONTROL_URL_KEY, url);
}

export class DeployApi {
  readonly controlUrl: string;
  #client: ControlClient;
  readonly #fetch: (request: Request) => Promise<Response>;

  constructor(controlUrl: string, fetchImpl: (request: Request) => Promise<Response> = (request) => fetch(request)) {
    this.controlUrl = controlUrl;
    this.#fetch = fetchImpl;
    const token = storage()?.getItem(credentialKey(controlUrl)) ?? undefined;
    this.#client = new ControlClient(controlUrl, fetchImpl, token);
  }

  /**
   * The outcome as the panel shows it. A browser reports a control plane that refuses this page's
   * origin (CORS) exactly like one that is down ("Failed to fetch"); the two are told apart by asking
   * again in `no-cors` mode, whose answer the page may not read but which arrives only from a server
   * that is up.
   */
  async #result<T>(outcome: ControlOutcome<T>): Promise<Result<T>> {
    if (outcome.kind === 'unreachable' && (await this.#answersWithoutCors())) {
      const origin = typeof location === 'undefined' ? 'this page' : location.origin;
      return {
        ok: false,
        code: 'cors_refused',
        message: `The control plane at ${this.controlUrl} is up but refuses requests from ${origin} (CORS). Start it with --playground-origin ${origin} (or PLATFORM_PLAYGROUND_ORIGINS=${origin}); npm start allows its own playground.`,
      };
    }
    return result(outcome);
  }

  async #answersWithoutCors(): Promise<boolean> {
    try {
      await this.#fetch(new Request(`${this.controlUrl}${ROUTES.health.path}`, { mode: 'no-cors' }));
      return true;
    } catch {
      return false;
    }
  }

  get signedIn(): boolean {
    return Boolean(storage()?.getItem(credentialKey(this.controlUrl)));
  }

  #useToken(token: string | undefined): void {
    this.#client = this.#client.withToken(token);
    if (token) storage()?.setItem(credentialKey(this.controlUrl), token);
    else storage()?.removeItem(credentialKey(this.controlUrl));
  }

  async whoami(): Promise<Result<BuilderInfo>> {
    const answer = await this.#result(await this.#client.call(ROUTES.whoami, {}));
    return answer.ok ? { ok: true, value: answer.value.builder } : answer;
  }

  /** Uses a pasted token (a service token, or a session) once the control plane accepts it. */
  async useToken(token: string): Promise<Result<BuilderInfo>> {
    const trimmed = token.trim();
    if (!SERVICE_TOKEN.test(trimmed) && !SESSION_TOKEN.test(trimmed)) return { ok: false, message: 'That is not a platform token (xst_ or xbs_ followed by 43 characters).' };
    const previous = storage()?.getItem(credentialKey(this.controlUrl)) ?? undefined;
    this.#useToken(trimmed);
    const who = await this.whoami();
    if (!who.ok) this.#useToken(previous);
    return who;
  }

  startDeviceLogin(): Promise<Result<DeviceAuthorization>> {
    return this.#client.withToken(undefined).call(ROUTES.startDevice, {}, { body: {} }).then((outcome) => this.#result(outcome));
  }

  /** Polls once: the builder when approved, `pending` while waiting. */
  async pollDeviceLogin(deviceCode: string): Promise<Result<BuilderInfo> | { ok: false; pending: true }> {
    const answer = await this.#result(await this.#client.withToken(undefined).call(ROUTES.pollDevice, {}, { body: { deviceCode }, check: (b) => SESSION_TOKEN.test(b.token) }));
    if (!answer.ok) return answer.code === 'authorization_pending' ? { ok: false, pending: true } : answer;
    this.#useToken(answer.value.token);
    return { ok: true, value: answer.value.builder };
  }

  async signOut(): Promise<void> {
    await this.#client.call(ROUTES.logout, {});
    this.#useToken(undefined);
  }

  /** The app this project deploys to, made on first use. */
  async ensureApp(project: string, name: string): Promise<Result<AppInfo>> {
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

  async app(appId: string): Promise<Result<AppInfo>> {
    const found = await this.#result(await this.#client.call(ROUTES.getApp, { appId }));
    return found.ok ? { ok: true, value: found.value.app } : found;
  }

  knownApp(project: string): string | undefined {
    return storage()?.getItem(appKey(this.controlUrl, project)) ?? undefined;
  }

  async deploy(appId: string, artifact: BuiltArtifact, environment: Environment = 'preview'): Promise<Result<Activated>> {
    return await this.#result(await this.#client.call(ROUTES.deploy, { appId }, { body: deployRequest(environment, artifact.artifactId, artifact.record, Object.entries(artifact.files)) }));
  }

  async deployments(appId: string, limit = 20): Promise<Result<DeploymentInfo[]>> {
    const listed = await this.#result(await this.#client.call(ROUTES.listDeployments, { appId }, { query: { limit: String(limit) } }));
    return listed.ok ? { ok: true, value: listed.value.deployments } : listed;
  }

  async promote(appId: string, choice: { receiptId?: string; artifactId?: string } = {}): Promise<Result<Activated>> {
    return await this.#result(await this.#client.call(ROUTES.promote, { appId }, { body: choice }));
  }

  /** An owner's read of an environment (the same route as `platform inspect`). */
  async inspect<V extends InspectView>(appId: string, environment: Environment, view: V, query: Record<string, string> = {}): Promise<Result<Extract<InspectAnswer, { view: V }>>> {
    const read = await this.#result(await this.#client.call(ROUTES.inspect, { appId, environment, view }, { query, check: (b) => isInspectAnswer(b, view) }));
    return read.ok ? { ok: true, value: read.value as Extract<InspectAnswer, { view: V }> } : read;
  }

  async rollback(appId: string, artifactId: string, environment: Environment = 'production'): Promise<Result<Activated>> {
    return await this.#result(await this.#client.call(ROUTES.rollback, { appId }, { body: { artifactId, environment } }));
  }
}
