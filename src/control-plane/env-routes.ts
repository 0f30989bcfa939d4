/**
 * Environment values of an app's scopes (preview, production, dev): listed by name, read in clear by
 * the owner, set and removed. Each is sealed with AES-GCM, bound to its app, scope and name; a change
 * restarts the scope's engine so the app sees it. Every route acts only on the caller's own apps.
 */
import type { Hono } from 'hono';
import { ENV_NAME, ENV_VALUE_MAX_BYTES, envScope, ROUTES } from '../core/deploy';
import { answer, jsonObject as json, refuse, type Context } from './context';
import { on, ownedAppId, ownsApp, type ControlContext, type ControlEnv } from './middleware';
import type { Hosting } from './hosting/hosting';
import { seal, unseal } from './secrets';

/** Environment values of an app's scope, in clear. */
export async function envValues(ctx: Context, appId: string, scope: string): Promise<Record<string, string>> {
  const values: Record<string, string> = {};
  for (const row of await ctx.apps.envValues.sealed(appId, scope)) {
    values[String(row.name)] = unseal(ctx.secrets.envKey, String(row.sealed), `${appId}:${scope}:${row.name}`);
  }
  return values;
}

export function envRoutes(app: Hono<ControlEnv>, ctx: Context, hosting: Hosting): void {
  const values = ctx.apps.envValues;
  const mine = ownsApp(ctx);

  // Environment values: sealed with AES-GCM, bound to app, scope and name.
  const scoped = (c: ControlContext) => {
    const scope = envScope(c.req.param('scope') ?? '');
    if (!scope) return refuse(400, 'invalid_request', 'The environment is preview, production or dev.');
    return { appId: ownedAppId(c), scope };
  };
  const restartScope = async (appId: string, scope: string) => {
    if (scope === 'preview' || scope === 'production') await hosting.restart(appId, scope);
  };

  on(app, ROUTES.listEnv, mine, async (c) => {
    const target = scoped(c);
    if (target instanceof Response) return target;
    return answer(200, { variables: (await values.list(target.appId, target.scope)).map((r) => ({ name: String(r.name), updatedAt: new Date(Number(r.updatedAt)).toISOString() })) });
  });

  on(app, ROUTES.envValues, mine, async (c) => {
    const target = scoped(c);
    if (target instanceof Response) return target;
    return answer(200, { values: await envValues(ctx, target.appId, target.scope) });
  });

  on(app, ROUTES.setEnv, mine, async (c) => {
    const target = scoped(c);
    if (target instanceof Response) return target;
    const name = c.req.param('name') ?? '';
    const body = await json(c.req.raw);
    if (!ENV_NAME.test(name)) return refuse(400, 'invalid_request', 'A name is UPPER_SNAKE_CASE.');
    if (typeof body?.value !== 'string' || Buffer.byteLength(body.value) > ENV_VALUE_MAX_BYTES) return refuse(400, 'invalid_request', `Send {"value": "…"} of at most ${ENV_VALUE_MAX_BYTES} bytes.`);
    const now = ctx.now();
    await values.set(target.appId, target.scope, name, seal(ctx.secrets.envKey, body.value, `${target.appId}:${target.scope}:${name}`), now);
    await restartScope(target.appId, target.scope);
    return answer(200, { variable: { name, updatedAt: new Date(now).toISOString() } });
  });

  on(app, ROUTES.removeEnv, mine, async (c) => {
    const target = scoped(c);
    if (target instanceof Response) return target;
    const name = c.req.param('name') ?? '';
    const existed = await values.exists(target.appId, target.scope, name);
    if (existed) {
      await values.remove(target.appId, target.scope, name);
      await restartScope(target.appId, target.scope);
    }
    return answer(200, { removed: existed });
  });
}
