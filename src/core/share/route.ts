/**
 * Where a share link lives in the playground's address: `#/share/v1.…` (the core's bare form `#v1.…`
 * opens too). Without imports: the page's first script tests it too (vite/early-worker-plugin.ts).
 */

/** The playground's route of a link. */
export const SHARE_ROUTE = '#/share/';
/** A location hash that is a share route. */
export const SHARE_HASH = /^#(?:\/share\/|[vV])/;

/** The link's fragment (without `#/share/`) when the hash is a share route. */
export function shareFragment(hash: string): string | undefined {
  if (!SHARE_HASH.test(hash)) return undefined;
  return hash.startsWith(SHARE_ROUTE) ? hash.slice(SHARE_ROUTE.length) : hash.slice(1);
}
