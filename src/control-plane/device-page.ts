/**
 * The approval page of the device flow, served by the control plane itself. A person signs in with a
 * passkey (their account, see accounts.ts) and approves or denies the code their terminal (or their playground's
 * Deploy panel, named by its origin) shows; only a
 * builder account may. An account that is not a builder yet can become one here, once, with the
 * operator secret (printed by the control plane when it starts, kept in its data directory). The CLI
 * never reads or prints that secret and cannot hold a passkey, so an agent driving only the CLI cannot
 * approve its own sign-in.
 */
import type { AccountSession } from './accounts';
import { escape, page } from './pages';

/** Who asked for the sign-in a code stands for: a terminal (`platform auth login`), or a playground's Deploy panel (its origin, one the control plane allows). */
export type Asker = 'terminal' | { playground: string };

/** The asker a device code's `requester` record names (a playground origin, or null for a terminal). */
export function askerOf(requester: unknown): Asker {
  return typeof requester === 'string' ? { playground: requester } : 'terminal';
}

/** How the answers after an approval name the asker: "The playground at <origin>", or "The terminal". */
export function askerName(asker: Asker): string {
  return asker === 'terminal' ? 'The terminal' : `The playground at ${asker.playground}`;
}

const codeField = (code: string, asker: Asker) => `<label for="code">Code shown in the ${asker === 'terminal' ? 'terminal' : 'playground'}</label><input id="code" class="code" name="code" value="${escape(code)}" required autocomplete="off" spellcheck="false">`;

export function approvalPage(code: string, session: AccountSession | undefined, publicOrigin: string, notice?: string, asker: Asker = 'terminal'): Response {
  const intro =
    asker === 'terminal'
      ? '<h1>Approve a platform sign-in</h1><p>A terminal running <code>platform auth login</code> is waiting. Approve it only if the code below is the one that terminal shows.</p>'
      : `<h1>Approve a platform sign-in</h1><p>The playground at <strong>${escape(asker.playground)}</strong> is waiting to deploy. Approve it only if the code below is the one its Deploy panel shows.</p>`;
  const problem = `<p id="problem" class="alert" role="alert"${notice ? '' : ' hidden'}>${notice ? escape(notice) : ''}</p>`;
  if (!session) {
    const account = `/account${code ? `?code=${encodeURIComponent(code)}` : ''}`;
    const body = `${intro}${codeField(code, asker)}
<div class="actions"><button type="button" data-action="sign-in">Sign in with a passkey</button></div>
${problem}
<p class="note">Only a builder of this control plane can approve. No passkey yet? <a href="${escape(account)}">Create an account</a>, then come back to this code.</p>`;
    return page(200, 'Approve a platform sign-in', body, { passkeys: true, data: { origin: publicOrigin, next: 'device' } });
  }
  const { account } = session;
  const who = `<div class="who"><span>Signed in as <strong>${escape(account.name)}</strong>${account.builderId ? '<span class="badge">builder</span>' : '<span class="badge plain">not a builder</span>'}</span>
<form method="post" action="/account/signout"><input type="hidden" name="from" value="device"><input type="hidden" name="code" value="${escape(code)}"><button type="submit" class="link">Sign out</button></form></div>`;
  const grant = account.builderId
    ? ''
    : `<p class="note">${escape(account.name)} is not a builder yet. Builder status is granted once per account with the <strong>operator secret</strong> (printed by the control plane when it starts, kept in <code>secrets.json</code> in its data directory).</p>
<label for="secret">Operator secret</label><input id="secret" name="secret" type="password" required autocomplete="off">`;
  const body = `${intro}${who}<form method="post" action="/device">${codeField(code, asker)}${grant}
<div class="actions"><button type="submit" name="decision" value="approve">Approve</button><button type="submit" name="decision" value="deny" class="secondary">Deny</button></div></form>${problem}`;
  return page(200, 'Approve a platform sign-in', body);
}
