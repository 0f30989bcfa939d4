/** Messages between the page and the quick preview worker (worker/quick-preview.worker.ts). Structured-clone-safe; tagged by `type`. */

export type QuickPreviewRequest = { type: 'bundle'; id: number; files: Record<string, string | Uint8Array> };

export type QuickPreviewResponse =
  /** The preview's files (`server/index.js`, `client/app.js`, …), and the milliseconds the worker spent. */
  | { type: 'bundled'; id: number; files: Record<string, Uint8Array>; ms: number }
  /** The quick path declined the project (why, for the console): the compiler bundles it. */
  | { type: 'declined'; id: number; reason: string; ms: number };
