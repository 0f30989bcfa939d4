/**
 * Builder authentication: the device flow (`platform auth login`), the approval page a builder signs in
 * on with a passkey (accounts.ts), sessions and service tokens. Only token hashes are kept, and no
 * answer ever contains a secret other than the one it just issued.
 */
import { randomBytes } from 'node:crypto';
import type { Hono } from 'hono';
import { TOKEN_NAME, type ServiceTokenInfo, ROUTES } from '../core/deploy';
import { answer, iso, jsonObject as json, newId, refuse, type Context } from './context';
import { accountRoutes, formOf, fromOwnPage } from './account-routes';
import { Accounts } from './accounts';
import { AppAuth } from './app-auth';
import { appSignInRoutes } from './app-sign-in-routes';
import { browserKeyRoutes, type SpendDevice } from './browser-key-routes';
import { revokeBrowserKey } from './browser-keys';
import { approvalPage, askerName, askerOf } from './device-page';
import { resultPage } from './pages';
import { interactive, on, signedIn, type ControlEnv } from './middleware';
import { PENDING_DEVICES_PER_SOURCE, roomForDevice } from './device-codes';
import { clientAddress, clientSource } from './rate-limit';
import { hashToken, sameSecret } from './secrets';

const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
const token = (prefix: string) => `${prefix}_${randomBytes(32).toString('base64url')}`;

function userCode(): string {
  const bytes = randomBytes(8);
  const chars = [...bytes].map((b) => USER_CODE_ALPHABET[b % USER_CODE_ALPHABET.length]);
  return `${chars.slice(0, 4).join('')}-${chars.slice(4).join('')}`;
}


/** Wrong operator secrets a device code takes before it is refused for good (the terminal that asked runs `auth login` again). */
export const WRONG_SECRETS_PER_CODE = 5;
/** How long an expired device code is kept, so a terminal still polling learns it expired; then it is purged. */
export const EXPIRED_DEVICE_GRACE_MS = 600_000;

/** Deletes device codes expired longer ago than the grace. */
export async function purgeDevices(ctx: Context): Promise<void> {
  await ctx.devices.purgeExpiredBefore(ctx.now() - EXPIRED_DEVICE_GRACE_MS);
}

export async function authRoutes(app: Hono<ControlEnv>, ctx: Context): Promise<void> {
  // Wrong operator secrets given on the approval page (an account becoming a builder there) are counted
  // per device code, never globally: a stranger's wrong guesses spend only the codes they asked for,
  // and cannot lock out the operator approving their own. The guessing rate is bounded by the
  // device-code rate limit times WRONG_SECRETS_PER_CODE.
  const wrongSecrets = new Map<string, number>();
  const accounts = new Accounts(ctx);
  accountRoutes(app, ctx, accounts);
  // Signing in to hosted apps goes through this origin (app-auth.ts keeps nothing in memory: any instance will do).
  appSignInRoutes(app, ctx, accounts, new AppAuth(ctx));

  await ctx.devices.ensureColumns();
  /** The playground a device code is started from (its Origin, when the control plane allows it), recorded for the approval page; null for a terminal. */
  const requesterOf = (origin: string | undefined): string | null => (origin && ctx.playgroundOrigins.includes(origin) ? origin : null);
  on(app, ROUTES.startDevice, async (c) => {
    const now = ctx.now();
    // Counted by network (a /24 or /64), not by address: the cap on waiting codes is shared fairly (device-codes.ts).
    const source = clientSource(clientAddress(c.env));
    const limited = ctx.deviceRequests.take(source, now);
    const tooMany = (retryAt: number, message: string) =>
      refuse(429, 'rate_limited', `${message}; the next is allowed at ${iso(retryAt)}.`, { resetAt: iso(retryAt) }, { 'retry-after': String(Math.max(1, Math.ceil((retryAt - now) / 1000))) });
    if (limited) return tooMany(limited.retryAt, `At most ${ctx.deviceRequests.limit} sign-ins a minute may be started from one network`);
    const deviceCode = randomBytes(32).toString('base64url');
    // The cap is counted and the code recorded in one transaction: racing requests cannot pass it together.
    const made = await ctx.records.transaction(async () => {
      const room = await roomForDevice(ctx.devices, source, now);
      if ('retryAt' in room) return room;
      await purgeDevices(ctx);
      let code = userCode();
      while (await ctx.devices.userCodeTaken(code)) code = userCode();
      if (room.evict) await ctx.devices.expireWaiting(room.evict, now);
      await ctx.devices.insert({ deviceHash: hashToken(deviceCode), userCode: code, createdAt: now, expiresAt: now + ctx.deviceTtlMs, source, requester: requesterOf(c.req.header('origin')) });
      return { code };
    });
    if ('retryAt' in made) {
      return tooMany(made.retryAt, made.reason === 'source' ? `${PENDING_DEVICES_PER_SOURCE} sign-ins from this network are waiting for approval` : 'Every sign-in slot is taken');
    }
    for (const hash of wrongSecrets.keys()) if (!(await ctx.devices.exists(hash))) wrongSecrets.delete(hash);
    const { code } = made;
    const origin = ctx.publicOrigin;
    return answer(200, {
      deviceCode,
      userCode: code,
      verificationUri: `${origin}/device`,
      verificationUriComplete: `${origin}/device?code=${code}`,
      expiresAt: iso(now + ctx.deviceTtlMs),
      intervalMs: ctx.devicePollMs,
    });
  });

  /** An approved device code becomes a session, once: the session's token, or the refusal while it cannot. */
  const spendDevice: SpendDevice = (deviceCode) =>
    // Read and spent in one transaction: an approved code polled twice at once becomes one session.
    ctx.records.transaction(async () => {
      const device = await ctx.devices.byHash(hashToken(deviceCode));
      if (!device || device.state === 'used') return refuse(400, 'invalid_request', 'The device code is unknown or was already used.');
      if (device.state === 'denied') return refuse(400, 'access_denied', 'The sign-in was denied on the approval page.');
      if (device.state === 'pending') {
        if (ctx.now() > Number(device.expiresAt)) return refuse(400, 'expired_token', 'The device authorization expired before it was approved.');
        return refuse(400, 'authorization_pending', 'Waiting for a person to approve the code.');
      }
      const session = await token('xbs');
      const builder = (await ctx.builders.builders.get(String(device.builderId)))!;
      const now = ctx.now();
      await ctx.devices.setState(String(device.deviceHash), 'used');
      await ctx.builders.sessions.insert(hashToken(session), String(builder.id), now);
      return { session, builder: { id: String(builder.id), name: String(builder.name) }, expiresAt: now + ctx.sessionTtlMs };
    });

  on(app, ROUTES.pollDevice, async (c) => {
    const body = await json(c.req.raw);
    if (!body || typeof body.deviceCode !== 'string') return refuse(400, 'invalid_request', 'Send {"deviceCode": …}.');
    const spent = await spendDevice(body.deviceCode);
    if (spent instanceof Response) return spent;
    return answer(200, { token: spent.session, builder: spent.builder, expiresAt: iso(spent.expiresAt) });
  });
  // The playground's sign-ins: the same exchange, bound to a key the page cannot export.
  browserKeyRoutes(app, ctx, spendDevice);

  app.get('/device', async (c) => {
    const code = c.req.query('code') ?? '';
    // Who the waiting code's sign-in is for, as the page names it: a playground's origin, or a terminal.
    const requester = code ? (await ctx.devices.requesterOfWaiting(code.trim().toUpperCase())) : undefined;
    return approvalPage(code, await accounts.session(c.req.raw), ctx.publicOrigin, undefined, askerOf(requester));
  });

  app.post('/device', async (c) => {
    // Only this page's own form may approve: not a page of another origin, not a script. Its origin
    // is the configured public origin, never one the request names (Host can be anything).
    if (!fromOwnPage(c, ctx)) return resultPage(403, 'Refused', `Approve sign-ins on ${ctx.publicOrigin}/device only.`, { code: 'foreign_origin' });
    const form = await formOf(c);
    const code = String(form.code ?? '').trim().toUpperCase();
    const secret = typeof form.secret === 'string' ? form.secret : undefined;
    const decision = form.decision === 'deny' ? 'deny' : 'approve';
    const again = { href: `/device?code=${encodeURIComponent(code)}`, text: 'Try again' };
    const session = await accounts.session(c.req.raw);
    if (!session) return resultPage(401, 'Sign in first', 'Sign in with a passkey on the approval page, then approve or deny the code.', { code: 'not_signed_in', link: again });
    const now = ctx.now();
    const device = await ctx.devices.byUserCode(code);
    if (!device || device.state !== 'pending') return resultPage(404, 'Unknown code', 'No sign-in is waiting for that code. Check it against your terminal.', { code: 'unknown_code', link: again });
    if (now > Number(device.expiresAt)) return resultPage(410, 'Code expired', 'This code expired: run platform auth login again.', { code: 'expired_code' });
    const hash = String(device.deviceHash);
    let account = session.account;
    if (!account.builderId) {
      // Builder status, once per account, with the operator secret: wrong ones are counted per code.
      if (secret === undefined) return resultPage(403, 'Not a builder', `${account.name} is not a builder of this control plane: only builders approve or deny sign-ins. Become one with the operator secret on this page or on your account page.`, { code: 'not_builder', link: again });
      if (!sameSecret(secret, ctx.secrets.operatorSecret)) {
        const wrong = (wrongSecrets.get(hash) ?? 0) + 1;
        wrongSecrets.set(hash, wrong);
        if (wrong >= WRONG_SECRETS_PER_CODE) {
          // The code is spent: its terminal is told (access_denied) and asks for a new one.
          await ctx.devices.setState(hash, 'denied');
          wrongSecrets.delete(hash);
          return resultPage(429, 'Code refused', `${WRONG_SECRETS_PER_CODE} wrong operator secrets were given for this code, so it can no longer be approved: run platform auth login again for a new one.`, { code: 'secret_attempts_exhausted' });
        }
        return resultPage(403, 'Wrong operator secret', `The operator secret is wrong (${WRONG_SECRETS_PER_CODE - wrong} tries left for this code). The control plane printed it when it started.`, { code: 'wrong_secret', link: again });
      }
      wrongSecrets.delete(hash);
      account = await accounts.grant(account.id);
    }
    const asker = askerOf(device.requester);
    if (decision === 'deny') {
      await ctx.devices.setState(hash, 'denied');
      return resultPage(200, 'Sign-in denied', `${asker === 'terminal' ? 'The terminal that asked' : askerName(asker)} will be told.`);
    }
    await ctx.devices.approve(hash, account.builderId!);
    return resultPage(200, 'Signed in', `${askerName(asker)} is now signed in as ${account.name}. You can close this page.`);
  });

  const who = signedIn(ctx);
  // Service tokens are managed by an interactive session only: a token never mints another.
  const person = interactive(ctx);

  on(app, ROUTES.whoami, who, (c) => {
    const caller = c.get('caller');
    return answer(200, { builder: { id: caller.builderId, name: caller.builderName }, credential: { kind: caller.kind } });
  });

  on(app, ROUTES.logout, who, async (c) => {
    const caller = c.get('caller');
    if (caller.kind === 'session') await ctx.builders.sessions.revoke(caller.tokenHash, ctx.now());
    if (caller.browserKey) await revokeBrowserKey(ctx, caller.browserKey);
    return answer(200, { revoked: caller.kind === 'session' });
  });

  const tokenInfo = (row: Record<string, unknown>): ServiceTokenInfo => ({
    id: String(row.id),
    name: String(row.name),
    createdAt: iso(Number(row.createdAt)),
    expiresAt: iso(Number(row.createdAt) + ctx.serviceTokenTtlMs),
    ...(row.lastUsedAt !== null && row.lastUsedAt !== undefined ? { lastUsedAt: iso(Number(row.lastUsedAt)) } : {}),
  });

  on(app, ROUTES.createToken, person, async (c) => {
    const caller = c.get('caller');
    const body = await json(c.req.raw);
    if (!body || typeof body.name !== 'string' || !TOKEN_NAME.test(body.name)) return refuse(400, 'invalid_request', 'A token needs a name of 1 to 64 letters, digits, spaces, dots, dashes or underscores.');
    const secret = token('xst');
    const id = newId('xstid');
    const now = ctx.now();
    await ctx.builders.serviceTokens.insert({ id, tokenHash: hashToken(secret), builderId: caller.builderId, name: body.name, createdAt: now });
    return answer(201, { token: tokenInfo({ id, name: body.name, createdAt: now, lastUsedAt: null }), secret });
  });

  on(app, ROUTES.listTokens, person, async (c) => {
    const caller = c.get('caller');
    const rows = await ctx.builders.serviceTokens.liveOf(caller.builderId);
    return answer(200, { tokens: rows.map(tokenInfo) });
  });

  on(app, ROUTES.revokeToken, person, async (c) => {
    const caller = c.get('caller');
    const row = await ctx.builders.serviceTokens.liveOne(c.req.param('id') ?? '', caller.builderId);
    if (!row) return refuse(404, 'token_not_found', `You have no live token ${(c.req.param('id') ?? '')}.`);
    await ctx.builders.serviceTokens.revoke(String(row.id), ctx.now());
    return answer(200, { token: tokenInfo(row) });
  });
}
