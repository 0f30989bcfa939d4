/**
 * The control plane as one web-standard handler (Hono): the builder API under `/v0/`, the approval page
 * at `/device`, and deployed apps on their own origins (`<app>--preview.localhost`, `<app>.localhost`),
 * told apart by Host. In-process tests call `app.request(...)`; `main.ts` serves it over HTTP.
 */
import { mkdirSync } from 'node:fs';
import { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { Hono } from 'hono';
import { cors } from 'hono/cors';
// Node's SHA-256 for the core's digests (artifacts, catalogue): installed as this module loads.
import '../adapters/node/hash';
import { AppAuth } from './app-auth';
import { ArtifactStore } from './artifacts';
import { answer, DEFAULT_QUOTAS, refuse, type Context, type Quotas } from './context';
import { appRoutes, teardown } from './app-routes';
import { deployRoutes, MAX_DEPLOY_BYTES } from './deploy-routes';
import { envRoutes, envValues } from './env-routes';
import { bodyLimit } from './body-limit';
import { on, type ControlEnv } from './middleware';
import { authRoutes, purgeDevices } from './auth-routes';
import { domainRoutes, Domains, type DomainOptions } from './domains';
import { tunnelRoutes, Tunnels, type TunnelOptions } from './tunnels';
import { TUNNEL_ANSWER_MAX_REQUEST_BYTES, hostedTarget, type Environment, DEFAULT_CONTROL_URL, isRoute, ROUTES } from '../core/deploy';
import { catalogueRoutes, repositoryCatalogue, type CatalogueTemplate } from './catalogue';
import { Hosting } from './hosting/hosting';
import { RateLimit } from './rate-limit';
import { openRecords } from './records';
import { appRecords } from './app-records';
import { builderRecords } from './builder-records';
import { deviceRecords } from './device-records';
import { sharedSecrets, type Secrets } from './secrets';
import { defaultNodeName, Nodes } from './nodes';
import { readServing, ServingCache } from './serving-cache';

/** The playground's origins (dev server, and the preview server end-to-end tests use). */
export const PLAYGROUND_ORIGINS = ['http://localhost:5173', 'http://127.0.0.1:5173', 'http://127.0.0.1:4173', 'http://localhost:4173'];

/** Lifetimes of builder credentials from when they are issued (docs/control-plane.md). */
export const SESSION_TTL_MS = 30 * 86_400_000;
export const SERVICE_TOKEN_TTL_MS = 90 * 86_400_000;

/** The largest body of any request but a deploy (JSON of a few fields, the approval form). */
export const MAX_BODY_BYTES = 64 * 1024;

export interface ControlPlaneOptions {
  /** Where records, artifacts, app databases and secrets live. */
  dataDir: string;
  /**
   * The records in PostgreSQL (`postgres://…`) instead of the data directory's SQLite file: what several
   * control plane processes share. A records file in `dataDir` is copied in on the first start.
   */
  databaseUrl?: string;
  /** This control plane's name among the hosting nodes sharing the records (nodes.ts); by default the machine's name and the data directory's hash. */
  node?: string;
  quotas?: Partial<Quotas>;
  /** The clock of records, quotas and device codes (tests move it). */
  now?: () => number;
  /** How long a device code waits for approval (default 10 minutes), and the poll interval it advertises (default 2 s). */
  deviceTtlMs?: number;
  devicePollMs?: number;
  /** Device codes one client address may ask for in a minute (default 10). */
  deviceRequestsPerMinute?: number;
  /** How long a builder session lives (default 30 days) and a service token (default 90 days). */
  sessionTtlMs?: number;
  serviceTokenTtlMs?: number;
  /** The operator secret; by default the one kept in the data directory. */
  operatorSecret?: string;
  /** Origins allowed to call the API from a browser (CORS); default: the playground's dev and preview servers. */
  corsOrigins?: string[];
  /**
   * The origin people and tools reach the control plane at (default http://localhost:4310): it names
   * the approval page and hosted apps, and is the only origin the approval form is accepted from.
   * Never taken from a request's Host header.
   */
  publicOrigin?: string;
  /** Where hosted environments run: a pool of shared workerd processes (its settings), or `false`, a process each (hosting.ts, `pool`). */
  hostingPool?: false | { processes?: number; memoryLimitMb?: number };
  /** Overrides every hosted app's handler deadline, and the grace before a runaway thread is ended. */
  handlerDeadlineMs?: number;
  handlerGraceMs?: number;
  /** How long a deployed app may take to start before its deployment fails (default 30 s). */
  appStartTimeoutMs?: number;
  /** The bytes each app environment may store, rows and objects (default 1 GiB): past it a write is refused with 507 storage_quota_exceeded. */
  maxStoredBytes?: number;
  /** How long a hosted environment's engine may go unused before it sleeps (default 2 minutes; 0 keeps engines awake). */
  engineIdleMs?: number;
  /** Custom domains: the resolver that verifies them (DNS by default), the hosting provider, the per-builder quota. */
  domains?: DomainOptions;
  /** The template catalogue served at /v0/templates (default: the repository's templates). */
  catalogue?: CatalogueTemplate[];
  /** Tunnels' waits and per-builder limit. */
  tunnels?: TunnelOptions;
}

export interface ControlPlane {
  app: Hono<ControlEnv>;
  /** The origins allowed to call the API from a browser. */
  corsOrigins: string[];
  secrets: Secrets;
  context: Context;
  /** The hosted apps' engines. */
  hosting: Hosting;
  domains: Domains;
  close(): Promise<void>;
}

/** Node's message of the request when Hono's Node server runs the app (`c.env.incoming`); undefined in process (`app.request`). */
function incomingOf(env: unknown): IncomingMessage | undefined {
  const incoming = (env as { incoming?: unknown } | undefined)?.incoming;
  return incoming instanceof IncomingMessage ? incoming : undefined;
}

export async function createControlPlane(options: ControlPlaneOptions): Promise<ControlPlane> {
  mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  const records = await openRecords({ file: join(options.dataDir, 'records.sqlite'), ...(options.databaseUrl ? { databaseUrl: options.databaseUrl } : {}) });
  const secrets = await sharedSecrets(records, options.dataDir, options.operatorSecret);
  await appRecords(records).apps.ensureColumns();
  const nodes = new Nodes(records, options.node ?? defaultNodeName(options.dataDir), secrets.cookieKey);
  const builders = builderRecords(records);
  const artifacts = new ArtifactStore(options.dataDir, builders.blobOwners);
  const now = options.now ?? (() => Date.now());
  // What hosted requests serve, read from the records once and kept until any record changes.
  const apps = appRecords(records);
  const serving = new ServingCache((appId: string, environment: Environment) => readServing(apps, appId, environment));
  serving.watch(records);
  const corsOrigins = options.corsOrigins ?? PLAYGROUND_ORIGINS;
  const context: Context = {
    playgroundOrigins: corsOrigins,
    records,
    nodes,
    apps,
    builders,
    devices: deviceRecords(records),
    artifacts,
    secrets,
    now,
    quotas: { ...DEFAULT_QUOTAS, ...options.quotas },
    publicOrigin: options.publicOrigin ?? DEFAULT_CONTROL_URL,
    deviceTtlMs: options.deviceTtlMs ?? 600_000,
    deviceRequests: new RateLimit(options.deviceRequestsPerMinute ?? 10, 60_000),
    sessionTtlMs: options.sessionTtlMs ?? SESSION_TTL_MS,
    serviceTokenTtlMs: options.serviceTokenTtlMs ?? SERVICE_TOKEN_TTL_MS,
    devicePollMs: options.devicePollMs ?? 2000,
  };
  const hosting = new Hosting({
    dataDir: options.dataDir,
    artifacts,
    secrets,
    lookup: (appId, environment) => serving.lookup(appId, environment),
    envValues: (appId, environment) => envValues(context, appId, environment),
    appAuth: new AppAuth(context),
    ...(options.handlerDeadlineMs ? { handlerDeadlineMs: options.handlerDeadlineMs } : {}),
    ...(options.handlerGraceMs !== undefined ? { graceMs: options.handlerGraceMs } : {}),
    ...(options.appStartTimeoutMs ? { startTimeoutMs: options.appStartTimeoutMs } : {}),
    ...(options.maxStoredBytes ? { maxStoredBytes: options.maxStoredBytes } : {}),
    ...(options.engineIdleMs !== undefined ? { idleMs: options.engineIdleMs } : {}),
    ...(options.hostingPool !== undefined ? { pool: options.hostingPool } : {}),
  });

  // The sweep: deletions a crash interrupted are finished before anything is served.
  for (const id of await context.apps.apps.deleting(nodes.self)) await teardown(context, hosting, id);
  await purgeDevices(context);
  // A deployment a stop interrupted never activated anything: it is recorded as failed (it still counts).
  await context.apps.deployments.failPending('The control plane stopped before this deployment finished; nothing was activated.', nodes.self);

  const domains = new Domains(context, options.domains);
  await domains.start();
  const tunnels = new Tunnels(context, options.tunnels);
  const app = new Hono<ControlEnv>();
  // Deployed apps first: their origins (and verified custom domains, to production) never reach the builder API or the approval page.
  app.use('*', async (c, next) => {
    const host = new URL(c.req.url).host;
    const tunnel = Tunnels.target(host);
    if (tunnel) return tunnels.visit(c.req.raw, tunnel);
    await domains.fresh();
    const custom = domains.route(host);
    if (custom === 'unrouted') return new Response('This domain is not verified yet, or is being removed (platform domains status).\n', { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8' } });
    const target = hostedTarget(host) ?? (custom ? { appId: custom.appId, environment: 'production' as const } : undefined);
    if (target) {
      // An app hosted by another node (nodes.ts) is served there.
      const served = await serving.lookup(target.appId, target.environment);
      const incoming = incomingOf(c.env);
      const visitor = nodes.clientOf(c.req.raw) ?? incoming?.socket?.remoteAddress;
      if (nodes.elsewhere(served.node, c.req.raw)) return nodes.forward(c.req.raw, served.node, visitor);
      return hosting.serve(c.req.raw, target, incoming, visitor, served);
    }
    await next();
  });
  // Exactly the configured playgrounds, never `*` nor the request's own Origin echoed; no credentials
  // (the API sets no cookie: a playground signs its requests, browser-keys.ts).
  app.use(
    '/v0/*',
    cors({
      origin: corsOrigins,
      credentials: false,
      allowMethods: ['GET', 'POST', 'PUT', 'DELETE', 'OPTIONS'],
      allowHeaders: ['authorization', 'content-type'],
      maxAge: 600,
    }),
  );
  // Every body is counted as it streams: a deploy may carry 64 MiB, read by its route once the caller
  // is known; any other body is at most 64 KiB, read before its route runs.
  const isDeploy = (request: Request) => isRoute(ROUTES.deploy, request.method, new URL(request.url).pathname);
  const isTunnelAnswer = (request: Request) => isRoute(ROUTES.answerTunnelRequest, request.method, new URL(request.url).pathname);
  app.use(
    '*',
    bodyLimit({
      limit: (request) => (isDeploy(request) ? MAX_DEPLOY_BYTES : isTunnelAnswer(request) ? TUNNEL_ANSWER_MAX_REQUEST_BYTES : MAX_BODY_BYTES),
      eager: (request) => !isDeploy(request),
      tooLarge: (limit) => refuse(413, 'too_large', `The request body is larger than ${limit} bytes; nothing was done.`),
    }),
  );
  on(app, ROUTES.health, () => answer(200, { ok: true }));
  await authRoutes(app, context);
  appRoutes(app, context, hosting);
  deployRoutes(app, context, hosting);
  envRoutes(app, context, hosting);
  domainRoutes(app, context, domains);
  catalogueRoutes(app, context, options.catalogue ?? repositoryCatalogue());
  tunnelRoutes(app, context, tunnels);
  app.get('/', () => new Response('The platform control plane. The API is under /v0/ (docs/control-plane.md); sign-ins are approved at /device.\n', { headers: { 'content-type': 'text/plain; charset=utf-8' } }));
  app.notFound((c) => (new URL(c.req.url).pathname.startsWith('/v0/') ? refuse(404, 'not_found', `No route ${c.req.method} ${new URL(c.req.url).pathname}.`) : new Response('Not found\n', { status: 404 })));
  app.onError((error) => refuse(500, 'internal', `The control plane failed: ${error instanceof Error ? error.message : String(error)}`));

  return {
    app,
    corsOrigins,
    secrets,
    context,
    hosting,
    domains,
    async close() {
      tunnels.closeAll();
      await hosting.close();
      await records.close();
    },
  };
}
