/**
 * Long-lived caching of the playground's hashed files (`/assets/*`: the 14 MB esbuild wasm, the compiler
 * worker with TypeScript and its libraries, sql.js's wasm, the page's chunks): their names change with
 * their content, so a browser keeps them across sessions and a reload or a second visit fetches none of
 * them. `vite preview` sends the header itself; the production build carries it as a `_headers` file
 * (the format static hosts such as Cloudflare Pages and Netlify read). Everything else (index.html, the
 * manifest schema) is revalidated as before.
 */
import type { ServerResponse } from 'node:http';
import type { Plugin } from 'vite';

export const ASSETS_PREFIX = '/assets/';
export const IMMUTABLE = 'public, max-age=31536000, immutable';

export function cacheHeadersPlugin(): Plugin {
  return {
    name: 'platform-cache-headers',
    configurePreviewServer(server) {
      server.middlewares.use((req, res, next) => {
        if (req.url?.startsWith(ASSETS_PREFIX)) {
          // Vite's static server writes its own no-cache in writeHead's headers, which win over setHeader.
          const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
          res.writeHead = ((status: number, ...rest: unknown[]) => {
            const headers = rest.find((arg) => typeof arg === 'object' && arg !== null && !Array.isArray(arg)) as Record<string, unknown> | undefined;
            if (headers) headers['Cache-Control'] = IMMUTABLE;
            res.setHeader('Cache-Control', IMMUTABLE);
            return writeHead(status, ...rest);
          }) as typeof res.writeHead;
        }
        next();
      });
    },
    generateBundle() {
      this.emitFile({ type: 'asset', fileName: '_headers', source: `${ASSETS_PREFIX}*\n  Cache-Control: ${IMMUTABLE}\n` });
    },
  };
}
