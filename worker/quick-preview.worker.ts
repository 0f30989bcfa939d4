/// <reference lib="webworker" />
/**
 * The quick preview worker: a project's first preview made with Sucrase and linked
 * (src/core/quick/quick-bundle.ts), off the page's thread, while the compiler worker has not started;
 * what it answers is src/core/quick/quick-preview-host.ts. Started by the page's first script for a
 * share link, it is sent the page's location and bundles the link's files before the page's own
 * script has loaded. The Library's modules come made at build time. Like the compiler it runs only
 * trusted code; the app's code is transformed here, never executed.
 */
import library from 'virtual:platform-library/quick';
import { quickBundle, QuickPreviewHost } from '../src/core/quick';
import { linkFilesOf } from '../src/core/share';
import type { QuickPreviewRequest } from './protocol/quick-preview';

declare const self: DedicatedWorkerGlobalScope;

const host = new QuickPreviewHost({ bundle: (files) => quickBundle(files, library), linkFiles: linkFilesOf });

self.onmessage = async (event: MessageEvent<QuickPreviewRequest>) => {
  const response = await host.answer(event.data);
  if (response?.type === 'bundled') self.postMessage(response, Object.values(response.files).map((bytes) => bytes.buffer));
  else if (response) self.postMessage(response);
};
