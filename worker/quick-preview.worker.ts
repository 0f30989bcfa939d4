/// <reference lib="webworker" />
/**
 * The quick preview worker: a project's first preview made with Sucrase and linked
 * (src/core/build/quick-bundle.ts), off the page's thread, while the compiler worker has not started.
 * The Library's modules come made at build time. Like the compiler it runs only trusted code; the
 * app's code is transformed here, never executed.
 */
import library from 'virtual:platform-library/quick';
import { quickBundle } from '../src/core/build/quick-bundle';
import type { QuickPreviewRequest, QuickPreviewResponse } from './protocol/quick-preview';

declare const self: DedicatedWorkerGlobalScope;

self.onmessage = async (event: MessageEvent<QuickPreviewRequest>) => {
  const { id, files } = event.data;
  const started = performance.now();
  const outcome = await quickBundle(files, library).catch((error: unknown) => ({ ok: false as const, reason: `the quick preview failed: ${error instanceof Error ? error.message : String(error)}` }));
  const ms = performance.now() - started;
  if (!outcome.ok) return self.postMessage({ type: 'declined', id, reason: outcome.reason, ms } satisfies QuickPreviewResponse);
  const out = Object.fromEntries(outcome.files);
  self.postMessage({ type: 'bundled', id, files: out, ms } satisfies QuickPreviewResponse, Object.values(out).map((bytes) => bytes.buffer));
};
