/**
 * Serves the manifest's JSON Schema at `/app.manifest.schema.json`, for editors' `"$schema"`: the file is
 * source (src/core/manifest/app.manifest.schema.json, which the core imports), not a public/ file, since
 * Vite's dev server warns at each import of a file from public/ ("Assets in public directory cannot be
 * imported from JavaScript"). The dev server answers it from the file; the build emits it at the same path.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Plugin } from 'vite';

export const MANIFEST_SCHEMA_PATH = '/app.manifest.schema.json';

export function manifestSchemaPlugin(root: string): Plugin {
  const file = join(root, 'src/core/manifest/app.manifest.schema.json');
  return {
    name: 'platform-manifest-schema',
    configureServer(server) {
      server.middlewares.use((request, response, next) => {
        if (request.url?.split('?')[0] !== MANIFEST_SCHEMA_PATH) return next();
        response.setHeader('content-type', 'application/json');
        response.end(readFileSync(file));
      });
    },
    generateBundle() {
      this.emitFile({ type: 'asset', fileName: MANIFEST_SCHEMA_PATH.slice(1), source: readFileSync(file, 'utf8') });
    },
  };
}
