/**
 * Emits the WebContainer's platform toolchain (the CLI bundle and what it reads) as one static asset,
 * `platform-toolchain.json`, fetched only when a WebContainer boots; the dev server builds it on request.
 */
import type { Plugin } from 'vite';
import { buildToolchain } from '../src/adapters/webcontainer/toolchain-bundle.ts';
import { TOOLCHAIN_ASSET } from '../src/adapters/webcontainer/toolchain.ts';

export function platformToolchainPlugin(root: string): Plugin {
  return {
    name: 'platform-toolchain',
    configureServer(server) {
      server.middlewares.use(`/${TOOLCHAIN_ASSET}`, (_request, response, next) => {
        buildToolchain(root).then(
          (files) => {
            response.setHeader('content-type', 'application/json');
            response.end(JSON.stringify({ files }));
          },
          (error: unknown) => next(error),
        );
      });
    },
    async generateBundle() {
      const files = await buildToolchain(root);
      this.emitFile({ type: 'asset', fileName: TOOLCHAIN_ASSET, source: JSON.stringify({ files }) });
    },
  };
}
