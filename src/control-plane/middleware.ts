/** Who may call a route, as Hono middleware: a signed-in builder, an interactive one, the owner of the app a path names. Routes are registered by their declaration in `ROUTES`. */
import { clientAddress } from './rate-limit';
import type { Context as HonoContext, Handler, Hono, MiddlewareHandler } from 'hono';
import type { AnswerOf, Route } from '../core/deploy';
import { authenticate, ownedApp, refuse, type Answered, type Caller, type Context, type Refused } from './context';
import { isSigned, signedCaller } from './browser-keys';
import type { Row } from './records';

/** What the middleware leaves for the handlers: the caller, and the app the path names. */
export type ControlEnv = { Variables: { caller: Caller; app: Row } };
export type ControlContext = HonoContext<ControlEnv>;

/** What a route's handler answers: the body the route declares (`ROUTES`, its `Answer`), or a refusal. */
export type RouteResult<R> = Answered<AnswerOf<R>> | Refused;
export type RouteHandler<R> = (c: ControlContext) => RouteResult<R> | Promise<RouteResult<R>>;

/**
 * Registers handlers (middleware first) for a declared route. The last is typed by the route: it answers
 * with `answer(status, body)` whose body is the route's `Answer` (checked when it is compiled), or with
 * a refusal (`refuse`); any other Response does not compile.
 */
export function on<R extends Route<string, unknown, unknown>>(app: Hono<ControlEnv>, route: R, handler: RouteHandler<R>): void;
/** The same, behind one middleware (who may call it: `signedIn`, `interactive`, `ownsApp`, …). */
export function on<R extends Route<string, unknown, unknown>>(app: Hono<ControlEnv>, route: R, guard: MiddlewareHandler<ControlEnv>, handler: RouteHandler<R>): void;
export function on(app: Hono<ControlEnv>, route: Route<string, unknown, unknown>, ...handlers: [Handler<ControlEnv>] | [MiddlewareHandler<ControlEnv>, Handler<ControlEnv>]): void {
  app.on(route.method, route.path, ...(handlers as [Handler<ControlEnv>]));
}

/** A builder credential is required (a bearer session or service token, or a playground's signed request); 401 otherwise. */
export function signedIn(ctx: Context): MiddlewareHandler<ControlEnv> {
  return async (c, next) => {
    const caller = await (isSigned(c.req.raw) ? signedCaller(ctx, c.req.raw) : authenticate(ctx, c.req.raw));
    if (caller instanceof Response) return caller;
    c.set('caller', caller);
    await next();
  };
}

/** An interactive session is required: service tokens are managed only by a person signed in. */
export function interactive(ctx: Context): MiddlewareHandler<ControlEnv> {
  const first = signedIn(ctx);
  return (c, next) =>
    first(c, async () => {
      if (c.get('caller').kind !== 'session') {
        c.res = refuse(403, 'interactive_required', 'Service tokens are managed only with an interactive sign-in, never with a service token.');
        return;
      }
      await next();
    });
}

/**
 * The caller must own the app the path names (`:appId`): unknown is 404, another builder's 403, a
 * deleted one 404. With `inService`, a disabled app is refused too (409): deploys, promotions and
 * rollbacks wait until it is enabled.
 */
export function ownsApp(ctx: Context, options: { inService?: boolean } = {}): MiddlewareHandler<ControlEnv> {
  const first = signedIn(ctx);
  return (c, next) =>
    first(c, async () => {
      const row = await ownedApp(ctx, c.get('caller'), c.req.param('appId') ?? '');
      if (row instanceof Response) {
        c.res = row;
        return;
      }
      // An app hosted by another node (nodes.ts) is answered there: its data, engine and artifacts are there.
      if (ctx.nodes.elsewhere(row.node, c.req.raw)) {
        c.res = await ctx.nodes.forward(c.req.raw, row.node, clientAddress(c.env));
        return;
      }
      if (options.inService && row.state === 'disabled') {
        c.res = refuse(409, 'app_disabled', `The app ${String(row.id)} is disabled: enable it first (platform enable).`);
        return;
      }
      c.set('app', row);
      await next();
    });
}

/** The id of the app `ownsApp` checked for the caller. */
export const ownedAppId = (c: ControlContext): string => String(c.get('app').id);
