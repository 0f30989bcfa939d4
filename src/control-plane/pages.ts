/**
 * The control plane's own pages (/device, /account): one layout and one stylesheet, no framing, and
 * scripts only from the control plane itself (the passkey ceremonies: @simplewebauthn/browser, served
 * from node_modules, and the page script in account-script.ts).
 */
import { isIP } from 'node:net';

export const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  // Scripts and requests only to this origin, no framing (clickjacking), forms only to this origin.
  'content-security-policy': "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  // Not no-referrer: with it Chromium sends `Origin: null` on a form's POST, which the same-origin check refuses.
  'referrer-policy': 'same-origin',
};

const STYLE = `:root{--ink:#1d2330;--muted:#5b6475;--line:#d9dee7;--accent:#2457d6;--bad:#b42318;--good:#067647}
*{box-sizing:border-box}
body{margin:0;background:#f3f5f9;color:var(--ink);font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif}
header{max-width:36rem;margin:2.5rem auto 0;padding:0 1.25rem;color:var(--muted);font-size:.85rem;display:flex;justify-content:space-between;gap:1rem}
header a{color:inherit}
main{max-width:36rem;margin:.6rem auto 3rem;padding:1.75rem 2rem;background:#fff;border:1px solid var(--line);border-radius:12px;box-shadow:0 1px 3px rgba(16,24,40,.06)}
h1{font-size:1.45rem;line-height:1.25;margin:0 0 .75rem}
h2{font-size:1.05rem;margin:1.6rem 0 .4rem;padding-top:1.2rem;border-top:1px solid var(--line)}
p{margin:.5rem 0}
label{display:block;font-weight:600;font-size:.9rem;margin:1rem 0 .3rem}
input{font:inherit;padding:.55rem .7rem;width:100%;border:1px solid var(--line);border-radius:8px;background:#fff;color:inherit}
input:focus{outline:2px solid var(--accent);outline-offset:1px}
.code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:1.35rem;letter-spacing:.2em;text-transform:uppercase;text-align:center}
.actions{display:flex;gap:.6rem;flex-wrap:wrap;align-items:center;margin-top:1.25rem}
button{font:inherit;font-weight:600;padding:.55rem 1.1rem;border-radius:8px;border:1px solid var(--accent);background:var(--accent);color:#fff;cursor:pointer}
button.secondary{background:#fff;color:var(--ink);border-color:var(--line)}
button.link{background:none;border:none;color:var(--accent);padding:0;font-weight:500;text-decoration:underline}
button:disabled{opacity:.6;cursor:progress}
form{margin:0}
.who{display:flex;justify-content:space-between;align-items:center;gap:1rem;background:#f6f8fc;border:1px solid var(--line);border-radius:8px;padding:.6rem .9rem;margin:1rem 0}
.badge{display:inline-block;font-size:.75rem;font-weight:600;padding:.05rem .55rem;border-radius:999px;background:#e8eefc;color:var(--accent);margin-left:.4rem;vertical-align:.1em}
.badge.plain{background:#eef0f3;color:var(--muted)}
.note{color:var(--muted);font-size:.875rem}
.alert{border-radius:8px;padding:.6rem .9rem;margin:1rem 0;background:#fef3f2;color:var(--bad);border:1px solid #fecdca}
.alert.good{background:#ecfdf3;color:var(--good);border-color:#abefc6}
.alert.info{background:#eff4ff;color:#1d3a8a;border-color:#c7d7fe}
.refusal{color:var(--muted);font-size:.8rem;margin-top:1.25rem}
table{width:100%;border-collapse:collapse;font-size:.9rem;margin:.5rem 0}
th,td{text-align:left;padding:.45rem .3rem;border-bottom:1px solid var(--line)}
th{color:var(--muted);font-weight:600}
a{color:var(--accent)}
code{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.9em}
[hidden]{display:none!important}`;

export interface PageOptions {
  /** Loads the passkey scripts. */
  passkeys?: boolean;
  /** `data-*` attributes of <main> (the page script's settings; `code` is a refusal's stable code). */
  data?: Record<string, string>;
}

/** Why passkeys cannot work at all at `origin` (an IP address is never an rpID), or undefined. */
function passkeyProblem(origin: string | undefined): string | undefined {
  const host = origin ? new URL(origin).hostname.replace(/^\[|\]$/g, '') : '';
  if (!isIP(host)) return undefined;
  return `Passkeys need a host name, and this control plane's public origin is ${origin}: start it with --public-origin naming a host (http://localhost:<port> on this machine).`;
}

export function page(status: number, title: string, body: string, options: PageOptions = {}, headers: Record<string, string> = {}): Response {
  const problem = options.passkeys ? passkeyProblem(options.data?.origin) : undefined;
  if (problem) body = `<p class="alert" role="alert">${escape(problem)}</p>${body}`;
  const data = Object.entries(options.data ?? {})
    .map(([key, value]) => ` data-${key}="${escape(value)}"`)
    .join('');
  const scripts = options.passkeys ? '<script src="/account/assets/webauthn.js" defer></script><script src="/account/assets/account.js" defer></script>' : '';
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escape(title)}</title><style>${STYLE}</style>${scripts}</head><body><header><span>Platform control plane</span><a href="/account">Your account</a></header><main${data}>${body}</main></body></html>`;
  return new Response(html, { status, headers: { ...PAGE_HEADERS, ...headers } });
}

/** A page that says what happened: a refusal names its stable code (`data-code` and a line at the bottom). */
export function resultPage(status: number, title: string, text: string, options: { code?: string; link?: { href: string; text: string }; headers?: Record<string, string> } = {}): Response {
  const link = options.link ? `<p><a href="${escape(options.link.href)}">${escape(options.link.text)}</a></p>` : '';
  const code = options.code ? `<p class="refusal">Refused: <code>${escape(options.code)}</code></p>` : '';
  return page(status, title, `<h1>${escape(title)}</h1><p>${escape(text)}</p>${link}${code}`, options.code ? { data: { code: options.code } } : {}, options.headers);
}
