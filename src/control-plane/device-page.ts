/**
 * The approval page of the device flow, served by the control plane itself. A person signs in here
 * with the operator secret (printed by the control plane when it starts, kept in its data directory)
 * and approves the code their terminal shows. The CLI never reads or prints that secret, so an agent
 * driving only the CLI cannot approve its own sign-in.
 */
const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  // No script at all, no framing (clickjacking), forms only to this origin.
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  // Not no-referrer: with it Chromium sends `Origin: null` on the form's POST, which the same-origin check refuses.
  'referrer-policy': 'same-origin',
};

const STYLE = 'body{font-family:system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;line-height:1.5}label{display:block;margin:.8rem 0 .2rem}input{font:inherit;padding:.4rem;width:100%;box-sizing:border-box}.code{font-family:ui-monospace,monospace;letter-spacing:.15em;text-transform:uppercase}button{font:inherit;padding:.5rem 1rem;margin:1rem .5rem 0 0}';

function document(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escape(title)}</title><style>${STYLE}</style></head><body>${body}</body></html>`;
}

export function approvalPage(code: string): Response {
  const body = `<h1>Approve a platform sign-in</h1>
<p>A terminal running <code>platform auth login</code> is waiting. Approve it only if the code below is the one that terminal shows.</p>
<form method="post" action="/device">
<label for="code">Code shown in the terminal</label><input id="code" class="code" name="code" value="${escape(code)}" required autocomplete="off">
<label for="builder">Builder name (who you are on this control plane)</label><input id="builder" name="builder" placeholder="e.g. alice" autocomplete="username">
<label for="secret">Operator secret</label><input id="secret" name="secret" type="password" required autocomplete="current-password">
<button type="submit" name="decision" value="approve">Approve</button><button type="submit" name="decision" value="deny">Deny</button>
</form>
<p><small>The operator secret is printed by the control plane when it starts and kept in <code>secrets.json</code> in its data directory.</small></p>`;
  return new Response(document('Approve a platform sign-in', body), { status: 200, headers: HEADERS });
}

export function resultPage(status: number, title: string, text: string, retryCode?: string): Response {
  const again = retryCode !== undefined ? `<p><a href="/device?code=${encodeURIComponent(retryCode)}">Try again</a></p>` : '';
  return new Response(document(title, `<h1>${escape(title)}</h1><p>${escape(text)}</p>${again}`), { status, headers: HEADERS });
}
