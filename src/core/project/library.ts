/**
 * The files the platform supplies to every app, in the compiler's virtual file system: the platform
 * modules, the renderers (Preact's types and ES modules; React's production CommonJS builds with their
 * types from @types) and TypeScript's lib files. Hosts load them (Node from disk,
 * the browser from bundled text); nothing is fetched from a CDN.
 */

/** Where the app's own files live in the virtual file system. */
export const APP_ROOT = '/app';
/** Where the platform's packages live: the parent of the app, so the app's own node_modules come first. */
export const PLATFORM_MODULES_ROOT = '/node_modules';

export const MODULE_FILES = ['types.ts', 'wire.ts', 'server.ts', 'client.ts', 'test.ts'] as const;

export const PREACT_FILES = [
  'package.json',
  'src/index.d.ts',
  'src/jsx.d.ts',
  'src/dom.d.ts',
  'src/internal.d.ts',
  'dist/preact.mjs',
  'hooks/package.json',
  'hooks/src/index.d.ts',
  'hooks/src/internal.d.ts',
  'hooks/dist/hooks.mjs',
  'jsx-runtime/package.json',
  'jsx-runtime/src/index.d.ts',
  'jsx-runtime/dist/jsxRuntime.mjs',
] as const;

/**
 * React, as the platform supplies it: the production builds of the entrypoints the client may import
 * (react, react/jsx-runtime, react-dom/client), what they require, and their declarations.
 */
export const REACT_FILES: Record<string, readonly string[]> = {
  react: ['package.json', 'index.js', 'jsx-runtime.js', 'cjs/react.production.js', 'cjs/react-jsx-runtime.production.js'],
  'react-dom': ['package.json', 'client.js', 'index.js', 'cjs/react-dom-client.production.js', 'cjs/react-dom.production.js'],
  scheduler: ['package.json', 'index.js', 'cjs/scheduler.production.js'],
  '@types/react': ['package.json', 'index.d.ts', 'global.d.ts', 'jsx-runtime.d.ts'],
  '@types/react-dom': ['package.json', 'index.d.ts', 'client.d.ts'],
  csstype: ['package.json', 'index.d.ts'],
};

/** The version of a package the Library supplies (preact, react, react-dom), from its package.json. */
export function suppliedVersion(library: Library, name: string): string {
  return (JSON.parse(library.files.get(`${PLATFORM_MODULES_ROOT}/${name}/package.json`)!) as { version: string }).version;
}

/** The TypeScript libs apps compile against; their `/// <reference lib>` closure is loaded. */
export const TYPESCRIPT_LIBS = ['es2022', 'dom', 'dom.iterable'] as const;

/** Ambient declarations for what the client may import besides modules; a root of every type check. */
export const ASSET_DECLARATIONS_FILE = `${PLATFORM_MODULES_ROOT}/platform/assets.d.ts`;

const MEDIA = ['svg', 'png', 'jpg', 'jpeg', 'gif', 'webp', 'avif', 'ico', 'bmp', 'woff', 'woff2', 'ttf', 'otf', 'eot', 'wasm'];

export const ASSET_DECLARATIONS = `// Stylesheets are bundled for their effect; other assets import as their URL.
declare module '*.css';
${MEDIA.map((ext) => `declare module '*.${ext}' {\n  const url: string;\n  export default url;\n}`).join('\n')}
`;

export interface Library {
  /** Virtual absolute path → text: `/node_modules/platform/server.ts`, `/node_modules/preact/…`, `/lib.es2022.d.ts`. */
  files: ReadonlyMap<string, string>;
  /** The version of the Preact the platform supplies (React's: suppliedVersion). */
  rendererVersion: string;
  /** The version of the toolchain (for the artifact). */
  toolchainVersion: string;
}

/** The Library from its embedded form (the playground's workers: `virtual:platform-library`, a file list). */
export function embeddedLibrary(embedded: { files: Array<[string, string]>; rendererVersion: string; toolchainVersion: string }): Library {
  return { files: new Map(embedded.files), rendererVersion: embedded.rendererVersion, toolchainVersion: embedded.toolchainVersion };
}

/** The file name of a TypeScript lib, e.g. `dom.iterable` → `lib.dom.iterable.d.ts`. */
export function libFileName(lib: string): string {
  return `lib.${lib.toLowerCase()}.d.ts`;
}

/** Every lib file the given libs reference, transitively, as file names. */
export function libClosure(read: (fileName: string) => string | undefined, roots: readonly string[] = TYPESCRIPT_LIBS): string[] {
  const out: string[] = [];
  const queue = roots.map(libFileName);
  while (queue.length) {
    const name = queue.shift()!;
    if (out.includes(name)) continue;
    const text = read(name);
    if (text === undefined) throw new Error(`TypeScript lib file ${name} is missing`);
    out.push(name);
    for (const match of text.matchAll(/\/\/\/\s*<reference\s+lib="([^"]+)"/g)) queue.push(libFileName(match[1]!));
  }
  return out;
}

/** Assembles a Library from a reader of package files (`preact/...`, `@types/react/...`, `typescript/lib/...`) and the module sources. */
export function assembleLibrary(options: {
  readPackageFile(path: string): string | undefined;
  moduleSources: Record<(typeof MODULE_FILES)[number], string>;
  toolchainVersion: string;
}): Library {
  const files = new Map<string, string>();
  for (const name of MODULE_FILES) files.set(`${PLATFORM_MODULES_ROOT}/platform/${name}`, options.moduleSources[name]);
  files.set(ASSET_DECLARATIONS_FILE, ASSET_DECLARATIONS);
  files.set(`${PLATFORM_MODULES_ROOT}/platform/package.json`, JSON.stringify({ name: 'platform', version: options.toolchainVersion, type: 'module' }));
  for (const path of PREACT_FILES) {
    const text = options.readPackageFile(`preact/${path}`);
    if (text === undefined) throw new Error(`The platform's Preact is missing preact/${path}`);
    files.set(`${PLATFORM_MODULES_ROOT}/preact/${path}`, text);
  }
  for (const [name, paths] of Object.entries(REACT_FILES)) {
    for (const path of paths) {
      const text = options.readPackageFile(`${name}/${path}`);
      if (text === undefined) throw new Error(`The platform's React is missing ${name}/${path}`);
      files.set(`${PLATFORM_MODULES_ROOT}/${name}/${path}`, text);
    }
  }
  const read = (name: string) => options.readPackageFile(`typescript/lib/${name}`);
  for (const name of libClosure(read)) files.set(`/${name}`, read(name)!);
  const preact = JSON.parse(files.get(`${PLATFORM_MODULES_ROOT}/preact/package.json`)!) as { version: string };
  return { files, rendererVersion: preact.version, toolchainVersion: options.toolchainVersion };
}
