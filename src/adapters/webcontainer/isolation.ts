/**
 * The cross-origin isolation a WebContainer needs, in one place: the headers the dev server, the
 * preview server and a static host send, and the `coep` the adapter boots with (they must agree).
 */

/**
 * `credentialless` rather than `require-corp`: the playground's own resources (its wasm, workers,
 * srcdoc sandboxes, blob workers) are same-origin and load under either, but `require-corp` also
 * blocks every cross-origin no-cors request of the page that lacks a CORP header (measured: the
 * runtime-sandbox e2e's `fetch(canary, { mode: 'no-cors' })` failed with "Failed to fetch").
 * `credentialless` lets such requests through without cookies. The price: Safari has no
 * `credentialless`, so there the page is not isolated and the terminal says so.
 */
export const EMBEDDER_POLICY = 'credentialless' as const;

/** The response headers of every page and asset of the playground. */
export const ISOLATION_HEADERS: Readonly<Record<string, string>> = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': EMBEDDER_POLICY,
};
