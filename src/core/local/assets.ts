/** What serves a path of a build (the runtime or which file, as hosting and local servers serve them), and the persona label of local pages. */
import type { Manifest } from '../manifest/index.ts';
import type { PersonaName } from '../runtime/index.ts';

/** Paths the app's runtime answers (queries, mutations, the live stream, endpoints); every other path is an asset. */
export function isRuntimePath(pathname: string): boolean {
  return RUNTIME_PATH.test(pathname);
}

const RUNTIME_PATH = /^\/(?:_platform\/v0\/|api(?:\/|$))/;

/**
 * The build path serving a URL path, or undefined: `/` is the generated document, `/_platform/app/*`
 * the client bundle, anything else a public file; a single-page app answers every other document path
 * with its document. Server and test outputs are never served.
 */
export function assetPath(manifest: Pick<Manifest, 'app'>, pathname: string, has: (path: string) => boolean): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return undefined;
  }
  let path: string;
  if (decoded === '/' || decoded === '/index.html') path = 'client/index.html';
  else if (decoded.startsWith('/_platform/app/')) path = `client/${decoded.slice('/_platform/app/'.length)}`;
  else path = `public/${decoded.slice(1)}`;
  if (path.split('/').some((segment) => segment === '..')) return undefined;
  if (!has(path) && manifest.app?.spa && !decoded.startsWith('/_platform/')) path = 'client/index.html';
  if (!has(path) || path.startsWith('server/') || path.startsWith('tests/')) return undefined;
  return path;
}

export const PERSONA_BANNER_ID = '__platform_persona';

/** The document with a corner label saying which local server it is and who the visitor is. */
export function personaBanner(html: string, mode: string, persona: PersonaName): string {
  const label = `<div id="${PERSONA_BANNER_ID}" data-persona="${persona}" title="Switch with: platform auth as alice|bob|guest" style="position:fixed;right:8px;bottom:8px;z-index:2147483647;font:12px system-ui,sans-serif;background:#111;color:#fff;padding:4px 8px;border-radius:6px;opacity:.85;pointer-events:none">${mode} · you are ${persona}</div>`;
  return html.includes('</body>') ? html.replace('</body>', `${label}</body>`) : `${html}${label}`;
}
