/** The platform Library embedded at build time by vite.config.ts (see src/adapters/node/library.ts). */
declare module 'virtual:platform-library' {
  const library: { files: Array<[string, string]>; rendererVersion: string; toolchainVersion: string };
  export default library;
}
