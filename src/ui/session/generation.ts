/**
 * A generation: one build of a project that compiled, what the runtime and the previews run (kept by the
 * project store as its last good build, so it depends on nothing of the session).
 */
import type { Manifest } from '../../core/manifest';

/** A build that compiled: what the runtime and the previews run. */
export interface Generation {
  number: number;
  /**
   * The generation whose client this one shows: its own number, or the one before's when the client
   * (its code, styles, public files, title and language) is the same, so that only the server changed:
   * the previews keep their pages and run their queries again (preview-pane.tsx).
   */
  client: number;
  manifest: Manifest;
  serverCode: string;
  clientCode: string;
  clientCss?: string;
  /** The bundles' source maps, to show where in the app's files a console line or an error comes from. */
  clientMap?: string;
  serverMap?: string;
  /** The app's public/ files (path under public/ → text), served at / in the previews. */
  publicFiles: Record<string, string>;
}
