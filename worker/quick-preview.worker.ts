/// <reference lib="webworker" />
/**
 * The quick preview worker: a project's first preview made with Sucrase and linked
 * (src/core/build/quick-bundle.ts), off the page's thread, while the compiler worker has not started.
 * Started by the page's first script for a share link, it is sent the page's location and decodes the
 * link and bundles its files at once, before the page's own script has loaded; the page's request for
 * the same files is then answered with that bundle. The Library's modules come made at build time.
 * Like the compiler it runs only trusted code; the app's code is transformed here, never executed.
 */
import library from 'virtual:platform-library/quick';
import { sameFiles } from '../src/core/bytes';
import { quickBundle, type QuickBundle } from '../src/core/build/quick-bundle';
import { decodeShareLink, shareFragment } from '../src/core/share/link';
import type { QuickPreviewRequest, QuickPreviewResponse } from './protocol/quick-preview';

declare const self: DedicatedWorkerGlobalScope;

type Files = Record<string, string | Uint8Array>;
type Made = { outcome: QuickBundle; ms: number };

function make(files: Files): Promise<Made> {
  const started = performance.now();
  return quickBundle(files, library).then(
    (outcome) => ({ outcome, ms: performance.now() - started }),
    (error: unknown) => ({ outcome: { ok: false, reason: `the quick preview failed: ${error instanceof Error ? error.message : String(error)}` }, ms: performance.now() - started }),
  );
}

/** The link's files and their bundle, made before the page asked (undefined: no link, or it does not decode). */
let fromLink: Promise<{ files: Files; made: Promise<Made> } | undefined> = Promise.resolve(undefined);

self.onmessage = async (event: MessageEvent<QuickPreviewRequest>) => {
  const request = event.data;
  if (request.type === 'link') {
    const fragment = shareFragment(request.hash);
    if (fragment === undefined) return;
    fromLink = decodeShareLink(fragment).then((decoded) => (decoded.ok ? { files: decoded.link.files, made: make(decoded.link.files) } : undefined));
    return;
  }
  const { id, files } = request;
  const early = await fromLink;
  const { outcome, ms } = await (early && sameFiles(early.files, files) ? early.made : make(files));
  if (!outcome.ok) return self.postMessage({ type: 'declined', id, reason: outcome.reason, ms } satisfies QuickPreviewResponse);
  // Copies: the link's bundle may be asked for again (a reload of the session), and a transferred buffer is gone.
  const out = Object.fromEntries([...outcome.files].map(([path, bytes]) => [path, bytes.slice()]));
  self.postMessage({ type: 'bundled', id, files: out, ms } satisfies QuickPreviewResponse, Object.values(out).map((bytes) => bytes.buffer));
};
