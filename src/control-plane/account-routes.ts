/**
 * The account routes (docs/control-plane.md, Accounts and passkeys): the /account page, its scripts, the
 * passkey ceremonies (JSON, answered `{ protocol, error: { code, message } }` when refused) and the
 * builder grant. Every POST must come from the control plane's own pages: its `Origin`, when sent, is the
 * configured public origin and its `Sec-Fetch-Site`, when sent, is `same-origin`.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Context as HonoContext, Hono } from 'hono';
import { accountPage, codeParam } from './account-page';
import { ACCOUNT_SCRIPT } from './account-script';
import type { Account, AccountSession, Accounts, Refusal } from './accounts';
import { BodyTooLargeError } from './body-limit';
import { answer, iso, jsonObject, type Context } from './context';
import type { ControlEnv } from './middleware';
import { clientAddress } from './rate-limit';

/** Whether a POST comes from a page of the control plane's own origin (never judged by Host). */
export function fromOwnPage(c: HonoContext<ControlEnv>, ctx: Context): boolean {
  const from = c.req.header('origin');
  return !(from && from !== ctx.publicOrigin) && (c.req.header('sec-fetch-site') ?? 'same-origin') === 'same-origin';
}

/** A form's fields (an unreadable form is empty; a body past its limit is answered 413). */
export async function formOf(c: HonoContext<ControlEnv>): Promise<Record<string, unknown>> {
  return c.req.parseBody().catch((error: unknown) => {
    if (error instanceof BodyTooLargeError) throw error;
    return {} as Record<string, unknown>;
  });
}

export const accountInfo = (account: Account) => ({ id: account.id, name: account.name, builder: Boolean(account.builderId) });

export function refusalAnswer(refused: Refusal, now: number): Response {
  const resetAt = refused.retryAt !== undefined ? { resetAt: iso(refused.retryAt) } : {};
  const retry: Record<string, string> = refused.retryAt !== undefined ? { 'retry-after': String(Math.max(1, Math.ceil((refused.retryAt - now) / 1000))) } : {};
  return answer(refused.status, { error: { code: refused.code, message: refused.message, ...resetAt } }, retry);
}

let webauthnBundle: string | undefined;
/** @simplewebauthn/browser's UMD bundle, read from node_modules once. */
function webauthnScript(): string {
  const main = createRequire(import.meta.url).resolve('@simplewebauthn/browser');
  return (webauthnBundle ??= readFileSync(join(dirname(main), '../dist/bundle/index.umd.min.js'), 'utf8'));
}

const script = (text: string) => new Response(text, { headers: { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' } });

export function accountRoutes(app: Hono<ControlEnv>, ctx: Context, accounts: Accounts): void {
  const foreign = () => refusalAnswer({ ok: false, status: 403, code: 'foreign_origin', message: `Accounts are managed on ${ctx.publicOrigin}/account only.` }, ctx.now());
  const notSignedIn = () => refusalAnswer({ ok: false, status: 401, code: 'not_signed_in', message: 'Sign in with a passkey first.' }, ctx.now());
  const signedIn = (account: Account, token?: string) => answer(200, { account: accountInfo(account) }, token ? { 'set-cookie': accounts.cookie(token) } : {});
  const show = async (session: AccountSession | undefined, code: string | undefined, notice?: { good: boolean; text: string; code?: string }, status = 200) =>
    accountPage(
      {
        ...(session ? { session, passkeys: await accounts.passkeys(session.account.id) } : {}),
        ...(code ? { code } : {}),
        ...(notice ? { notice } : {}),
        hasBuilder: await accounts.hasBuilder(),
        publicOrigin: ctx.publicOrigin,
        rpID: accounts.rpID,
      },
      status,
    );

  app.get('/account/assets/webauthn.js', () => script(webauthnScript()));
  app.get('/account/assets/account.js', () => script(ACCOUNT_SCRIPT));

  app.get('/account', async (c) => show(await accounts.session(c.req.raw), codeParam(c.req.query('code'))));

  app.post('/account/register/options', async (c) => {
    if (!fromOwnPage(c, ctx)) return foreign();
    const body = await jsonObject(c.req.raw);
    const result = await accounts.registrationOptions(clientAddress(c.env), { name: body?.name });
    return result.ok ? answer(200, { options: result.options }) : refusalAnswer(result, ctx.now());
  });

  app.post('/account/passkeys/options', async (c) => {
    if (!fromOwnPage(c, ctx)) return foreign();
    const session = await accounts.session(c.req.raw);
    if (!session) return notSignedIn();
    const result = await accounts.registrationOptions(clientAddress(c.env), { session });
    return result.ok ? answer(200, { options: result.options }) : refusalAnswer(result, ctx.now());
  });

  app.post('/account/register/verify', async (c) => {
    if (!fromOwnPage(c, ctx)) return foreign();
    const body = await jsonObject(c.req.raw);
    const result = await accounts.verifyRegistration(body?.response, await accounts.session(c.req.raw));
    return result.ok ? signedIn(result.account, result.token) : refusalAnswer(result, ctx.now());
  });

  app.post('/account/signin/options', async (c) => {
    if (!fromOwnPage(c, ctx)) return foreign();
    const result = await accounts.authenticationOptions(clientAddress(c.env));
    return result.ok ? answer(200, { options: result.options }) : refusalAnswer(result, ctx.now());
  });

  app.post('/account/signin/verify', async (c) => {
    if (!fromOwnPage(c, ctx)) return foreign();
    const body = await jsonObject(c.req.raw);
    const result = await accounts.verifyAuthentication(body?.response);
    return result.ok ? signedIn(result.account, result.token) : refusalAnswer(result, ctx.now());
  });

  // Which account a signed-in browser is (the account page and tests read it).
  app.get('/account/session', async (c) => {
    const session = await accounts.session(c.req.raw);
    return session ? answer(200, { account: accountInfo(session.account) }) : notSignedIn();
  });

  app.post('/account/builder', async (c) => {
    const form = await formOf(c);
    const code = codeParam(form.code);
    if (!fromOwnPage(c, ctx)) return show(undefined, code, { good: false, text: `Accounts are managed on ${ctx.publicOrigin}/account only.`, code: 'foreign_origin' }, 403);
    const session = await accounts.session(c.req.raw);
    if (!session) return show(undefined, code, { good: false, text: 'Sign in with a passkey first.', code: 'not_signed_in' }, 401);
    if (session.account.builderId) return show(session, code, { good: true, text: `${session.account.name} is already a builder.` });
    const result = await accounts.grantWithSecret(session, String(form.secret ?? ''));
    if (!result.ok) return show(result.code === 'secret_attempts_exhausted' ? undefined : session, code, { good: false, text: result.message, code: result.code }, result.status);
    return show({ ...session, account: result.account }, code, { good: true, text: `${result.account.name} is now a builder.` });
  });

  app.post('/account/signout', async (c) => {
    const form = await formOf(c);
    if (!fromOwnPage(c, ctx)) return show(undefined, undefined, { good: false, text: `Accounts are managed on ${ctx.publicOrigin}/account only.`, code: 'foreign_origin' }, 403);
    const session = await accounts.session(c.req.raw);
    if (session) await accounts.signOut(session);
    const code = codeParam(form.code);
    const back = form.from === 'device' ? '/device' : '/account';
    return new Response(null, { status: 303, headers: { location: code ? `${back}?code=${code}` : back, 'set-cookie': accounts.cookie(undefined), 'cache-control': 'no-store' } });
  });
}
