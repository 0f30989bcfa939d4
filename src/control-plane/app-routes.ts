/**
 * Apps and what a builder does with them: create, deploy (verified, content-addressed artifacts),
 * promote, roll back, list deployments, environment values, disable, enable and delete. Every route
 * acts only on the caller's own apps.
 */
import type { Hono } from 'hono';
import type { ArtifactRecord } from '../core/build/artifact';
import { ARTIFACT_ID, deployEnvironment, ENV_NAME, ENV_VALUE_MAX_BYTES, envScope, hostedOrigin, RECEIPT_ID, type Environment } from '../core/deploy/ids';
import { ROUTES } from '../core/deploy/routes';
import { CALL_CURSOR, INSPECT_VIEWS, type InspectView } from '../core/deploy/protocol';
import { answer, appInfo, jsonObject as json, deployQuotaRefusal, deploymentInfo, newId, refuse, type Caller, type Context, type Refused } from './context';
import { on, ownsApp, signedIn, type ControlContext, type ControlEnv, type RouteResult } from './middleware';
import type { Row } from './records';
import type { Hosting } from './hosting/hosting';
import { seal, unseal } from './secrets';
import { Slots } from './slots';

const APP_NAME = /^[a-z][a-z0-9-]{1,62}$/;
/** The largest deploy request: the artifact's blobs travel base64 in it. */
export const MAX_DEPLOY_BYTES = 64 * 1024 * 1024;


const FAILURE_STATUS = { module_invalid: 422, provision_failed: 409, runtime_not_ready: 503, runtime_unhealthy: 502, artifact_invalid: 422 } as const;

/** Environment values of an app's scope, in clear. */
export function envValues(ctx: Context, appId: string, scope: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const row of ctx.apps.envValues.sealed(appId, scope)) {
    values[String(row.name)] = unseal(ctx.secrets.envKey, String(row.sealed), `${appId}:${scope}:${row.name}`);
  }
  return values;
}

/** Finishes deleting an app: offline, scripts removed, stores destroyed preview first. Repeatable, so a sweep can finish it. */
export async function teardown(ctx: Context, hosting: Hosting, appId: string): Promise<void> {
  const { serving, envValues, stores, apps } = ctx.apps;
  serving.removeApp(appId);
  await hosting.destroy(appId);
  ctx.records.transaction(() => {
    envValues.removeApp(appId);
    stores.destroyApp(appId);
    apps.markDeleted(appId, ctx.now());
  });
}

/** Deploy bodies read at once: each may be 64 MiB, and several times that while parsed and checked. */
const DEPLOY_BODY_SLOTS = 2;

export function appRoutes(app: Hono<ControlEnv>, ctx: Context, hosting: Hosting): void {
  const deployBodies = new Slots(DEPLOY_BODY_SLOTS);
  const { apps, deployments, serving, stores, envValues: values } = ctx.apps;
  type Kind = 'deploy' | 'promote' | 'rollback';
  interface Reservation {
    id: string;
    caller: Caller;
    appId: string;
    environment: Environment;
    artifactId: string;
    kind: Kind;
  }

  /**
   * Checks the deploy quota and records a pending deployment in one step, with no await in between: of
   * any number of concurrent requests, only as many as the quota has room for get a reservation.
   */
  function reserve(caller: Caller, appId: string, environment: Environment, artifactId: string, kind: Kind): Reservation | Refused {
    return ctx.records.transaction(() => {
      const quota = deployQuotaRefusal(ctx, caller.builderId);
      if (quota) return quota;
      const id = newId('dep');
      deployments.insertPending({ id, appId, builderId: caller.builderId, environment, artifactId, kind, createdAt: ctx.now() });
      return { id, caller, appId, environment, artifactId, kind };
    });
  }

  /** Settles a reserved deployment: failed, or completed and served by its environment. */
  function settle(reservation: Reservation, failure?: { code: string; message: string }, manifest?: ArtifactRecord['manifest']): Row {
    const { id, appId, environment, artifactId } = reservation;
    ctx.records.transaction(() => {
      if (failure) {
        deployments.markFailed(id, failure.code, failure.message);
        return;
      }
      deployments.markCompleted(id, environment === 'preview' ? newId('review') : null);
      serving.set(appId, environment, artifactId, id);
      // Storage: a deploy declaring it attaches the store (the same one, contents intact); one without it detaches it, keeping the objects.
      const declares = manifest?.capabilities?.includes('storage') ?? false;
      if (declares) stores.attach(appId, environment);
      else if (stores.state(appId, environment) === 'attached') stores.detach(appId, environment);
    });
    return deployments.get(id)!;
  }

  /** Runs the work of a reservation; if it throws, the deployment is recorded as failed, never left pending. */
  async function carry<T>(reservation: Reservation, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (deployments.isPending(reservation.id)) {
        settle(reservation, { code: 'internal', message: `The deployment failed: ${error instanceof Error ? error.message : String(error)}` });
      }
      throw error;
    }
  }

  /** Starts a reserved artifact in its environment: probed first, so a failure leaves the previous version serving. */
  async function activate(reservation: Reservation): Promise<RouteResult<typeof ROUTES.deploy>> {
    const { appId, environment, artifactId } = reservation;
    const artifact = ctx.artifacts.record(artifactId);
    if (!artifact) {
      settle(reservation, { code: 'no_deployment', message: `The artifact ${artifactId} is not kept.` });
      return refuse(404, 'no_deployment', `The artifact ${artifactId} is not kept.`);
    }
    const failure = await hosting.probe(appId, environment, artifact);
    if (failure) {
      settle(reservation, failure);
      return refuse(FAILURE_STATUS[failure.code], failure.code, `${failure.message} Nothing was activated; the previous version still serves.`);
    }
    // The probe ran on a copy; the switch starts the artifact on the live data and must answer ready
    // (data written since the copy may not fit). Until it does, the records name the previous version.
    const switched = await hosting.activate(appId, environment, artifact);
    if (switched) {
      settle(reservation, switched);
      return refuse(FAILURE_STATUS[switched.code], switched.code, `${switched.message} Nothing was activated; the previous version still serves.`);
    }
    const row = settle(reservation, undefined, artifact.manifest);
    return answer(201, { deployment: deploymentInfo(row), url: hostedOrigin(appId, environment, ctx.publicOrigin) });
  }

  const who = signedIn(ctx);
  const mine = ownsApp(ctx);
  const inService = ownsApp(ctx, { inService: true });
  /** The caller and the id of the app the middleware checked. */
  const owner = (c: ControlContext) => ({ who: c.get('caller'), appId: String(c.get('app').id) });

  on(app, ROUTES.listApps, who, (c) => {
    return answer(200, { apps: apps.owned(c.get('caller').builderId).map((row) => appInfo(ctx, row)) });
  });

  on(app, ROUTES.createApp, who, async (c) => {
    const { builderId } = c.get('caller');
    const body = await json(c.req.raw);
    if (!body || typeof body.name !== 'string' || !APP_NAME.test(body.name)) return refuse(400, 'invalid_request', 'An app needs the name of its manifest (2 to 63 lowercase letters, digits or dashes).');
    if (apps.countOwned(builderId) >= ctx.quotas.appsPerBuilder) {
      return refuse(429, 'quota_exceeded', `The quota of ${ctx.quotas.appsPerBuilder} apps per builder is reached; it frees when you delete one of your apps (platform delete).`, { quota: 'apps' });
    }
    // Ids are never reused: deleted apps keep their record.
    let id = newId('app');
    while (apps.exists(id)) id = newId('app');
    apps.insert({ id, name: body.name, ownerId: builderId, createdAt: ctx.now() });
    return answer(201, { app: appInfo(ctx, apps.get(id)!) });
  });

  on(app, ROUTES.getApp, mine, (c) => answer(200, { app: appInfo(ctx, c.get('app')) }));

  on(app, ROUTES.deploy, inService, async (c) => {
    const { who, appId } = owner(c);
    // The body is read, parsed and its blobs kept in a slot (memory bounded by the slots, however many
    // deploys arrive at once); the probe and the switch, which hold little memory, run outside it.
    const received = await deployBodies.run(async (): Promise<Refused | Reservation> => {
      const body = await json(c.req.raw);
      const environment = typeof body?.environment === 'string' ? deployEnvironment(body.environment) : undefined;
      const artifact = body?.artifact as { id?: unknown; record?: unknown; blobs?: unknown } | undefined;
      if (!body || !environment || typeof artifact !== 'object' || artifact === null) return refuse(400, 'invalid_request', 'Send {"environment": "preview" | "production", "artifact": {"id", "record", "blobs"}}.');
      if (typeof artifact.id !== 'string' || !ARTIFACT_ID.test(artifact.id)) return refuse(422, 'artifact_invalid', 'The artifact was refused: its id is not sha256: followed by 64 hex digits.');
      const reservation = reserve(who, appId, environment, artifact.id, 'deploy');
      if (reservation instanceof Response) return reservation;
      const kept = await carry(reservation, async () => {
        const outcome = await ctx.artifacts.receive(who.builderId, artifact.id as string, artifact.record, artifact.blobs);
        if (outcome.ok) return undefined;
        // A refused artifact is a failed deployment, and counts against the quota; nothing of it is kept or started.
        settle(reservation, { code: outcome.code, message: outcome.message });
        return refuse(422, outcome.code, `The artifact was refused: ${outcome.message} Nothing was kept or started.`);
      });
      return kept ?? reservation;
    });
    if (received instanceof Response) return received;
    return carry(received, () => activate(received));
  });

  on(app, ROUTES.listDeployments, mine, (c) => {
    const given = c.req.query('limit') ?? '20';
    const limit = Number(given);
    if (!/^[0-9]+$/.test(given) || limit < 1 || limit > 200) return refuse(400, 'invalid_request', 'limit must be a whole number from 1 to 200.');
    // Deployments still in progress are not history yet.
    return answer(200, { deployments: deployments.history(owner(c).appId, limit).map(deploymentInfo) });
  });

  on(app, ROUTES.promote, inService, async (c) => {
    const { who, appId } = owner(c);
    const body = (await json(c.req.raw)) ?? {};
    const { artifactId, receiptId } = body;
    if (artifactId !== undefined && receiptId !== undefined) return refuse(400, 'invalid_request', 'Give artifactId or receiptId, not both.');
    let chosen: string;
    if (typeof receiptId === 'string') {
      if (!RECEIPT_ID.test(receiptId)) return refuse(404, 'no_receipt', `${JSON.stringify(receiptId)} is not a review receipt id.`);
      const found = deployments.artifactOfReceipt(appId, receiptId);
      if (!found) return refuse(404, 'no_receipt', `There is no review receipt ${receiptId} for ${appId}.`);
      chosen = found;
    } else if (typeof artifactId === 'string') {
      if (!ARTIFACT_ID.test(artifactId)) return refuse(400, 'invalid_request', 'artifactId must be sha256: followed by 64 hex digits.');
      if (!deployments.completed(appId, artifactId)) return refuse(404, 'no_deployment', `${appId} has no completed deployment of ${artifactId}.`);
      chosen = artifactId;
    } else if (artifactId === undefined && receiptId === undefined) {
      const preview = serving.artifact(appId, 'preview');
      if (!preview) return refuse(409, 'no_preview', `${appId} has no completed preview deployment to promote.`);
      chosen = preview;
    } else {
      return refuse(400, 'invalid_request', 'artifactId and receiptId are strings.');
    }
    const reservation = reserve(who, appId, 'production', chosen, 'promote');
    if (reservation instanceof Response) return reservation;
    return carry(reservation, () => activate(reservation));
  });

  on(app, ROUTES.rollback, inService, async (c) => {
    const { who, appId } = owner(c);
    const body = (await json(c.req.raw)) ?? {};
    const environment = typeof body.environment === 'string' ? deployEnvironment(body.environment) : body.environment === undefined ? 'production' : undefined;
    if (typeof body.artifactId !== 'string' || !ARTIFACT_ID.test(body.artifactId) || !environment) return refuse(400, 'invalid_request', 'Send {"artifactId": "sha256:…", "environment": "production" | "preview"}.');
    // Back to what this environment served: anything else would be a promotion without its review.
    if (!deployments.completed(appId, body.artifactId, environment)) {
      return refuse(404, 'no_deployment', `${appId} has no completed ${environment} deployment of ${body.artifactId}.`);
    }
    const reservation = reserve(who, appId, environment, body.artifactId, 'rollback');
    if (reservation instanceof Response) return reservation;
    return carry(reservation, () => activate(reservation));
  });

  // An owner's reads of a deployed environment (tooling.md, Authentication 4): only through here.
  on(app, ROUTES.inspect, mine, async (c) => {
    const { appId } = owner(c);
    const environment = deployEnvironment(c.req.param('environment') ?? '');
    const view = c.req.param('view') as InspectView;
    if (!environment || !INSPECT_VIEWS.includes(view)) return refuse(400, 'invalid_request', `Read one of ${INSPECT_VIEWS.join(', ')} of preview or production.`);
    const served = serving.withDeployment(appId, environment);
    if (!served) return refuse(404, 'not_deployed', `${appId} has no ${environment} deployment to read.`);
    const artifactId = String(served.artifactId);
    const base = { appId, environment, artifactId, ...(served.id ? { deployment: deploymentInfo(served) } : {}) };
    if (view === 'manifest') {
      const record = ctx.artifacts.record(artifactId);
      if (!record) return refuse(404, 'no_deployment', `The artifact ${artifactId} is not kept.`);
      return answer(200, { ...base, view, manifest: record.manifest });
    }
    if (view === 'logs') {
      const after = c.req.query('after');
      if (after !== undefined && !CALL_CURSOR.test(after)) return refuse(400, 'invalid_request', '`after` is a cursor from an earlier read of the logs.');
      return answer(200, { ...base, view, ...hosting.calls.read(`${appId}:${environment}`, after) });
    }
    const query: Record<string, string> = {};
    for (const name of ['table', 'offset', 'limit', 'maxRows'] as const) {
      const value = c.req.query(name);
      if (value !== undefined) query[name] = value.slice(0, 1000);
    }
    // An export's cursor holds a row id (up to MAX_ROW_ID_LENGTH characters), passed whole.
    const cursor = c.req.query('cursor');
    if (view === 'export' && cursor !== undefined) query.cursor = cursor.slice(0, 8192);
    const read = await hosting.inspect({ appId, environment }, artifactId, view, query);
    if ('code' in read) {
      // The app cannot bring its state up as deployed (redeploy after fixing), or it is not answering now (retry).
      return read.code === 'runtime_not_ready'
        ? refuse(503, 'state_unavailable', read.message, {}, { 'retry-after': '5' })
        : refuse(409, 'state_bootstrap_failed', read.message);
    }
    if (read.kind === 'refused') return refuse(422, 'invalid_request', read.message);
    // The view the body holds, as the engine's read says (hosting.inspect reads a page of the export for `export`, the state for `state`).
    if (read.kind === 'export-page') return answer(200, { ...base, view: 'export' as const, page: read.page });
    const tables = read.tables.map(({ name, declared, rowCount, columns }) => ({ name, declared, rowCount, columns: columns.map(({ name, type, notNull, primaryKey }) => ({ name, type, notNull, primaryKey })) }));
    const rows = read.rows ? { rows: { table: read.rows.table, total: read.rows.total, columns: read.rows.grid.columns, rows: read.rows.grid.rows } } : {};
    return answer(200, { ...base, view: 'state' as const, tables, operations: read.operations, ...rows });
  });

  // Environment values: sealed with AES-GCM, bound to app, scope and name.
  const scoped = (c: ControlContext) => {
    const scope = envScope(c.req.param('scope') ?? '');
    if (!scope) return refuse(400, 'invalid_request', 'The environment is preview, production or dev.');
    return { appId: owner(c).appId, scope };
  };
  const restartScope = async (appId: string, scope: string) => {
    if (scope === 'preview' || scope === 'production') await hosting.restart(appId, scope);
  };

  on(app, ROUTES.listEnv, mine, (c) => {
    const target = scoped(c);
    if (target instanceof Response) return target;
    return answer(200, { variables: values.list(target.appId, target.scope).map((r) => ({ name: String(r.name), updatedAt: new Date(Number(r.updatedAt)).toISOString() })) });
  });

  on(app, ROUTES.envValues, mine, (c) => {
    const target = scoped(c);
    if (target instanceof Response) return target;
    return answer(200, { values: envValues(ctx, target.appId, target.scope) });
  });

  on(app, ROUTES.setEnv, mine, async (c) => {
    const target = scoped(c);
    if (target instanceof Response) return target;
    const name = c.req.param('name') ?? '';
    const body = await json(c.req.raw);
    if (!ENV_NAME.test(name)) return refuse(400, 'invalid_request', 'A name is UPPER_SNAKE_CASE.');
    if (typeof body?.value !== 'string' || Buffer.byteLength(body.value) > ENV_VALUE_MAX_BYTES) return refuse(400, 'invalid_request', `Send {"value": "…"} of at most ${ENV_VALUE_MAX_BYTES} bytes.`);
    const now = ctx.now();
    values.set(target.appId, target.scope, name, seal(ctx.secrets.envKey, body.value, `${target.appId}:${target.scope}:${name}`), now);
    await restartScope(target.appId, target.scope);
    return answer(200, { variable: { name, updatedAt: new Date(now).toISOString() } });
  });

  on(app, ROUTES.removeEnv, mine, async (c) => {
    const target = scoped(c);
    if (target instanceof Response) return target;
    const name = c.req.param('name') ?? '';
    const existed = values.exists(target.appId, target.scope, name);
    if (existed) {
      values.remove(target.appId, target.scope, name);
      await restartScope(target.appId, target.scope);
    }
    return answer(200, { removed: existed });
  });

  // The lifecycle of tooling.md.
  on(app, ROUTES.disable, mine, async (c) => {
    const row = c.get('app');
    apps.setState(String(row.id), 'disabled');
    for (const environment of ['preview', 'production'] as const) await hosting.restart(String(row.id), environment);
    return answer(200, { app: appInfo(ctx, { ...row, state: 'disabled' }) });
  });

  on(app, ROUTES.enable, mine, (c) => {
    const row = c.get('app');
    apps.setState(String(row.id), 'active');
    return answer(200, { app: appInfo(ctx, { ...row, state: 'active' }) });
  });

  on(app, ROUTES.remove, mine, async (c) => {
    const row = c.get('app');
    const body = (await json(c.req.raw)) ?? {};
    if (body.confirm !== row.name) return refuse(400, 'confirm_mismatch', `The confirmation does not equal the app's name exactly (${row.name}); nothing was deleted.`);
    const appId = String(row.id);
    // Offline first; the teardown is recorded, so a sweep at the next start finishes what a crash interrupted.
    apps.markDeleting(appId);
    await teardown(ctx, hosting, appId);
    return answer(200, { app: appInfo(ctx, apps.get(appId)!) });
  });
}
