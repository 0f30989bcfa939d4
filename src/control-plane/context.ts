/** What every route of the control plane shares: its records, artifacts, secrets, clock and quotas, and the answer helpers (the hosting is handed to the routes that use it). */
import { randomId, systemClock } from '../core/runtime';
import { APP_ID, hostedOrigin, type Environment, CONTROL_PROTOCOL, type AppInfo, type AppState, type ControlErrorCode, type DeploymentInfo } from '../core/deploy';
import type { ArtifactStore } from './artifacts';
import { BodyTooLargeError } from './body-limit';
import type { RateLimit } from './rate-limit';
import type { Records, Row } from './records';
import type { Nodes } from './nodes';
import type { AppRecords } from './app-records';
import type { BuilderRecords } from './builder-records';
import type { DeviceRecords } from './device-records';
import { hashToken, type Secrets } from './secrets';

export interface Quotas {
  /** Apps a builder may own at once (deleted apps do not count). */
  appsPerBuilder: number;
  /** Deployments (deploy, promote, rollback; failed ones count) a builder may make in any hour. */
  deploysPerHour: number;
  /** And in any day. */
  deploysPerDay: number;
}

export const DEFAULT_QUOTAS: Quotas = { appsPerBuilder: 20, deploysPerHour: 60, deploysPerDay: 300 };

export interface Caller {
  builderId: string;
  builderName: string;
  kind: 'session' | 'service-token';
  /** The hash of the session or service token the caller is signed in with. */
  tokenHash: string;
  /** When that credential expires (ms). */
  expiresAt: number;
  /** The playground key the request was signed with (browser-keys.ts), when it was. */
  browserKey?: string;
}

export interface Context {
  records: Records;
  /** The hosting nodes sharing the records, this one among them (nodes.ts). */
  nodes: Nodes;
  /** The records of apps and what was done to them, by resource (app-records.ts), over `records`. */
  apps: AppRecords;
  /** Builders, their sessions and service tokens (builder-records.ts), over `records`. */
  builders: BuilderRecords;
  /** The device codes of the sign-in flow (device-codes.ts), over `records`. */
  devices: DeviceRecords;
  artifacts: ArtifactStore;
  secrets: Secrets;
  now(): number;
  quotas: Quotas;
  /** The playgrounds' origins: allowed by CORS, and the only ones a playground key is bound to (browser-keys.ts). */
  playgroundOrigins: readonly string[];
  /** The origin the control plane is reached at (see ControlPlaneOptions.publicOrigin). */
  publicOrigin: string;
  deviceTtlMs: number;
  /** Device codes asked for, per client address. */
  deviceRequests: RateLimit;
  /** How long a builder session and a service token live after they are issued. */
  sessionTtlMs: number;
  serviceTokenTtlMs: number;
  devicePollMs: number;
}

export const newId = (prefix: string) => `${prefix}_${randomId(systemClock)}`;
export const iso = (ms: number) => new Date(ms).toISOString();

/** Types only: the brands of an answer's and a refusal's Response (never set at run time). */
declare const ANSWERED: unique symbol;
declare const REFUSED: unique symbol;

/**
 * A success answer whose body is a `T`: a Response whose type carries its body's, so that a route's
 * handler (middleware.ts `on`) can only answer what the route declares (`ROUTES`, its `Answer`).
 */
export type Answered<T> = Response & { readonly [ANSWERED]: T };
/** A refusal (`{ error: { code, message, … } }` with its status): what any route may answer instead. */
export type Refused = Response & { readonly [REFUSED]: true };

export function answer<T extends Record<string, unknown>>(status: number, body: T, headers: Record<string, string> = {}): Answered<T> {
  return new Response(JSON.stringify({ protocol: CONTROL_PROTOCOL, ...body }), { status, headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers } }) as Answered<T>;
}

/** A request's JSON body when it is an object; undefined for anything else (not JSON, an array, a string). */
export async function jsonObject(request: Request): Promise<Record<string, unknown> | undefined> {
  let text: string;
  try {
    text = await request.text();
  } catch (error) {
    // Past the body limit: answered 413 by the body-limit middleware.
    if (error instanceof BodyTooLargeError) throw error;
    return undefined;
  }
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

export function refuse(status: number, code: ControlErrorCode, message: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}): Refused {
  return answer(status, { error: { code, message, ...extra } }, headers) as Response as Refused;
}

/** The builder a request's bearer token belongs to, or the 401 answer (`credential_expired` past its lifetime). */
export async function authenticate(ctx: Context, request: Request): Promise<Caller | Refused> {
  const header = request.headers.get('authorization') ?? '';
  const token = /^Bearer (\S+)$/.exec(header)?.[1];
  if (!token) return refuse(401, 'unauthorized', 'A builder credential is required (Authorization: Bearer …).');
  const kind = token.startsWith('xbs_') ? 'session' : token.startsWith('xst_') ? 'service-token' : undefined;
  return kind ? (await credentialCaller(ctx, kind, hashToken(token))) : refuse(401, 'unauthorized', 'The credential is unknown, revoked or signed out.');
}

/** The builder a credential (by its kind and hash) belongs to while it lives, or the 401 answer. */
export async function credentialCaller(ctx: Context, kind: Caller['kind'], hash: string): Promise<Caller | Refused> {
  const now = ctx.now();
  const expired = (createdAt: number, ttl: number) => {
    if (now < createdAt + ttl) return undefined;
    const at = iso(createdAt + ttl);
    const message =
      kind === 'session'
        ? `The builder session expired at ${at} (sessions live ${Math.round(ttl / 86_400_000)} days); sign in again.`
        : `The service token expired at ${at} (tokens live ${Math.round(ttl / 86_400_000)} days); create a new one.`;
    return refuse(401, 'credential_expired', message, { credential: kind, resetAt: at });
  };
  if (kind === 'session') {
    const row = await ctx.builders.sessions.live(hash);
    if (row) return expired(Number(row.createdAt), ctx.sessionTtlMs) ?? { builderId: String(row.builderId), builderName: String(row.name), kind: 'session', tokenHash: hash, expiresAt: Number(row.createdAt) + ctx.sessionTtlMs };
  } else {
    const row = await ctx.builders.serviceTokens.liveByHash(hash);
    if (row) {
      const refusal = expired(Number(row.createdAt), ctx.serviceTokenTtlMs);
      if (refusal) return refusal;
      // Last use is recorded at most once a minute: every record change is a write to disk.
      if (row.lastUsedAt === null || now - Number(row.lastUsedAt) > 60_000) await ctx.builders.serviceTokens.touch(String(row.id), now);
      return { builderId: String(row.builderId), builderName: String(row.name), kind: 'service-token', tokenHash: hash, expiresAt: Number(row.createdAt) + ctx.serviceTokenTtlMs };
    }
  }
  return refuse(401, 'unauthorized', 'The credential is unknown, revoked or signed out.');
}

/** The caller's app, or the answer that refuses it (unknown, another builder's, deleted). */
export async function ownedApp(ctx: Context, caller: Caller, appId: string, options: { allowDeleted?: boolean } = {}): Promise<Row | Refused> {
  if (!APP_ID.test(appId)) return refuse(404, 'app_not_found', `${JSON.stringify(appId)} is not an appId.`);
  const app = await ctx.apps.apps.get(appId);
  if (!app) return refuse(404, 'app_not_found', `There is no app ${appId}.`);
  if (app.ownerId !== caller.builderId) return refuse(403, 'not_owner', `The app ${appId} is owned by another builder.`);
  if (!options.allowDeleted && (app.state === 'deleted' || app.state === 'deleting')) return refuse(404, 'app_deleted', `The app ${appId} was deleted.`);
  return app;
}

/** The public shape of an app record; hosted URLs are on the control plane's public origin. */
export async function appInfo(ctx: Context, app: Row): Promise<AppInfo> {
  const id = String(app.id);
  const serving: AppInfo['serving'] = {};
  const live: AppInfo['live'] = {};
  for (const row of await ctx.apps.serving.ofApp(id)) {
    serving[row.environment as Environment] = String(row.artifactId);
    live[row.environment as Environment] = String(row.deploymentId);
  }
  const stores: Partial<Record<Environment, string>> = {};
  for (const row of await ctx.apps.stores.ofApp(id)) stores[row.environment as Environment] = String(row.state);
  const state = (app.state === 'deleting' ? 'deleted' : app.state) as AppState;
  return {
    id,
    name: String(app.name),
    state,
    createdAt: iso(Number(app.createdAt)),
    urls: { preview: hostedOrigin(id, 'preview', ctx.publicOrigin), production: hostedOrigin(id, 'production', ctx.publicOrigin) },
    serving,
    live,
    ...(Object.keys(stores).length ? { storage: stores } : {}),
  } as AppInfo;
}

export function deploymentInfo(row: Row): DeploymentInfo {
  return {
    id: String(row.id),
    appId: String(row.appId),
    environment: row.environment as Environment,
    artifactId: String(row.artifactId),
    kind: row.kind as DeploymentInfo['kind'],
    state: row.state as DeploymentInfo['state'],
    createdAt: iso(Number(row.createdAt)),
    ...(row.receiptId ? { receiptId: String(row.receiptId) } : {}),
    ...(row.errorCode ? { error: { code: row.errorCode as ControlErrorCode, message: String(row.errorMessage ?? '') } } : {}),
  };
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** The refusal when the builder's deploy quota is spent, naming when the next deployment is allowed. */
export async function deployQuotaRefusal(ctx: Context, builderId: string): Promise<Refused | undefined> {
  const now = ctx.now();
  const times = await ctx.apps.deployments.createdSince(builderId, now - DAY);
  const check = (window: number, limit: number, quota: 'deploys-hour' | 'deploys-day', label: string) => {
    const inWindow = times.filter((t) => t > now - window);
    if (inWindow.length < limit) return undefined;
    const resetAt = iso(inWindow[inWindow.length - limit]! + window);
    return refuse(429, 'quota_exceeded', `The ${label} deploy quota of ${limit} is spent (failed deployments count); the next deployment is allowed at ${resetAt}.`, { quota, resetAt });
  };
  return check(HOUR, ctx.quotas.deploysPerHour, 'deploys-hour', 'hourly') ?? check(DAY, ctx.quotas.deploysPerDay, 'deploys-day', 'daily');
}
