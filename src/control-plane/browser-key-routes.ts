/**
 * The playground's sign-in routes (browser-keys.ts): a device code, or a pasted token sent once as the
 * bearer of the request, bound to the page's key and origin. The session a device code becomes is
 * bound and never answered; a pasted token is bound as what it is (a service token stays one).
 */
import type { Hono } from 'hono';
import { ROUTES, type ProofPublicKey } from '../core/deploy';
import { authenticate, jsonObject, refuse, type Context, type Refused } from './context';
import { bindKey, foreignOrigin, keyRefusal, playgroundOrigin } from './browser-keys';
import { on, type ControlEnv } from './middleware';
import { hashToken } from './secrets';

/** The device flow's exchange (auth-routes.ts): the session an approved code becomes, or the refusal. */
export type SpendDevice = (deviceCode: string) => Promise<{ session: string; builder: { id: string; name: string }; expiresAt: number } | Refused>;

export function browserKeyRoutes(app: Hono<ControlEnv>, ctx: Context, spendDevice: SpendDevice): void {
  on(app, ROUTES.bindDevice, async (c) => {
    const origin = playgroundOrigin(ctx, c.req.raw);
    if (!origin) return foreignOrigin(ctx);
    const body = await jsonObject(c.req.raw);
    if (!body || typeof body.deviceCode !== 'string') return refuse(400, 'invalid_request', 'Send {"deviceCode": …, "publicKey": …}.');
    // The key is checked before the code is spent: a bad key leaves an approved code usable.
    const bad = keyRefusal(body.publicKey);
    if (bad) return bad;
    const spent = await spendDevice(body.deviceCode);
    if (spent instanceof Response) return spent;
    return bindKey(ctx, origin, body.publicKey as ProofPublicKey, { kind: 'session', tokenHash: hashToken(spent.session), builderId: spent.builder.id, builderName: spent.builder.name, expiresAt: spent.expiresAt });
  });

  on(app, ROUTES.bindToken, async (c) => {
    const origin = playgroundOrigin(ctx, c.req.raw);
    if (!origin) return foreignOrigin(ctx);
    // Only a bearer binds: a key never binds another key.
    const caller = await authenticate(ctx, c.req.raw);
    if (caller instanceof Response) return caller;
    const body = await jsonObject(c.req.raw);
    const bad = keyRefusal(body?.publicKey);
    if (bad) return bad;
    return bindKey(ctx, origin, body!.publicKey as ProofPublicKey, caller);
  });
}
