/**
 * People signed in to hosted apps, and their workspaces (docs/control-plane.md, "Signing in to hosted
 * apps"). Passkeys cannot be used on an app's `*.localhost` origin, so a person signs in on the control
 * plane's origin, OAuth-style:
 *
 * 1. `GET /__platform/auth/sign-in?return=/path` on the app origin remembers a random `state` and the
 *    return path in a short-lived signed cookie of that origin and redirects to the control plane's
 *    `/sign-in-to-app?app=…&env=…&state=…` (app-sign-in-routes.ts).
 * 2. There the person signs in with a passkey (or is signed in already) and confirms; the control plane
 *    issues a one-time code (60 s, single use, bound to the app, the environment, the account and the
 *    state) and redirects to the app origin's `/__platform/auth/callback?code=…&state=…`, a URL it
 *    builds from the app id itself, never from a parameter.
 * 3. The callback checks the state against its cookie (the browser that started is the one that
 *    finishes), spends the code and sets the app session cookie: HttpOnly, SameSite=Lax, host-only, a
 *    random token of which the records keep only the SHA-256, with an expiry.
 *
 * On every hosted request `user()` turns a live app session into `ctx.auth`: `kind: 'user'`, an
 * `appUserId` that is an HMAC of the account and the app (pairwise: two apps never see the same id
 * for one person, and none sees the account), the session's id and the workspaces of the app
 * environment the person belongs to. The app never receives a name, an email or an account id, and
 * its own code never sees the cookie (hosting.ts passes no cookies to the engine).
 *
 * Workspaces belong to one app environment (like its data). Every POST of these routes must come from
 * a page of the app's own origin (`Origin` equal to it, `Sec-Fetch-Site` same-origin when sent): the
 * app's pages act for their signed-in person, as its mutations do; other origins cannot.
 */
import { randomBytes } from 'node:crypto';
import { hostedOrigin } from '../core/deploy';
import { failedCall, type Auth, errorResponse } from '../core/runtime';
import type { PageAuth, WorkspaceInfo } from '../modules/types';
import { appUserRecords, type AppUserRecords } from './app-user-records';
import { BodyTooLargeError, readLimited } from './body-limit';
import { newId, type Context } from './context';
import type { AppAuthHook, GuestVisitor, HostedTarget } from './hosting/hosting';

export type { GuestVisitor };
import { escape } from './pages';
import { hashToken, hmac, sameSecret } from './secrets';

/** The app session cookie: `__platform_session=xap_…`, host-only on the app's origin. */
export const APP_SESSION_COOKIE = '__platform_session';
/** The cookie that carries a sign-in's state and return path from its start to its callback. */
export const SIGN_IN_COOKIE = '__platform_sign_in';
/** How long a sign-in may take from its start on the app origin to its callback. */
export const SIGN_IN_TTL_MS = 10 * 60_000;
/** How long a one-time code handed back to an app origin may be redeemed. */
export const CODE_TTL_MS = 60_000;
/** How long an app session lives from the sign-in (not extended by use). */
export const APP_SESSION_TTL_MS = 7 * 86_400_000;
/** How long an invitation link can be used (once). */
export const INVITE_TTL_MS = 7 * 86_400_000;
/** Workspaces one person may belong to in one app environment (they travel in every request's identity). */
export const MAX_WORKSPACES = 100;
/** Workspaces one person may create in one app environment in any 24 hours (leaving does not give them back). */
export const WORKSPACES_PER_DAY = 100;
/** Unused, unexpired invitations one workspace may have at once. */
export const MAX_OPEN_INVITES = 50;
/** A workspace's name: 1 to 80 characters, no control characters. */
export const MAX_WORKSPACE_NAME = 80;
/** The largest JSON body of a reserved POST. */
const MAX_BODY_BYTES = 16 * 1024;

const CODE = /^xac_[A-Za-z0-9_-]{43}$/;
const SESSION = /^xap_[A-Za-z0-9_-]{43}$/;
const INVITE = /^xwi_[A-Za-z0-9_-]{43}$/;
const STATE = /^[A-Za-z0-9_-]{22}$/;
const WORKSPACE_ID = /^ws_[a-z2-7]{26}$/;

const token = (prefix: string) => `${prefix}_${randomBytes(32).toString('base64url')}`;

/** The stable codes of every refusal of the reserved routes (runtime error body `error.code`, or a page's `data-code`). */
export type AppAuthErrorCode =
  | 'not_found'
  | 'invalid_request'
  | 'foreign_origin'
  | 'not_signed_in'
  | 'state_mismatch'
  | 'code_unknown'
  | 'code_used'
  | 'code_expired'
  | 'workspace_not_found'
  | 'workspace_limit'
  | 'rate_limited'
  | 'invite_limit'
  | 'invite_unknown'
  | 'invite_used'
  | 'invite_expired'
  | 'invite_revoked';

/** A guest visitor of the app, as hosting.ts makes it from its signed cookie (and the cookie to set for a new one). */
/** A cookie's value in a request's Cookie header. */
export function cookieValue(request: Request, name: string): string | undefined {
  for (const part of (request.headers.get('cookie') ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

/**
 * Where a sign-in returns to: a path of the app's own origin, or `/`. Anything that could leave the
 * origin (`//host`, `/\\host`, a scheme, control characters, backslashes) or loop back into signing
 * in is replaced by `/`: there is no open redirect. Dot segments are resolved and repeated slashes
 * collapsed before the checks, so what comes back always starts with exactly one `/` (`/.//evil` is
 * `/evil`, a path here); the checks then apply to the very string returned.
 */
export function safeReturnPath(value: unknown): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 2048) return '/';
  // eslint-disable-next-line no-control-regex
  if (!value.startsWith('/') || /[\\\u0000-\u001f\u007f]/.test(value)) return '/';
  const base = 'http://return.invalid';
  try {
    const url = new URL(value, base);
    if (url.origin !== base) return '/';
    const path = url.pathname.replace(/\/{2,}/g, '/');
    // The sign-in routes, however spelled (an app's router may decode `%5F` or `%2F`), never return into themselves.
    if (new URL(decodeURIComponent(path).replace(/[\\/]+/g, '/'), base).pathname.startsWith('/__platform/auth/')) return '/';
    const result = `${path}${url.search}${url.hash}`;
    // What the browser will resolve is checked once more: one leading slash, and it stays on the origin.
    // eslint-disable-next-line no-control-regex
    if (!/^\/(?![/\\])/.test(result) || /[\\\u0000-\u0020\u007f]/.test(result) || new URL(result, base).origin !== base) return '/';
    return result;
  } catch {
    // Not a URL, or a path whose escapes do not decode (`/%E0%A4%A`).
    return '/';
  }
}

/**
 * The `appUserId` of an account in an app: `user:` and 32 hex digits of an HMAC of both under the
 * control plane's cookie key. Pairwise: another app gets another id for the same person, and nobody
 * can tell from it who the person is or that two apps share them. Preview and production of one app
 * share it (one app, one user); their data and workspaces stay separate.
 */
export function appUserIdOf(key: Buffer, accountId: string, appId: string): string {
  return `user:${Buffer.from(hmac(key, `app-user\u0000${appId}\u0000${accountId}`), 'base64url').toString('hex').slice(0, 32)}`;
}

function frozenAuth(appUserId: string, kind: 'user' | 'guest', workspaceIds: string[], sessionId: string): Auth {
  return Object.freeze({ appUserId, kind, roles: Object.freeze([]), permissions: Object.freeze([]), workspaceIds: Object.freeze([...workspaceIds]), sessionId, id: appUserId }) as unknown as Auth;
}

const PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/** A small page of the platform on an app's origin (no script; it never names the person: the app's code could read it). */
export function appOriginPage(status: number, title: string, body: string, code?: string, headers: Headers = new Headers()): Response {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escape(title)}</title>
<style>body{margin:0;background:#f3f5f9;color:#1d2330;font:16px/1.5 system-ui,sans-serif}main{max-width:32rem;margin:3rem auto;padding:1.5rem 1.75rem;background:#fff;border:1px solid #d9dee7;border-radius:12px}h1{font-size:1.3rem;margin:0 0 .6rem}button,.button{font:inherit;font-weight:600;padding:.5rem 1rem;border-radius:8px;border:1px solid #2457d6;background:#2457d6;color:#fff;cursor:pointer;text-decoration:none;display:inline-block}a{color:#2457d6}.button+a,button+a{margin-left:.75rem}.note{color:#5b6475;font-size:.875rem}.refusal{color:#5b6475;font-size:.8rem}</style></head>
<body><main${code ? ` data-code="${escape(code)}"` : ''}>${body}${code ? `<p class="refusal">Refused: <code>${escape(code)}</code></p>` : ''}</main></body></html>`;
  headers.set('content-type', 'text/html; charset=utf-8');
  headers.set('cache-control', 'no-store');
  headers.set('content-security-policy', PAGE_CSP);
  headers.set('x-frame-options', 'DENY');
  headers.set('referrer-policy', 'same-origin');
  return new Response(html, { status, headers });
}

function json(status: number, body: unknown, headers: Headers = new Headers()): Response {
  headers.set('content-type', 'application/json');
  headers.set('cache-control', 'no-store');
  return new Response(JSON.stringify(body), { status, headers });
}

function refuse(status: number, code: AppAuthErrorCode, message: string): Response {
  const response = errorResponse(failedCall(status, code, message));
  response.headers.set('cache-control', 'no-store');
  return response;
}

type Signed = { accountId: string; sessionId: string; tokenHash: string };

export class AppAuth implements AppAuthHook {
  readonly #ctx: Context;
  /** App sign-in codes, app sessions, workspaces, their members and invitations (app-user-records.ts), over `ctx.records`. */
  readonly #appUsers: AppUserRecords;

  constructor(ctx: Context) {
    this.#ctx = ctx;
    this.#appUsers = appUserRecords(ctx.records);
  }

  /** The app environment's own origin (from the configured public origin, never from Host). */
  origin(target: HostedTarget): string {
    return hostedOrigin(target.appId, target.environment, this.#ctx.publicOrigin);
  }

  #secure(): string {
    return new URL(this.#ctx.publicOrigin).protocol === 'https:' ? '; Secure' : '';
  }

  /** The live app session a request's cookie names for this app environment. */
  async #signed(request: Request, target: HostedTarget): Promise<Signed | undefined> {
    const value = cookieValue(request, APP_SESSION_COOKIE);
    if (!value || !SESSION.test(value)) return undefined;
    const tokenHash = hashToken(value);
    const row = await this.#appUsers.sessions.live(tokenHash, target.appId, target.environment, this.#ctx.now());
    return row ? { accountId: String(row.accountId), sessionId: String(row.id), tokenHash } : undefined;
  }

  #workspaceIds(accountId: string, target: HostedTarget): Promise<string[]> {
    return this.#appUsers.workspaces.idsOfMember(accountId, target.appId, target.environment);
  }

  /** The workspaces a person belongs to in an app environment, as their page sees them. */
  async workspaces(accountId: string, target: HostedTarget): Promise<WorkspaceInfo[]> {
    return (await this.#appUsers.workspaces.ofMember(accountId, target.appId, target.environment)).map((row) => ({ id: String(row.id), name: String(row.name), members: Number(row.members) }));
  }

  async user(request: Request, target: HostedTarget): Promise<Auth | undefined> {
    const signed = await this.#signed(request, target);
    if (!signed) return undefined;
    return frozenAuth(appUserIdOf(this.#ctx.secrets.cookieKey, signed.accountId, target.appId), 'user', await this.#workspaceIds(signed.accountId, target), signed.sessionId);
  }

  // --- The control plane's side: a code for a confirmed sign-in ------------------------------------

  /** Issues the one-time code a confirmed sign-in hands back to the app origin, and the URL that carries it. */
  async issueCode(accountId: string, target: HostedTarget, state: string): Promise<string> {
    const { records } = this.#ctx;
    const now = this.#ctx.now();
    const code = token('xac');
    await records.transaction(async () => {
      await this.#appUsers.signInCodes.removeExpired(now - CODE_TTL_MS);
      await this.#appUsers.signInCodes.insert({ codeHash: hashToken(code), accountId, appId: target.appId, environment: target.environment, stateHash: hashToken(state), createdAt: now, expiresAt: now + CODE_TTL_MS });
    });
    return `${this.origin(target)}/__platform/auth/callback?code=${code}&state=${state}`;
  }

  /** Where a cancelled sign-in goes back to (the app's callback, which returns to where the person was). */
  cancelUrl(target: HostedTarget, state: string): string {
    return `${this.origin(target)}/__platform/auth/callback?error=cancelled&state=${state}`;
  }

  // --- The app origin's side --------------------------------------------------------------------

  async serve(request: Request, target: HostedTarget, guest: () => GuestVisitor): Promise<Response> {
    const url = new URL(request.url);
    const path = url.pathname;
    const method = request.method;
    const post = method === 'POST';
    if (post && !this.#sameOrigin(request, target)) return refuse(403, 'foreign_origin', `Only pages of ${this.origin(target)} may do this.`);
    if (path === '/__platform/auth/sign-in') return method === 'GET' ? this.#startSignIn(url, target) : wrongMethod(path, 'GET');
    if (path === '/__platform/auth/callback') return method === 'GET' ? this.#callback(request, url, target) : wrongMethod(path, 'GET');
    if (path === '/__platform/auth/sign-out') return post ? this.#signOut(request, target) : wrongMethod(path, 'POST');
    if (path === '/__platform/auth/me') return method === 'GET' ? this.#me(request, target, guest) : wrongMethod(path, 'GET');
    if (path === '/__platform/workspaces') {
      if (method === 'GET') return this.#whenSignedIn(request, target, async (signed) => json(200, { workspaces: await this.workspaces(signed.accountId, target) }));
      return post ? this.#whenSignedIn(request, target, (signed) => this.#create(request, target, signed)) : wrongMethod(path, 'GET, POST');
    }
    const action = /^\/__platform\/workspaces\/([^/]+)\/(invites|leave)$/.exec(path);
    if (action) {
      if (!post) return wrongMethod(path, 'POST');
      const workspaceId = action[1]!;
      return this.#whenSignedIn(request, target, (signed) => (action[2] === 'invites' ? this.#invite(target, signed, workspaceId) : this.#leave(target, signed, workspaceId)));
    }
    const join = /^\/__platform\/join\/([^/]+)$/.exec(path);
    if (join) {
      if (method === 'GET') return this.#joinPage(request, target, join[1]!);
      return post ? this.#join(request, target, join[1]!) : wrongMethod(path, 'GET, POST');
    }
    return refuse(404, 'not_found', `Nothing is served at ${path}: paths under /__platform/ are the platform's.`);
  }

  /** A POST from a page of the app's own origin: `Origin` is that origin and `Sec-Fetch-Site`, when sent, same-origin. */
  #sameOrigin(request: Request, target: HostedTarget): boolean {
    const origin = request.headers.get('origin');
    const site = request.headers.get('sec-fetch-site');
    return origin === this.origin(target) && (site === null || site === 'same-origin');
  }

  async #whenSignedIn(request: Request, target: HostedTarget, work: (signed: Signed) => Response | Promise<Response>): Promise<Response> {
    const signed = await this.#signed(request, target);
    if (!signed) return refuse(401, 'not_signed_in', 'Sign in first: workspaces belong to signed-in people.');
    return work(signed);
  }

  // Sign-in --------------------------------------------------------------------------------------

  #stateSignature(target: HostedTarget, state: string, returnPath: string, expiresAt: number): string {
    return hmac(this.#ctx.secrets.cookieKey, `sign-in\u0000${target.appId}\u0000${target.environment}\u0000${state}\u0000${returnPath}\u0000${expiresAt}`);
  }

  #startSignIn(url: URL, target: HostedTarget): Response {
    const state = randomBytes(16).toString('base64url');
    const returnPath = safeReturnPath(url.searchParams.get('return'));
    const expiresAt = this.#ctx.now() + SIGN_IN_TTL_MS;
    const value = `${state}.${Buffer.from(returnPath).toString('base64url')}.${expiresAt}.${this.#stateSignature(target, state, returnPath, expiresAt)}`;
    const headers = new Headers({ 'cache-control': 'no-store' });
    headers.set('location', `${this.#ctx.publicOrigin}/sign-in-to-app?app=${target.appId}&env=${target.environment}&state=${state}`);
    headers.append('set-cookie', `${SIGN_IN_COOKIE}=${value}; Path=/__platform/auth/; HttpOnly; SameSite=Lax; Max-Age=${SIGN_IN_TTL_MS / 1000}${this.#secure()}`);
    return new Response(null, { status: 303, headers });
  }

  /** The state and return path this browser's sign-in cookie carries, when its signature holds and it has not expired. */
  #pending(request: Request, target: HostedTarget): { state: string; returnPath: string } | undefined {
    const parts = (cookieValue(request, SIGN_IN_COOKIE) ?? '').split('.');
    if (parts.length !== 4) return undefined;
    const [state, encoded, expires, signature] = parts as [string, string, string, string];
    const expiresAt = Number(expires);
    if (!STATE.test(state) || !Number.isSafeInteger(expiresAt) || expiresAt < this.#ctx.now()) return undefined;
    const returnPath = Buffer.from(encoded, 'base64url').toString('utf8');
    if (!sameSecret(signature, this.#stateSignature(target, state, returnPath, expiresAt))) return undefined;
    return { state, returnPath: safeReturnPath(returnPath) };
  }

  #callbackRefusal(status: number, code: AppAuthErrorCode, title: string, text: string, returnPath: string, headers: Headers): Response {
    const again = `/__platform/auth/sign-in?return=${encodeURIComponent(returnPath)}`;
    return appOriginPage(status, title, `<h1>${escape(title)}</h1><p>${escape(text)}</p><p><a class="button" href="${escape(again)}">Sign in again</a> <a href="${escape(returnPath)}">Back to the app</a></p>`, code, headers);
  }

  async #callback(request: Request, url: URL, target: HostedTarget): Promise<Response> {
    const pending = this.#pending(request, target);
    const headers = new Headers({ 'cache-control': 'no-store' });
    // The sign-in cookie has done its work, whatever happens next.
    headers.append('set-cookie', `${SIGN_IN_COOKIE}=; Path=/__platform/auth/; HttpOnly; SameSite=Lax; Max-Age=0${this.#secure()}`);
    const returnPath = pending?.returnPath ?? '/';
    const state = url.searchParams.get('state') ?? '';
    if (!pending || !sameSecret(state, pending.state)) {
      return this.#callbackRefusal(400, 'state_mismatch', 'Sign-in not finished', 'This sign-in was not started in this browser, or it took longer than 10 minutes.', returnPath, headers);
    }
    if (url.searchParams.get('error') === 'cancelled') {
      headers.set('location', returnPath);
      return new Response(null, { status: 303, headers });
    }
    const code = url.searchParams.get('code') ?? '';
    const { records } = this.#ctx;
    // The code is read and used in one transaction: presented twice at once, it makes one session, and the second use ends it.
    return records.transaction(async () => {
      const row = CODE.test(code) ? await this.#appUsers.signInCodes.get(hashToken(code)) : undefined;
      // A code of another app or environment is, here, a code that does not exist.
      if (!row || row.appId !== target.appId || row.environment !== target.environment) {
        return this.#callbackRefusal(400, 'code_unknown', 'Sign-in not finished', 'The sign-in code is not one the platform gave for this app.', returnPath, headers);
      }
      const now = this.#ctx.now();
      if (row.usedAt !== null && row.usedAt !== undefined) {
        // A code presented twice was seen by someone else: the session it made is ended too.
        if (row.sessionHash) await this.#appUsers.sessions.revokeIfLive(String(row.sessionHash), now);
        return this.#callbackRefusal(400, 'code_used', 'Sign-in not finished', 'This sign-in code was already used; the sign-in it made has been ended.', returnPath, headers);
      }
      if (now > Number(row.expiresAt)) return this.#callbackRefusal(400, 'code_expired', 'Sign-in not finished', 'The sign-in code expired (codes last a minute).', returnPath, headers);
      if (!sameSecret(hashToken(state), String(row.stateHash))) {
        return this.#callbackRefusal(400, 'state_mismatch', 'Sign-in not finished', 'The sign-in code was given to another sign-in than the one this browser started.', returnPath, headers);
      }
      const session = token('xap');
      const sessionHash = hashToken(session);
      await this.#appUsers.sessions.removeExpired(now);
      await this.#appUsers.signInCodes.markUsed(String(row.codeHash), now, sessionHash);
      await this.#appUsers.sessions.insert({ tokenHash: sessionHash, id: newId('aps'), accountId: String(row.accountId), appId: target.appId, environment: target.environment, createdAt: now, expiresAt: now + APP_SESSION_TTL_MS });
      headers.append('set-cookie', `${APP_SESSION_COOKIE}=${session}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${APP_SESSION_TTL_MS / 1000}${this.#secure()}`);
      headers.set('location', returnPath);
      return new Response(null, { status: 303, headers });
    });
  }

  async #signOut(request: Request, target: HostedTarget): Promise<Response> {
    const signed = await this.#signed(request, target);
    if (signed) await this.#appUsers.sessions.revoke(signed.tokenHash, this.#ctx.now());
    const headers = new Headers();
    headers.append('set-cookie', `${APP_SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0${this.#secure()}`);
    return json(200, { signedOut: Boolean(signed) }, headers);
  }

  async #me(request: Request, target: HostedTarget, guest: () => GuestVisitor): Promise<Response> {
    const signed = await this.#signed(request, target);
    const headers = new Headers();
    if (signed) {
      const me: PageAuth = { kind: 'user', appUserId: appUserIdOf(this.#ctx.secrets.cookieKey, signed.accountId, target.appId), workspaces: await this.workspaces(signed.accountId, target) };
      return json(200, me, headers);
    }
    // A session cookie that no longer signs anyone in is cleared.
    if (cookieValue(request, APP_SESSION_COOKIE) !== undefined) headers.append('set-cookie', `${APP_SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0${this.#secure()}`);
    const visitor = guest();
    if (visitor.setCookie) headers.append('set-cookie', visitor.setCookie);
    const me: PageAuth = { kind: 'guest', appUserId: visitor.auth.appUserId, workspaces: [] };
    return json(200, me, headers);
  }

  // Workspaces ------------------------------------------------------------------------------------

  async #body(request: Request): Promise<Record<string, unknown> | Response> {
    let bytes: Uint8Array;
    try {
      bytes = await readLimited(request, MAX_BODY_BYTES);
    } catch (error) {
      if (error instanceof BodyTooLargeError) return refuse(413, 'invalid_request', `The body is larger than ${MAX_BODY_BYTES} bytes.`);
      throw error;
    }
    try {
      const value = JSON.parse(new TextDecoder().decode(bytes)) as unknown;
      if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
    } catch {
      // answered below
    }
    return refuse(400, 'invalid_request', 'Send a JSON object.');
  }

  #memberships(accountId: string, target: HostedTarget): Promise<number> {
    return this.#appUsers.workspaces.countOfMember(accountId, target.appId, target.environment);
  }

  /** The workspace `id` of this app environment when the person is a member; else undefined (not theirs and absent look the same). */
  async #membership(accountId: string, target: HostedTarget, id: string): Promise<WorkspaceInfo | undefined> {
    if (!WORKSPACE_ID.test(id)) return undefined;
    return (await this.workspaces(accountId, target)).find((workspace) => workspace.id === id);
  }

  async #create(request: Request, target: HostedTarget, signed: Signed): Promise<Response> {
    const body = await this.#body(request);
    if (body instanceof Response) return body;
    const name = typeof body.name === 'string' ? body.name.trim() : '';
    if (!name || [...name].length > MAX_WORKSPACE_NAME || /[\u0000-\u001f\u007f]/.test(name)) {
      return refuse(400, 'invalid_request', `A workspace needs a name of 1 to ${MAX_WORKSPACE_NAME} characters: send {"name": "…"}.`);
    }
    const { records } = this.#ctx;
    // The limits are counted and the workspace recorded in one transaction: racing requests cannot pass a limit together.
    return records.transaction(async () => {
      if ((await this.#memberships(signed.accountId, target)) >= MAX_WORKSPACES) return refuse(409, 'workspace_limit', `One person may belong to at most ${MAX_WORKSPACES} workspaces of an app; leave one first.`);
      const now = this.#ctx.now();
      // Leaving frees a membership, not the records a workspace takes: creating is bounded per day too.
      const recent = await this.#appUsers.workspaces.countCreatedSince(signed.accountId, target.appId, target.environment, now - 86_400_000);
      if (recent >= WORKSPACES_PER_DAY) return refuse(429, 'rate_limited', `One person may create at most ${WORKSPACES_PER_DAY} workspaces of an app in a day; try again tomorrow.`);
      const id = newId('ws');
      await this.#appUsers.workspaces.insert({ id, appId: target.appId, environment: target.environment, name, createdBy: signed.accountId, createdAt: now });
      await this.#appUsers.members.add(id, signed.accountId, now);
      const workspace: WorkspaceInfo = { id, name, members: 1 };
      return json(201, { workspace });
    });
  }

  async #invite(target: HostedTarget, signed: Signed, workspaceId: string): Promise<Response> {
    const { records } = this.#ctx;
    return records.transaction(async () => {
      if (!(await this.#membership(signed.accountId, target, workspaceId))) return refuse(404, 'workspace_not_found', 'You are not a member of that workspace (or it does not exist).');
      const now = this.#ctx.now();
      const open = await this.#appUsers.invites.countOpen(workspaceId, now);
      if (open >= MAX_OPEN_INVITES) return refuse(429, 'invite_limit', `A workspace may have at most ${MAX_OPEN_INVITES} unused invitations at once; wait for some to be used or to expire.`);
      const invite = token('xwi');
      await this.#appUsers.invites.removeExpired(workspaceId, now - INVITE_TTL_MS);
      await this.#appUsers.invites.insert({ tokenHash: hashToken(invite), workspaceId, invitedBy: signed.accountId, createdAt: now, expiresAt: now + INVITE_TTL_MS });
      return json(201, { invite: { url: `${this.origin(target)}/__platform/join/${invite}`, token: invite, expiresAt: new Date(now + INVITE_TTL_MS).toISOString() } });
    });
  }

  async #leave(target: HostedTarget, signed: Signed, workspaceId: string): Promise<Response> {
    if (!(await this.#membership(signed.accountId, target, workspaceId))) return refuse(404, 'workspace_not_found', 'You are not a member of that workspace (or it does not exist).');
    const { records } = this.#ctx;
    const now = this.#ctx.now();
    await records.transaction(async () => {
      await this.#appUsers.members.remove(workspaceId, signed.accountId);
      // Invitations of someone who left are withdrawn with them.
      await this.#appUsers.invites.withdrawBy(workspaceId, signed.accountId, now);
    });
    return json(200, { left: workspaceId });
  }

  /** The workspace an invitation opens, or why it does not. */
  async #invitation(target: HostedTarget, value: string): Promise<{ workspace: { id: string; name: string }; tokenHash: string } | { status: number; code: AppAuthErrorCode; message: string }> {
    const row = INVITE.test(value) ? (await this.#appUsers.invites.withWorkspace(hashToken(value))) : undefined;
    if (!row || row.appId !== target.appId || row.environment !== target.environment) return { status: 404, code: 'invite_unknown', message: 'This invitation link is not one of this app.' };
    if (row.usedAt !== null && row.usedAt !== undefined) return { status: 410, code: 'invite_used', message: 'This invitation link was already used: each link lets one person join. Ask for a new one.' };
    if (this.#ctx.now() >= Number(row.expiresAt)) return { status: 410, code: 'invite_expired', message: 'This invitation link expired (or its sender left the workspace). Ask for a new one.' };
    if (!(await this.#appUsers.members.isMember(String(row.workspaceId), String(row.invitedBy)))) {
      return { status: 410, code: 'invite_revoked', message: 'Whoever sent this invitation is no longer in the workspace. Ask for a new one.' };
    }
    return { workspace: { id: String(row.workspaceId), name: String(row.name) }, tokenHash: String(row.tokenHash) };
  }

  async #joinPage(request: Request, target: HostedTarget, value: string): Promise<Response> {
    const invitation = await this.#invitation(target, value);
    if ('code' in invitation) return appOriginPage(invitation.status, 'Invitation not usable', `<h1>Invitation not usable</h1><p>${escape(invitation.message)}</p><p><a href="/">Go to the app</a></p>`, invitation.code);
    const name = escape(invitation.workspace.name);
    const signed = await this.#signed(request, target);
    if (!signed) {
      const signIn = `/__platform/auth/sign-in?return=${encodeURIComponent(`/__platform/join/${value}`)}`;
      return appOriginPage(200, `Join ${invitation.workspace.name}`, `<h1>Join the workspace “${name}”</h1><p>You were invited to a workspace of this app. Sign in first; you will come back here to join.</p><p><a class="button" href="${escape(signIn)}">Sign in to join</a></p>`);
    }
    if (await this.#membership(signed.accountId, target, invitation.workspace.id)) {
      return appOriginPage(200, `Join ${invitation.workspace.name}`, `<h1>You are in “${name}”</h1><p>You are a member of this workspace already.</p><p><a class="button" href="/">Go to the app</a></p>`);
    }
    return appOriginPage(
      200,
      `Join ${invitation.workspace.name}`,
      `<h1>Join the workspace “${name}”</h1><p>Its members will share what the app keeps in it with you. The app knows you only by an id of its own.</p><form method="post" action="/__platform/join/${escape(value)}"><button type="submit">Join “${name}”</button> <a href="/">Not now</a></form>`,
    );
  }

  async #join(request: Request, target: HostedTarget, value: string): Promise<Response> {
    // A form of the join page is answered with a redirect into the app; a script's request with JSON.
    const form = (request.headers.get('content-type') ?? '').startsWith('application/x-www-form-urlencoded');
    const signed = await this.#signed(request, target);
    const refused = (status: number, code: AppAuthErrorCode, message: string) => (form ? appOriginPage(status, 'Could not join', `<h1>Could not join</h1><p>${escape(message)}</p><p><a href="/">Go to the app</a></p>`, code) : refuse(status, code, message));
    if (!signed) return refused(401, 'not_signed_in', 'Sign in first, then open the invitation again.');
    const { records } = this.#ctx;
    // The invitation is checked and used in one transaction: a link two people open at once lets one of them in.
    return records.transaction(async () => {
      const invitation = await this.#invitation(target, value);
      if ('code' in invitation) return refused(invitation.status, invitation.code, invitation.message);
      const { workspace } = invitation;
      // Already a member: nothing to do, and the link stays usable for someone else.
      if (!(await this.#membership(signed.accountId, target, workspace.id))) {
        if ((await this.#memberships(signed.accountId, target)) >= MAX_WORKSPACES) return refused(409, 'workspace_limit', `One person may belong to at most ${MAX_WORKSPACES} workspaces of an app; leave one first.`);
        const now = this.#ctx.now();
        await this.#appUsers.invites.markUsed(invitation.tokenHash, now, signed.accountId);
        await this.#appUsers.members.add(workspace.id, signed.accountId, now);
      }
      if (form) return new Response(null, { status: 303, headers: { location: '/', 'cache-control': 'no-store' } });
      return json(200, { workspace: await this.#membership(signed.accountId, target, workspace.id) });
    });
  }
}

function wrongMethod(path: string, allow: string): Response {
  const response = refuse(405, 'not_found', `${path} accepts ${allow} only.`);
  response.headers.set('allow', allow);
  return response;
}

