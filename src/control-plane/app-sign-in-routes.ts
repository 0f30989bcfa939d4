/**
 * Signing in to a hosted app, the control plane's half (app-auth.ts has the app origin's half):
 * `GET /sign-in-to-app?app=…&env=…&state=…` asks the person to sign in with a passkey (or to create an
 * account) and then to confirm "Sign in to <app> as <account>"; the confirmation (`POST`, from this
 * page only) issues a one-time code and redirects to the app origin's callback, a URL built from the
 * app id, never taken from the request. The account's name appears only here, on the control plane's
 * origin: no page of an app's origin, which the app's code can read, ever shows it.
 */
import type { Hono } from 'hono';
import { APP_ID, hostedOrigin, type Environment } from '../core/deploy';
import { formOf, fromOwnPage } from './account-routes';
import type { AccountSession, Accounts } from './accounts';
import type { AppAuth } from './app-auth';
import type { Context } from './context';
import type { ControlEnv } from './middleware';
import { escape, page, PAGE_HEADERS, resultPage } from './pages';

const STATE = /^[A-Za-z0-9_-]{22}$/;

interface SignInRequest {
  appId: string;
  environment: Environment;
  state: string;
  appName: string;
}

/** The sign-in a request names (query or form), or why it names none. */
async function signInRequest(ctx: Context, values: { app?: unknown; env?: unknown; state?: unknown }): Promise<SignInRequest | { code: 'invalid_request' | 'app_not_found'; text: string }> {
  const { app, env, state } = values;
  if (typeof app !== 'string' || !APP_ID.test(app) || (env !== 'preview' && env !== 'production') || typeof state !== 'string' || !STATE.test(state)) {
    return { code: 'invalid_request', text: 'This sign-in link is incomplete. Start again from the app with its Sign in button.' };
  }
  const row = await ctx.apps.apps.get(app);
  if (!row || row.state !== 'active') return { code: 'app_not_found', text: 'There is no such app here, or it is offline.' };
  return { appId: app, environment: env, state, appName: String(row.name) };
}

const query = (request: SignInRequest) => `app=${request.appId}&env=${request.environment}&state=${request.state}`;

function signInPage(ctx: Context, request: SignInRequest, session: AccountSession | undefined, rpID: string): Response {
  const appOrigin = hostedOrigin(request.appId, request.environment, ctx.publicOrigin);
  const app = escape(request.appName);
  const where = `<p class="note">The app at <code>${escape(appOrigin)}</code>${request.environment === 'preview' ? ' (its preview)' : ''} asks who you are.</p>`;
  const hidden = `<input type="hidden" name="app" value="${request.appId}"><input type="hidden" name="env" value="${request.environment}"><input type="hidden" name="state" value="${request.state}">`;
  const cancel = `<form method="post" action="/sign-in-to-app">${hidden}<button type="submit" name="decision" value="cancel" class="link">Cancel and go back to the app</button></form>`;
  // A form that redirects to the app's origin needs that origin in form-action: Chromium checks redirects too.
  const headers = { 'content-security-policy': PAGE_HEADERS['content-security-policy'].replace("form-action 'self'", `form-action 'self' ${appOrigin}`) };
  const data = { origin: ctx.publicOrigin, next: `/sign-in-to-app?${query(request)}` };
  if (!session) {
    // The register form carries the sign-in's own fields: pressed before the page's deferred script
    // has taken it over (a slow load), the browser submits it itself, to this page again, which must
    // still name the app, the environment and the state.
    const body = `<h1>Sign in to ${app}</h1>${where}
<p>Sign in with your <strong>passkey</strong> for <code>${escape(rpID)}</code>, then confirm.</p>
<div class="actions"><button type="button" data-action="sign-in">Sign in with a passkey</button></div>
<h2>New here?</h2>
<form id="register">${hidden}<label for="name">Name</label><input id="name" name="name" required pattern="[a-z][a-z0-9\\-]{1,31}" autocomplete="username webauthn" placeholder="e.g. alice" spellcheck="false">
<p class="note">Your account's name is for you and this control plane: apps never see it.</p>
<div class="actions"><button type="submit" class="secondary">Create an account with a passkey</button></div></form>
<p id="problem" class="alert" role="alert" hidden></p>
<div class="actions">${cancel}</div>`;
    return page(200, `Sign in to ${request.appName}`, body, { passkeys: true, data }, headers);
  }
  const who = escape(session.account.name);
  const body = `<h1>Sign in to ${app} as ${who}?</h1>${where}
<div class="who"><span>Signed in as <strong>${who}</strong></span><form method="post" action="/sign-in-to-app">${hidden}<button type="submit" name="decision" value="switch" class="link">Use another account</button></form></div>
<p>${app} will know you only by an id of its own: not your name, and not the id any other app knows you by.</p>
<form method="post" action="/sign-in-to-app">${hidden}<div class="actions"><button type="submit" name="decision" value="continue">Continue as ${who}</button><button type="submit" name="decision" value="cancel" class="secondary">Cancel</button></div></form>`;
  return page(200, `Sign in to ${request.appName}`, body, { data: { origin: ctx.publicOrigin } }, headers);
}

/**
 * A page reached from another site (an app's origin) carries no `SameSite=Strict` account cookie; it
 * loads itself again from this origin, which does, so a person already signed in goes straight to the
 * confirmation. Marked `again`, so it happens once.
 */
function reloadHere(request: SignInRequest): Response {
  const url = `/sign-in-to-app?${query(request)}&again=1`;
  return new Response(`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="0;url=${escape(url)}"><title>Signing in</title></head><body><p><a href="${escape(url)}">Continue</a></p></body></html>`, {
    headers: PAGE_HEADERS,
  });
}

const redirect = (location: string, headers: Record<string, string> = {}) => new Response(null, { status: 303, headers: { location, 'cache-control': 'no-store', ...headers } });

export function appSignInRoutes(app: Hono<ControlEnv>, ctx: Context, accounts: Accounts, appAuth: AppAuth): void {
  app.get('/sign-in-to-app', async (c) => {
    const request = await signInRequest(ctx, { app: c.req.query('app'), env: c.req.query('env'), state: c.req.query('state') });
    if ('code' in request) return resultPage(request.code === 'app_not_found' ? 404 : 400, 'Cannot sign in', request.text, { code: request.code });
    const session = await accounts.session(c.req.raw);
    const site = c.req.header('sec-fetch-site');
    if (!session && site !== undefined && site !== 'same-origin' && c.req.query('again') === undefined) return reloadHere(request);
    return signInPage(ctx, request, session, accounts.rpID);
  });

  app.post('/sign-in-to-app', async (c) => {
    if (!fromOwnPage(c, ctx)) return resultPage(403, 'Refused', `Sign in to apps on ${ctx.publicOrigin} only.`, { code: 'foreign_origin' });
    const form = await formOf(c);
    const request = await signInRequest(ctx, form);
    if ('code' in request) return resultPage(request.code === 'app_not_found' ? 404 : 400, 'Cannot sign in', request.text, { code: request.code });
    const target = { appId: request.appId, environment: request.environment };
    if (form.decision === 'cancel') return redirect(appAuth.cancelUrl(target, request.state));
    const session = await accounts.session(c.req.raw);
    if (form.decision === 'switch') {
      if (session) await accounts.signOut(session);
      return redirect(`/sign-in-to-app?${query(request)}`, { 'set-cookie': accounts.cookie(undefined) });
    }
    if (!session) return resultPage(401, 'Sign in first', 'Sign in with a passkey, then confirm.', { code: 'not_signed_in', link: { href: `/sign-in-to-app?${query(request)}`, text: 'Try again' } });
    return redirect(await appAuth.issueCode(session.account.id, target, request.state));
  });
}
