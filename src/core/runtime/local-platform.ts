/**
 * The platform's reserved routes of an app's origin (`/__platform/…`) in local modes, where people are
 * the three personas rather than accounts (docs/decisions.md, "Signing in and workspaces in local
 * modes"): `GET /__platform/auth/me` and `GET /__platform/workspaces` answer the persona's identity and
 * fixed workspaces, so `useAuth()` and `useWorkspaces()` show what the preview acts as; signing in or
 * out and changing workspaces are refused `local_personas` (409) with how to do it here: switch persona.
 * Hosted, the control plane serves these paths (src/control-plane/app-auth.ts).
 */
import type { PageAuth } from '../../modules/types.ts';
import { failedCall } from './outcome.ts';
import { personaWorkspaces, type Auth, type PersonaName } from './personas.ts';
import { errorResponse } from './runtime.ts';

export const LOCAL_PERSONAS_MESSAGE =
  'In the playground people are the personas alice, bob and guest, with fixed workspaces (alice: ws-team and ws-alice; bob: ws-team): switch the preview to another persona instead of signing in or out, and use their workspaces. Deployed, people sign in with passkeys and make their own.';

function json(body: unknown): Response {
  return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json', 'cache-control': 'no-store' } });
}

/** Answers a request under `/__platform/` as `persona` (whose `ctx.auth` is `auth`). */
export function localPlatformResponse(persona: PersonaName, auth: Auth, request: Request): Response {
  const path = new URL(request.url).pathname;
  const workspaces = personaWorkspaces(persona);
  if (request.method === 'GET' && path === '/__platform/auth/me') {
    const me: PageAuth = { kind: auth.kind, appUserId: auth.appUserId, workspaces };
    return json(me);
  }
  if (request.method === 'GET' && path === '/__platform/workspaces') return json({ workspaces });
  const known = /^\/__platform\/(?:auth\/(?:sign-in|sign-out|callback)|workspaces(?:\/[^/]+\/(?:invites|leave))?|join\/[^/]+)$/.test(path);
  if (known) return errorResponse(failedCall(409, 'local_personas', LOCAL_PERSONAS_MESSAGE));
  return errorResponse(failedCall(404, 'not_found', `Nothing is served at ${path}: paths under /__platform/ are the platform's.`));
}
