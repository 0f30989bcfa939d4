/** What a zone may import from packages: Node built-ins never, platform modules per zone, the renderer in the client only. */

export const NODE_BUILTINS = new Set([
  'assert', 'async_hooks', 'buffer', 'child_process', 'cluster', 'console', 'constants', 'crypto', 'dgram',
  'diagnostics_channel', 'dns', 'domain', 'events', 'fs', 'http', 'http2', 'https', 'inspector', 'module', 'net',
  'os', 'path', 'perf_hooks', 'process', 'punycode', 'querystring', 'readline', 'repl', 'sea', 'sqlite', 'stream',
  'string_decoder', 'sys', 'test', 'timers', 'tls', 'trace_events', 'tty', 'url', 'util', 'v8', 'vm', 'wasi',
  'worker_threads', 'zlib',
]);

/** The platform modules each zone admits. */
export const PLATFORM_MODULES = { client: 'platform/client', server: 'platform/server', test: 'platform/test' } as const;

/** The renderer entrypoints the client zone may import; the platform supplies them. */
export const RENDERER_ENTRYPOINTS = ['preact', 'preact/hooks', 'preact/jsx-runtime'] as const;
export const RENDERER_TEST_ENTRYPOINTS = ['preact/test-utils'];
export const UNSELECTED_RENDERERS = ['react', 'react-dom'];

/** `@scope/name` or `name`, from a bare specifier. */
export function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

export function isBare(specifier: string): boolean {
  return !specifier.startsWith('.') && !specifier.startsWith('/') && !/^[A-Za-z]:/.test(specifier);
}

export function isNodeBuiltin(specifier: string): boolean {
  return specifier.startsWith('node:') || NODE_BUILTINS.has(specifier.split('/')[0]!);
}

export type AssetKind = 'stylesheet' | 'media' | 'native';

/** Files that are not modules: stylesheets (DG1206), images/fonts/wasm (DG1209), native addons (DG1202). */
export function assetKind(path: string): AssetKind | undefined {
  if (/\.(css|scss|sass|less)$/i.test(path)) return 'stylesheet';
  if (/\.(png|jpe?g|gif|webp|avif|svg|ico|bmp|woff2?|ttf|otf|eot|wasm)$/i.test(path)) return 'media';
  if (/\.node$/i.test(path)) return 'native';
  return undefined;
}
