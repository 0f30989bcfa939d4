/** Messages between the page and the quick preview worker (worker/quick-preview.worker.ts). Structured-clone-safe; tagged by `type`. */

export type QuickPreviewRequest =
  /**
   * The page's location hash, sent by its first script (vite/early-worker-plugin.ts) before the page's
   * own script has read the link: a share link's files are decoded and bundled here at once.
   */
  | { type: 'link'; hash: string }
  | { type: 'bundle'; id: number; files: Record<string, string | Uint8Array> };

export type QuickPreviewResponse =
  /** The preview's files (`server/index.js`, `client/app.js`, …), and the milliseconds the worker spent. */
  | { type: 'bundled'; id: number; files: Record<string, Uint8Array>; ms: number }
  /** The quick path declined the project (why, for the console): the compiler bundles it. */
  | { type: 'declined'; id: number; reason: string; ms: number };
