/**
 * Starts the quick preview's worker (worker/quick-preview.worker.ts) from the page's first script when
 * the page opens a share link, and sends it the link. The playground's own module runs only once its
 * whole graph has loaded; an inline classic script in index.html runs as the document is parsed, so the
 * worker decodes the link and bundles its files while the page's script loads (src/ui/quick-preview.ts
 * adopts the worker). The built page only: the worker's file name is known once the bundle is written;
 * in `vite` dev the page starts the worker when it reads the link.
 */
import type { Plugin } from 'vite';
import { SHARE_HASH } from '../src/core/share/index.ts';
import type { QuickPreviewRequest } from '../src/core/quick/index.ts';

const WORKER = /(^|\/)quick-preview\.worker-[^/]*\.js$/;

export function earlyWorkerPlugin(): Plugin {
  let base = '/';
  return {
    name: 'platform-early-worker',
    configResolved(config) {
      base = config.base;
    },
    transformIndexHtml: {
      order: 'post',
      handler(html, context) {
        if (!context.bundle || !context.filename.endsWith('/index.html') || context.filename.includes('/harness/')) return html;
        const file = Object.keys(context.bundle).find((name) => WORKER.test(name));
        if (!file) throw new Error('The build has no quick preview worker to start early.');
        const url = JSON.stringify(`${base}${file}`);
        // The worker is given the hash (the protocol's `link` message): it decodes the link and bundles its files while the page's script loads.
        const kind: Extract<QuickPreviewRequest, { type: 'link' }>['type'] = 'link';
        const script = `if (${SHARE_HASH}.test(location.hash)) { const worker = new Worker(${url}, { type: 'module', name: 'quick-preview' }); worker.postMessage({ type: ${JSON.stringify(kind)}, hash: location.hash }); globalThis.__platformQuickPreviewWorker = worker; }`;
        return { html, tags: [{ tag: 'script', children: script, injectTo: 'head' }] };
      },
    },
  };
}
