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

/**
 * The renderers the platform supplies. An app selects one by what its client zone imports: React when it
 * imports `react` or `react-dom/client`, Preact otherwise; importing both families is DG1503.
 */
export type Renderer = 'preact' | 'react';
export const DEFAULT_RENDERER: Renderer = 'preact';
export const RENDERERS: Record<Renderer, { packages: readonly string[]; entrypoints: readonly string[]; testEntrypoints: readonly string[]; jsxImportSource: string }> = {
  preact: { packages: ['preact'], entrypoints: ['preact', 'preact/hooks', 'preact/jsx-runtime'], testEntrypoints: ['preact/test-utils'], jsxImportSource: 'preact' },
  react: { packages: ['react', 'react-dom'], entrypoints: ['react', 'react/jsx-runtime', 'react-dom/client'], testEntrypoints: ['react-dom/test-utils'], jsxImportSource: 'react' },
};
/** Every renderer entrypoint the client zone may import, of either family. */
export const RENDERER_ENTRYPOINTS: readonly string[] = Object.values(RENDERERS).flatMap((r) => r.entrypoints);

/** The renderer family a package belongs to, if any. */
export function rendererOf(name: string): Renderer | undefined {
  return (Object.keys(RENDERERS) as Renderer[]).find((r) => RENDERERS[r].packages.includes(name));
}

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
