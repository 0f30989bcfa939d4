/** The platform Library embedded at build time by vite.config.ts (see src/adapters/node/library.ts). */
declare module 'virtual:platform-library' {
  const library: { files: Array<[string, string]>; rendererVersion: string; toolchainVersion: string };
  export default library;
}

/** The same Library without its declaration files: what bundling reads (worker/bundler.worker.ts). */
declare module 'virtual:platform-library/modules' {
  const library: { files: Array<[string, string]>; rendererVersion: string; toolchainVersion: string };
  export default library;
}

/** The Library's modules made for the quick preview at build time (`quickLibrary`): what worker/quick-preview.worker.ts links. */
declare module 'virtual:platform-library/quick' {
  const library: import('../src/core/quick').QuickLibrary;
  export default library;
}
