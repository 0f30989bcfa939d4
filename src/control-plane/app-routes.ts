/**
 * Apps and what a builder does with them: create, list, read (an owner's inspection of a deployed
 * environment), disable, enable and delete. Deployments are deploy-routes.ts's, environment values
 * env-routes.ts's. Every route acts only on the caller's own apps.
 */
import type { Hono } from 'hono';
import { deployEnvironment, ROUTES, CALL_CURSOR, INSPECT_VIEWS, type InspectView } from '../core/deploy';
import { answer, appInfo, jsonObject as json, deploymentInfo, newId, refuse, type Context } from './context';
import { on, ownedAppId, ownsApp, signedIn, type ControlEnv } from './middleware';
import type { Hosting } from './hosting/hosting';

const APP_NAME = /^[a-z][a-z0-9-]{1,62}$/;

/** Finishes deleting an app: offline, scripts removed, stores destroyed preview first. Repeatable, so a sweep can finish it. */
export async function teardown(ctx: Context, hosting: Hosting, appId: string): Promise<void> {
  const { serving, envValues, stores, apps } = ctx.apps;
  await serving.removeApp(appId);
  await hosting.destroy(appId);
  await ctx.records.transaction(async () => {
    await envValues.removeApp(appId);
    await stores.destroyApp(appId);
    await apps.markDeleted(appId, ctx.now());
  });
}

export function appRoutes(app: Hono<ControlEnv>, ctx: Context, hosting: Hosting): void {
  const { apps, serving } = ctx.apps;

  const who = signedIn(ctx);
  const mine = ownsApp(ctx);

  on(app, ROUTES.listApps, who, async (c) => {
    return answer(200, { apps: await Promise.all((await apps.owned(c.get('caller').builderId)).map((row) => appInfo(ctx, row))) });
  });

  on(app, ROUTES.createApp, who, async (c) => {
    const { builderId } = c.get('caller');
    const body = await json(c.req.raw);
    if (!body || typeof body.name !== 'string' || !APP_NAME.test(body.name)) return refuse(400, 'invalid_request', 'An app needs the name of its manifest (2 to 63 lowercase letters, digits or dashes).');
    // The quota is counted and the app recorded in one transaction: of any number of concurrent requests, only as many as the quota has room for make an app.
    const made = await ctx.records.transaction(async () => {
      if ((await apps.countOwned(builderId)) >= ctx.quotas.appsPerBuilder) return undefined;
      // Ids are never reused: deleted apps keep their record.
      let id = newId('app');
      while (await apps.exists(id)) id = newId('app');
      await apps.insert({ id, name: String(body.name), ownerId: builderId, createdAt: ctx.now(), node: ctx.nodes.self });
      return (await apps.get(id))!;
    });
    if (!made) return refuse(429, 'quota_exceeded', `The quota of ${ctx.quotas.appsPerBuilder} apps per builder is reached; it frees when you delete one of your apps (platform delete).`, { quota: 'apps' });
    return answer(201, { app: await appInfo(ctx, made) });
  });

  on(app, ROUTES.getApp, mine, async (c) => answer(200, { app: await appInfo(ctx, c.get('app')) }));

  // An owner's reads of a deployed environment (tooling.md, Authentication 4): only through here.
  on(app, ROUTES.inspect, mine, async (c) => {
    const appId = ownedAppId(c);
    const environment = deployEnvironment(c.req.param('environment') ?? '');
    const view = c.req.param('view') as InspectView;
    if (!environment || !INSPECT_VIEWS.includes(view)) return refuse(400, 'invalid_request', `Read one of ${INSPECT_VIEWS.join(', ')} of preview or production.`);
    const served = await serving.withDeployment(appId, environment);
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

  // The lifecycle of tooling.md.
  on(app, ROUTES.disable, mine, async (c) => {
    const row = c.get('app');
    await apps.setState(String(row.id), 'disabled');
    for (const environment of ['preview', 'production'] as const) await hosting.restart(String(row.id), environment);
    return answer(200, { app: await appInfo(ctx, { ...row, state: 'disabled' }) });
  });

  on(app, ROUTES.enable, mine, async (c) => {
    const row = c.get('app');
    await apps.setState(String(row.id), 'active');
    return answer(200, { app: await appInfo(ctx, { ...row, state: 'active' }) });
  });

  on(app, ROUTES.remove, mine, async (c) => {
    const row = c.get('app');
    const body = (await json(c.req.raw)) ?? {};
    if (body.confirm !== row.name) return refuse(400, 'confirm_mismatch', `The confirmation does not equal the app's name exactly (${row.name}); nothing was deleted.`);
    const appId = String(row.id);
    // Offline first; the teardown is recorded, so a sweep at the next start finishes what a crash interrupted.
    await apps.markDeleting(appId);
    await teardown(ctx, hosting, appId);
    return answer(200, { app: await appInfo(ctx, (await apps.get(appId))!) });
  });
}
