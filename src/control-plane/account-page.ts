/**
 * The account page (/account): create an account with a passkey, sign in with one, become a builder
 * with the operator secret, add another passkey, sign out. The ceremonies run in the page's script
 * (account-script.ts); the rest are plain forms.
 */
import type { AccountSession, PasskeyInfo } from './accounts';
import { escape, page } from './pages';

export interface AccountPageState {
  session?: AccountSession;
  passkeys?: PasskeyInfo[];
  /** A device code the person came from (/device?code=…), to go back to. */
  code?: string;
  /** What the last form did: good news, or a refusal with its stable code. */
  notice?: { good: boolean; text: string; code?: string };
  /** Whether any account is a builder yet. */
  hasBuilder: boolean;
  publicOrigin: string;
  rpID: string;
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** A device code as it may appear in a link back (letters and a dash only). */
export const codeParam = (value: unknown) => (typeof value === 'string' && /^[A-Za-z]{4}-?[A-Za-z]{4}$/.test(value.trim()) ? value.trim().toUpperCase() : undefined);

export function accountPage(state: AccountPageState, status = 200): Response {
  const { session, code } = state;
  const back = code ? `<p class="alert info">Signing in a terminal? <a href="/device?code=${encodeURIComponent(code)}">Go back to approve ${escape(code)}</a> once you are a builder.</p>` : '';
  const notice = state.notice ? `<p class="alert${state.notice.good ? ' good' : ''}" role="${state.notice.good ? 'status' : 'alert'}">${escape(state.notice.text)}</p>` : '';
  const problem = '<p id="problem" class="alert" role="alert" hidden></p>';
  const codeInput = code ? `<input type="hidden" name="code" value="${escape(code)}">` : '';
  const data: Record<string, string> = { origin: state.publicOrigin, next: code ? `/account?code=${code}` : '/account', ...(state.notice?.code ? { code: state.notice.code } : {}) };
  if (!session) {
    const body = `<h1>Your account</h1>
<p>People sign in to this control plane with a <strong>passkey</strong>: kept by your device or password manager, for <code>${escape(state.rpID)}</code>. Nothing to remember, nothing to type.</p>
${notice}${back}
<h2>Create an account</h2>
<form id="register">${codeInput}<label for="name">Name</label><input id="name" name="name" required pattern="[a-z][a-z0-9\\-]{1,31}" autocomplete="username webauthn" placeholder="e.g. alice" spellcheck="false">
<p class="note">2 to 32 lowercase letters, digits or dashes, starting with a letter. It becomes your builder name.</p>
<div class="actions"><button type="submit">Create account with a passkey</button></div></form>
<h2>Already have one?</h2>
<div class="actions"><button type="button" class="secondary" data-action="sign-in">Sign in with a passkey</button></div>
${problem}`;
    return page(status, 'Your account', body, { passkeys: true, data });
  }
  const { account } = session;
  const builder = account.builderId
    ? `<p>You are a <strong>builder</strong> since ${day(account.builderSince ?? 0)}: you can approve <code>platform auth login</code> on <a href="/device">the approval page</a>.</p>`
    : `<p>You are not a builder yet. Builder status is granted once per account with the <strong>operator secret</strong>, which the control plane prints when it starts and keeps in <code>secrets.json</code> in its data directory.${state.hasBuilder ? '' : ' Nobody is a builder here yet: the first builder is made this way too.'}</p>
<form method="post" action="/account/builder">${codeInput}<label for="secret">Operator secret</label><input id="secret" name="secret" type="password" required autocomplete="off">
<div class="actions"><button type="submit">Become a builder</button></div></form>`;
  const rows = (state.passkeys ?? [])
    .map((p) => `<tr><td><code>${escape(p.credentialId.slice(0, 10))}…</code></td><td>${day(p.createdAt)}</td><td>${p.lastUsedAt ? day(p.lastUsedAt) : '—'}</td><td>${escape([p.deviceType === 'multiDevice' ? 'synced' : 'this device', ...p.transports].join(', '))}</td></tr>`)
    .join('');
  const body = `<h1>${escape(account.name)}${account.builderId ? '<span class="badge">builder</span>' : '<span class="badge plain">not a builder</span>'}</h1>
${notice}${back}
<div class="who"><span>Signed in with a passkey.</span><form method="post" action="/account/signout">${codeInput}<button type="submit" class="link">Sign out</button></form></div>
<h2>Builder</h2>${builder}
<h2>Passkeys</h2>
<table aria-label="Passkeys"><thead><tr><th>Passkey</th><th>Added</th><th>Last used</th><th>Kind</th></tr></thead><tbody>${rows}</tbody></table>
<div class="actions"><button type="button" class="secondary" data-action="add-passkey">Add a passkey</button></div>
${problem}`;
  return page(status, `${account.name} · account`, body, { passkeys: true, data });
}
