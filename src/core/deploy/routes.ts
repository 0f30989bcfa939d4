/**
 * The control plane's HTTP API declared once: every route's method and path, the body it takes, the
 * answer it gives and the check a client makes of that answer. The control plane registers its
 * handlers by these routes; the CLI's commands and the playground's Deploy panel call them through
 * `ControlClient.call`.
 */
import { encodeBase64 } from '../bytes.ts';
import { isDomain, type DomainInfo } from './domains.ts';
import { isTunnelInfo, isTunnelRequest, type TunnelInfo, type TunnelRequest } from './tunnel.ts';
import type { Environment } from './ids.ts';
import type { ProofPublicKey } from './proof.ts';
import {
  isApp,
  isBuilder,
  isDeployment,
  isDeviceAuthorization,
  isEnvVariable,
  isServiceToken,
  type AppInfo,
  type BuilderInfo,
  type DeploymentInfo,
  type DeviceAuthorization,
  type EnvVariableInfo,
  type InspectAnswer,
  type ServiceTokenInfo,
} from './protocol.ts';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** A route: `Body` is what a request carries (undefined: none), `Answer` what a success answers. */
export interface Route<Path extends string, Body, Answer> {
  method: Method;
  path: Path;
  /** Whether a successful answer's body has the shape callers rely on. */
  check(body: Record<string, unknown>): boolean;
  /** Types only: never set. */
  readonly _body?: Body;
  readonly _answer?: Answer;
}

/** The `:name` parameters of a path, as an object type. */
export type ParamsOf<Path extends string> = Path extends `${string}:${infer Name}/${infer Rest}` ? { [K in Name]: string } & ParamsOf<`/${Rest}`> : Path extends `${string}:${infer Name}` ? { [K in Name]: string } : Record<never, never>;
export type BodyOf<R> = R extends Route<string, infer Body, unknown> ? Body : never;
export type AnswerOf<R> = R extends Route<string, unknown, infer Answer> ? Answer : never;

function route<Body = undefined, Answer = Record<string, unknown>>() {
  return <Path extends string>(method: Method, path: Path, check: (body: Record<string, unknown>) => boolean): Route<Path, Body, Answer> => ({ method, path, check });
}

/** A path with its parameters filled in (each encoded as one path segment). */
export function pathOf<Path extends string>(path: Path, params: ParamsOf<Path>): string {
  return path.replace(/:([A-Za-z]+)/g, (_, name: string) => encodeURIComponent((params as Record<string, string>)[name] ?? ''));
}

/** Whether a request's method and path are those of a route. */
export function isRoute(route: Route<string, unknown, unknown>, method: string, pathname: string): boolean {
  const pattern = new RegExp(`^${route.path.replace(/:[A-Za-z]+/g, '[^/]+')}$`);
  return method === route.method && pattern.test(pathname);
}

/** What `POST /v0/apps/:appId/deployments` takes: the artifact record and its blobs, base64, by SHA-256. */
export interface DeployRequest {
  environment: Environment;
  artifact: { id: string; record: unknown; blobs: Record<string, string> };
}

/** The deploy body of an artifact: its record, and every file's bytes base64 under its SHA-256. */
export function deployRequest(environment: Environment, id: string, record: { files: Record<string, { sha256: string }> }, files: Iterable<[string, Uint8Array]>): DeployRequest {
  const blobs: Record<string, string> = {};
  for (const [path, bytes] of files) {
    const entry = record.files[path];
    if (entry) blobs[entry.sha256] = encodeBase64(bytes);
  }
  return { environment, artifact: { id, record, blobs } };
}

/** What a deploy, a promotion and a rollback answer. */
export interface Activated {
  deployment: DeploymentInfo;
  url: string;
}

/** What binding a playground's key answers: the key's id (not a secret: useless without the key), who it signs in as, until when. */
export interface BrowserKeyAnswer {
  keyId: string;
  builder: BuilderInfo;
  credential: { kind: 'session' | 'service-token' };
  expiresAt: string;
}

function isBrowserKeyAnswer(b: Record<string, unknown>): boolean {
  const credential = b.credential as { kind?: unknown } | null;
  return typeof b.keyId === 'string' && isBuilder(b.builder) && typeof credential === 'object' && credential !== null && (credential.kind === 'session' || credential.kind === 'service-token') && typeof b.expiresAt === 'string' && !('token' in b);
}

const activated = (b: Record<string, unknown>) => isDeployment(b.deployment) && typeof b.url === 'string';
const anApp = (b: Record<string, unknown>) => isApp(b.app);

export const ROUTES = {
  health: route<undefined, { ok: true }>()('GET', '/v0/health', (b) => b.ok === true),
  startDevice: route<Record<string, never>, DeviceAuthorization>()('POST', '/v0/auth/device', isDeviceAuthorization),
  pollDevice: route<{ deviceCode: string }, { token: string; builder: BuilderInfo; expiresAt?: string }>()('POST', '/v0/auth/device/token', (b) => typeof b.token === 'string' && isBuilder(b.builder)),
  whoami: route<undefined, { builder: BuilderInfo; credential: { kind: 'session' | 'service-token' } }>()('GET', '/v0/auth/whoami', (b) => isBuilder(b.builder) && typeof b.credential === 'object' && b.credential !== null),
  /**
   * The playground's sign-ins (proof.ts): a device code, or a pasted token sent once as its bearer,
   * bound to a key the page cannot export and to the page's origin. No answer carries a secret.
   */
  bindDevice: route<{ deviceCode: string; publicKey: ProofPublicKey }, BrowserKeyAnswer>()('POST', '/v0/auth/browser/device', (b) => isBrowserKeyAnswer(b)),
  bindToken: route<{ publicKey: ProofPublicKey }, BrowserKeyAnswer>()('POST', '/v0/auth/browser/token', (b) => isBrowserKeyAnswer(b)),
  logout: route<undefined, { revoked: boolean }>()('POST', '/v0/auth/logout', (b) => typeof b.revoked === 'boolean'),
  createToken: route<{ name: string }, { token: ServiceTokenInfo; secret: string }>()('POST', '/v0/tokens', (b) => isServiceToken(b.token) && typeof b.secret === 'string'),
  listTokens: route<undefined, { tokens: ServiceTokenInfo[] }>()('GET', '/v0/tokens', (b) => Array.isArray(b.tokens) && b.tokens.every(isServiceToken)),
  revokeToken: route<undefined, { token: ServiceTokenInfo }>()('DELETE', '/v0/tokens/:id', (b) => isServiceToken(b.token)),
  listApps: route<undefined, { apps: AppInfo[] }>()('GET', '/v0/apps', (b) => Array.isArray(b.apps) && b.apps.every(isApp)),
  createApp: route<{ name: string }, { app: AppInfo }>()('POST', '/v0/apps', anApp),
  getApp: route<undefined, { app: AppInfo }>()('GET', '/v0/apps/:appId', anApp),
  deploy: route<DeployRequest, Activated>()('POST', '/v0/apps/:appId/deployments', activated),
  listDeployments: route<undefined, { deployments: DeploymentInfo[] }>()('GET', '/v0/apps/:appId/deployments', (b) => Array.isArray(b.deployments) && b.deployments.every(isDeployment)),
  promote: route<{ artifactId?: string; receiptId?: string }, Activated>()('POST', '/v0/apps/:appId/promote', activated),
  rollback: route<{ artifactId: string; environment?: Environment }, Activated>()('POST', '/v0/apps/:appId/rollback', activated),
  listEnv: route<undefined, { variables: EnvVariableInfo[] }>()('GET', '/v0/apps/:appId/env/:scope', (b) => Array.isArray(b.variables) && b.variables.every(isEnvVariable)),
  envValues: route<undefined, { values: Record<string, string> }>()(
    'GET',
    '/v0/apps/:appId/env/:scope/values',
    (b) => typeof b.values === 'object' && b.values !== null && !Array.isArray(b.values) && Object.values(b.values).every((v) => typeof v === 'string'),
  ),
  setEnv: route<{ value: string }, { variable: EnvVariableInfo }>()('PUT', '/v0/apps/:appId/env/:scope/:name', (b) => isEnvVariable(b.variable)),
  removeEnv: route<undefined, { removed: boolean }>()('DELETE', '/v0/apps/:appId/env/:scope/:name', (b) => typeof b.removed === 'boolean'),
  disable: route<Record<string, never>, { app: AppInfo }>()('POST', '/v0/apps/:appId/disable', anApp),
  enable: route<Record<string, never>, { app: AppInfo }>()('POST', '/v0/apps/:appId/enable', anApp),
  remove: route<{ confirm: string }, { app: AppInfo }>()('POST', '/v0/apps/:appId/delete', anApp),
  /** An owner's read of an environment: `view` is one of INSPECT_VIEWS; callers check the answer with isInspectAnswer for their view. */
  inspect: route<undefined, InspectAnswer>()('GET', '/v0/apps/:appId/inspect/:environment/:view', (b) => typeof b.view === 'string'),
  addDomain: route<{ hostname: string }, { domain: DomainInfo }>()('POST', '/v0/apps/:appId/domains', (b) => isDomain(b.domain)),
  listDomains: route<undefined, { domains: DomainInfo[] }>()('GET', '/v0/domains', (b) => Array.isArray(b.domains) && b.domains.every(isDomain)),
  domainStatus: route<undefined, { domain: DomainInfo }>()('GET', '/v0/domains/:hostname', (b) => isDomain(b.domain)),
  removeDomain: route<undefined, { removed: true; hostname: string }>()('DELETE', '/v0/domains/:hostname', (b) => b.removed === true && typeof b.hostname === 'string'),
  openTunnel: route<Record<string, never>, { tunnel: TunnelInfo; key: string }>()('POST', '/v0/tunnels', (b) => isTunnelInfo(b.tunnel) && typeof b.key === 'string'),
  nextTunnelRequest: route<undefined, { request: TunnelRequest | null }>()('GET', '/v0/tunnels/:id/next', (b) => b.request === null || isTunnelRequest(b.request)),
  answerTunnelRequest: route<{ status: number; headers: Record<string, string>; body: string }, { delivered: true }>()('POST', '/v0/tunnels/:id/answers/:requestId', (b) => b.delivered === true),
  closeTunnel: route<undefined, { closed: true }>()('DELETE', '/v0/tunnels/:id', (b) => b.closed === true),
} as const;
