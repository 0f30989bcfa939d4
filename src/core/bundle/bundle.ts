/**
 * Bundles an analysed app with an injected esbuild (native or wasm): the client (minified, its selected
 * renderer, Preact or React, from the platform), the server and each test file. Every file comes through one plugin from the project's
 * FileSystem and the platform Library, so both esbuilds see exactly the same inputs; in the native mode
 * (a project on disk, `platform dev`) esbuild reads the project's scripts itself, and the build is taken
 * only when it read what the plugin would have given it (see Bundler).
 */
import { diagnostic, type Diagnostic } from '../diagnostics/index.ts';
import { type FileSystem, MemoryFileSystem, normalizeProjectPath } from '../fs/index.ts';
import { resolveRelative, assetKind, DEFAULT_RENDERER, isNodeBuiltin, packageName, PLATFORM_MODULES, RENDERERS, type Renderer, listFiles, snapshotStat, type Project, type ProjectSnapshot, PLATFORM_MODULES_ROOT, type Library } from '../project/index.ts';
import type { BuildContext, BuildOptions, EsbuildApi, Message, Metafile, Plugin } from './esbuild-types.ts';
import { lineBreaks, PREVIEW_VENDOR_END, PREVIEW_VENDOR_START } from './preview-vendor.ts';
import { resolvePackage } from './resolve-package.ts';
import type { Manifest } from '../manifest/index.ts';

export const KIB = 1024;
export const MIB = 1024 * 1024;
export const MODULE_LIMIT = 10 * MIB;
export const ASSET_LIMIT = 25 * MIB;
export const CLIENT_BUNDLE_DEFAULT = 1024 * KIB;
export const APP_SHARE_ADVISORY = 400 * KIB;
/** Where the hosted app serves the client bundle: under a reserved prefix, so it never collides with public/. */
export const CLIENT_ASSET_PREFIX = '/_platform/app';
export const RESERVED_PREFIXES = ['_platform/', '__platform/', '_xa/'];

const encoder = new TextEncoder();

export interface BundleResult {
  /** Artifact-relative path → bytes. */
  files: Map<string, Uint8Array>;
  sizes: { clientBytes: number; appShareBytes: number };
  diagnostics: Diagnostic[];
  /** The targets bundled in the native mode (esbuild read the project's scripts itself: see Bundler), if any. */
  native?: BuildTarget[];
}

export type BuildTarget = 'client' | 'server' | 'test';
export const ALL_TARGETS: readonly BuildTarget[] = ['client', 'server', 'test'];

/** How a bundle is made, besides its targets. */
export interface BundleOptions {
  /**
   * A bundle for the playground's preview only, never for an artifact: a React app's client takes
   * React from a vendor script the Bundler builds once and puts before the app's bundle in the same
   * `client/app.js` (see `previewVendor`), so an edit does not link and print React DOM again. Its
   * bytes differ from an artifact's; the server and a Preact client are as in an artifact.
   */
  preview?: boolean;
}

/**
 * The preview's vendor script sets this global to the renderer's entrypoints (specifier → the module
 * object `require` gives); the app's bundle takes them from it through CommonJS shims.
 */
export const PREVIEW_VENDOR_GLOBAL = '__platformPreviewVendor';
/** The name the vendor script's generated CommonJS source loads its packages with. */
const COMMONJS_REQUIRE = 'require';
/** Where the shims live in the `lib` namespace (so the app's share of the client leaves them out, as it leaves the renderer out). */
const VENDOR_SHIM_ROOT = `${PLATFORM_MODULES_ROOT}/.platform-preview-vendor`;

/** The renderers whose preview client takes them from a vendor script: React, whose packages are CommonJS (Preact is small and ES modules). */
function vendoredEntrypoints(renderer: Renderer): readonly string[] | undefined {
  return renderer === 'react' ? RENDERERS.react.entrypoints : undefined;
}

/** The shim of one vendored entrypoint: a CommonJS module whose exports are the module object the vendor script required. */
function vendorShims(entrypoints: readonly string[]): Map<string, { path: string; contents: string }> {
  return new Map(entrypoints.map((specifier) => [specifier, { path: `${VENDOR_SHIM_ROOT}/${specifier}.js`, contents: `module.exports = globalThis[${JSON.stringify(PREVIEW_VENDOR_GLOBAL)}][${JSON.stringify(specifier)}];\n` }]));
}

function loaderFor(path: string): 'ts' | 'tsx' | 'js' | 'jsx' | 'json' | 'css' | 'file' | 'text' {
  if (path.endsWith('.tsx')) return 'tsx';
  if (path.endsWith('.ts') || path.endsWith('.mts') || path.endsWith('.cts')) return 'ts';
  if (path.endsWith('.jsx')) return 'jsx';
  if (/\.[cm]?js$/.test(path)) return 'js';
  if (path.endsWith('.json')) return 'json';
  if (path.endsWith('.css')) return 'css';
  if (assetKind(path)) return 'file';
  return 'text';
}

/** Each Library's answers of libraryPackageFile (a Library's files do not change): a hundred components importing preact/hooks read its package.json once. */
const packageFiles = new WeakMap<Library, Map<string, string | undefined>>();

/** The file a bare specifier names in a package of the platform Library (a renderer), from its package.json. */
export function libraryPackageFile(library: Library, specifier: string): string | undefined {
  let known = packageFiles.get(library);
  if (!known) packageFiles.set(library, (known = new Map()));
  if (!known.has(specifier)) known.set(specifier, readLibraryPackageFile(library, specifier));
  return known.get(specifier);
}

function readLibraryPackageFile(library: Library, specifier: string): string | undefined {
  const name = packageName(specifier);
  const text = library.files.get(`${PLATFORM_MODULES_ROOT}/${name}/package.json`);
  if (text === undefined) return undefined;
  const pkg = JSON.parse(text) as { exports?: Record<string, string | { default?: string }>; main?: string };
  const key = specifier === name ? '.' : `./${specifier.slice(name.length + 1)}`;
  const entry = pkg.exports ? pkg.exports[key] : key === '.' ? (pkg.main ?? 'index.js') : key;
  const target = typeof entry === 'object' ? entry.default : entry;
  const path = target && `${PLATFORM_MODULES_ROOT}/${name}/${target.replace(/^\.\//, '')}`;
  return path && library.files.has(path) ? path : undefined;
}

/**
 * platform/client is written against preact/hooks; in a React app its hooks are React's (the same
 * useState, useEffect, useRef and useCallback), so the module binds to the renderer the app selected.
 */
function selectedSpecifier(renderer: Renderer, specifier: string): string {
  return renderer === 'react' && specifier === 'preact/hooks' ? 'react' : specifier;
}

export function libraryRelative(library: Library, importer: string, specifier: string): string | undefined {
  const base = importer.slice(0, importer.lastIndexOf('/'));
  const parts: string[] = [];
  for (const segment of `${base}/${specifier}`.split('/')) {
    if (segment === '..') parts.pop();
    else if (segment && segment !== '.') parts.push(segment);
  }
  const joined = `/${parts.join('/')}`;
  return ['', '.ts', '.mjs', '.js'].map((ext) => joined + ext).find((candidate) => library.files.has(candidate));
}

/** What a build's plugin reads: swapped before each rebuild, so one esbuild context serves many builds. */
interface PluginState {
  fs: FileSystem;
  /** The files as the build's analysis found them: app paths it lists are resolved and loaded from it, not read again. */
  snapshot?: ProjectSnapshot;
  /** Each snapshot text last loaded, by path, with its bytes: kept across the context's builds, found again by the text. */
  encoded: Map<string, { text: string; bytes: Uint8Array }>;
  /** Each path's kind as this build found it: a file a hundred others import is stat'ed once per build, not a hundred times. */
  stats: Map<string, ReturnType<FileSystem['stat']>>;
  renderer: Renderer;
  builtinsFromDependencies: Array<{ specifier: string; importer: string }>;
}

/**
 * The native mode's Library on disk: the target's bare platform specifiers (its platform module, a
 * Preact client's renderer) esbuild resolves itself, each to the file on disk that holds the Library's
 * text (`alias`), and the Library path of each such file esbuild may read (`pathOf`: absolute path →
 * Library path), so that a build reads the platform's code without a call to this thread per importer
 * (a 500-file app's client asked for preact/hooks, preact/jsx-runtime and platform/client 900 times).
 */
interface NativeLibrary {
  alias: Record<string, string>;
  pathOf: ReadonlyMap<string, string>;
}

/**
 * The native mode (a project in a directory esbuild can read): the specifiers of a project script that
 * esbuild passes to the plugin, a Go regular expression (no lookahead), matched without a call to this
 * thread. The rest, `./` or `../` paths that are not stylesheets, media or JSON, esbuild resolves and
 * reads itself, as the plugin would (checked after the build: `nativeReadsMatch`).
 */
const PLUGIN_SPECIFIERS = /^(?:[^.]|\.$|\.[^./]|\.\.$|\.\.[^/])|\.(?:json|css|scss|sass|less|png|jpe?g|gif|webp|avif|svg|ico|bmp|woff2?|ttf|otf|eot|wasm|node)$/;
/**
 * PLUGIN_SPECIFIERS less the bare specifiers in `aliased` (exactly those strings), which esbuild then
 * resolves itself through its `alias` option: the native mode's platform module and renderer, read from
 * the Library's files on disk. Go's expressions have no lookahead, so "a bare specifier other than these"
 * is spelled out over the words' letters: it ends or turns off before it has spelled one whole.
 */
export function pluginSpecifiers(aliased: readonly string[]): RegExp {
  if (aliased.length === 0) return PLUGIN_SPECIFIERS;
  type Node = { end: boolean; next: Map<string, Node> };
  const root: Node = { end: false, next: new Map() };
  for (const word of aliased) {
    let node = root;
    for (const char of word) {
      if (!node.next.has(char)) node.next.set(char, { end: false, next: new Map() });
      node = node.next.get(char)!;
    }
    node.end = true;
  }
  const escape = (char: string) => (/[A-Za-z0-9]/.test(char) ? char : `\\${char}`);
  // Any character but the next ones of a word (a word's last letter: any character at all).
  const other = (node: Node, also = '') => (also || node.next.size ? `[^${also}${[...node.next.keys()].map(escape).join('')}]` : '.');
  const rest = (node: Node): string =>
    `(?:${[...(node.end ? [] : ['$']), other(node), ...[...node.next].map(([char, next]) => `${escape(char)}${rest(next)}`)].join('|')})`;
  const bare = `${other(root, '.')}|${[...root.next].map(([char, next]) => `${escape(char)}${rest(next)}`).join('|')}`;
  return new RegExp(PLUGIN_SPECIFIERS.source.replace('^(?:[^.]|', `^(?:${bare}|`));
}
/** The project files esbuild reads itself in the native mode. */
const NATIVE_SCRIPT = /\.(?:tsx?|jsx?|mjs|cjs)$/;
/** The extensions esbuild tries, in the order `resolveRelative` tries them. */
const NATIVE_EXTENSIONS = ['.ts', '.tsx', '.js', '.jsx', '.mjs', '.cjs'];
/** Where the native mode's outputs are named (nothing is written): under the project's platform folder, so source maps name project files `../../../src/…`. */
const NATIVE_OUT = '.platform/bundle-out';

/** The loaders of the files a snapshot holds the text of (the analysis reads scripts and JSON). */
const SNAPSHOT_LOADERS = new Set(['ts', 'tsx', 'js', 'jsx', 'json']);

/** What a path is, from the build's snapshot where it lists the path, else from the file system. */
function statOf(state: PluginState, path: string): ReturnType<FileSystem['stat']> {
  const listed = state.snapshot ? snapshotStat(state.snapshot, path) : 'unlisted';
  return listed === 'unlisted' ? state.fs.stat(path) : Promise.resolve(listed);
}

/**
 * `shims`: the renderer's entrypoints that resolve to CommonJS shims over the preview's vendor script
 * (a preview's React client), in place of the renderer's own files.
 */
function platformPlugin(library: Library, target: BuildTarget, state: PluginState, shims?: ReadonlyMap<string, { path: string; contents: string }>, root?: string, onDisk?: NativeLibrary): Plugin {
  const shimContents = new Map([...(shims?.values() ?? [])].map((shim) => [shim.path, shim.contents]));
  return {
    name: 'platform',
    setup(build) {
      const resolve = async (args: { path: string; importer: string; namespace: string; kind: string }) => {
        // A project file esbuild read itself (the native mode): named by its project path here.
        const native = root !== undefined && args.namespace === 'file';
        // A Library file esbuild read itself (its bare imports are aliased; anything else is the Library's to answer).
        const libraryFile = native ? onDisk?.pathOf.get(args.importer) : undefined;
        if (libraryFile !== undefined) args = { ...args, namespace: 'lib', importer: libraryFile };
        else if (native) args = { ...args, namespace: 'app', importer: args.importer.slice(root.length + 1) };
        if (args.kind === 'entry-point') return { path: args.path, namespace: 'app' };
        const specifier = args.path;
        // Where the app's bundle would take the renderer from the Library (below), a shim stands in.
        const shim = shims?.get(args.namespace === 'lib' ? selectedSpecifier(state.renderer, specifier) : specifier);
        if (shim && (args.namespace === 'lib' || target === 'client')) return { path: shim.path, namespace: 'lib' };
        if (args.namespace === 'lib') {
          // The renderers' own files require each other (react-dom requires react and scheduler).
          const path = !specifier.startsWith('.') && !specifier.startsWith('platform/') ? libraryPackageFile(library, selectedSpecifier(state.renderer, specifier)) : undefined;
          if (path) return { path, namespace: 'lib' };
          if (specifier.startsWith('.')) {
            const path = libraryRelative(library, args.importer, specifier);
            return path ? { path, namespace: 'lib' } : { errors: [{ text: `Cannot resolve ${specifier} in the platform library` }] };
          }
        } else if (specifier.startsWith('.')) {
          const stat = (path: string) => state.stats.get(path) ?? (state.stats.set(path, statOf(state, path)), state.stats.get(path)!);
          const resolved = await resolveRelative({ fs: { stat } }, args.importer, specifier);
          // In the native mode a script stays in esbuild's own namespace, so that it is one module however it is named.
          if (resolved.path && native && NATIVE_SCRIPT.test(resolved.path)) return { path: `${root}/${resolved.path}`, namespace: 'file' };
          if (resolved.path) return { path: resolved.path, namespace: 'app' };
          return { errors: [{ text: `Could not resolve "${specifier}"` }] };
        }
        if (specifier.startsWith('/')) return { errors: [{ text: `Could not resolve "${specifier}"` }] };
        if (specifier === PLATFORM_MODULES[target as keyof typeof PLATFORM_MODULES] || (args.namespace === 'lib' && specifier.startsWith('platform/'))) {
          return { path: `${PLATFORM_MODULES_ROOT}/${specifier}.ts`, namespace: 'lib' };
        }
        if (target === 'client' && RENDERERS[state.renderer].entrypoints.includes(specifier)) {
          const path = libraryPackageFile(library, specifier);
          if (path) return { path, namespace: 'lib' };
        }
        if (isNodeBuiltin(specifier)) {
          if (args.importer.startsWith('node_modules/')) state.builtinsFromDependencies.push({ specifier, importer: args.importer });
          return { errors: [{ text: `"${specifier}" is a server-runtime built-in module` }] };
        }
        const path = await resolvePackage(state.fs, specifier);
        return path ? { path, namespace: 'app' } : { errors: [{ text: `Could not resolve "${specifier}"` }] };
      };
      if (root === undefined) build.onResolve({ filter: /.*/ }, resolve);
      else {
        // esbuild resolves and reads a project script's relative imports of scripts itself (no call to this thread); the rest comes here.
        build.onResolve({ filter: pluginSpecifiers(Object.keys(onDisk?.alias ?? {})), namespace: 'file' }, resolve);
        build.onResolve({ filter: /.*/, namespace: 'app' }, resolve);
        build.onResolve({ filter: /.*/, namespace: 'lib' }, resolve);
      }
      build.onLoad({ filter: /.*/, namespace: 'app' }, async (args) => {
        const loader = loaderFor(args.path);
        // A script or JSON file the analysis read is bundled as it was read (and type-checked).
        const text = SNAPSHOT_LOADERS.has(loader) ? state.snapshot?.texts.get(args.path) : undefined;
        if (text !== undefined) {
          // Encoded once per text, not on every rebuild (esbuild takes bytes).
          let kept = state.encoded.get(args.path);
          if (kept?.text !== text) state.encoded.set(args.path, (kept = { text, bytes: encoder.encode(text) }));
          return { contents: kept.bytes, loader };
        }
        const contents = await state.fs.readBytes(args.path);
        if (contents === undefined) return { errors: [{ text: `Cannot read ${args.path}` }] };
        return { contents, loader };
      });
      build.onLoad({ filter: /.*/, namespace: 'lib' }, (args) => {
        const contents = shimContents.get(args.path) ?? library.files.get(args.path);
        if (contents === undefined) return { errors: [{ text: `The platform library has no ${args.path}` }] };
        return { contents, loader: loaderFor(args.path) };
      });
    },
  };
}

function messageToDiagnostic(message: Message, target: BuildTarget): Diagnostic {
  const location = message.location;
  // esbuild names a file of a plugin namespace `<namespace>:<path>`.
  const file = location?.file.startsWith('app:') ? normalizeProjectPath(location.file.slice('app:'.length)) : undefined;
  return diagnostic('DG1501', `Bundling the ${target} failed: ${message.text}`, {
    file,
    span: file && location ? { line: location.line, column: location.column + 1, ...(location.length ? { length: location.length } : {}) } : undefined,
    hint: message.notes[0]?.text,
  });
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** The document at `/`: the client bundle, the manifest's title, language, description and favicon. */
export function generateIndexHtml(manifest: Manifest, hasCss: boolean): string {
  const app = manifest.app ?? {};
  const head = [
    '<meta charset="utf-8" />',
    '<meta name="viewport" content="width=device-width, initial-scale=1" />',
    `<title>${escapeHtml(app.title ?? manifest.name)}</title>`,
    app.description ? `<meta name="description" content="${escapeHtml(app.description)}" />` : '',
    app.favicon ? `<link rel="icon" href="${escapeHtml(app.favicon)}" />` : '',
    hasCss ? `<link rel="stylesheet" href="${CLIENT_ASSET_PREFIX}/app.css" />` : '',
    `<script type="module" src="${CLIENT_ASSET_PREFIX}/app.js"></script>`,
  ].filter(Boolean);
  return `<!doctype html>\n<html lang="${escapeHtml(app.language ?? 'en')}">\n  <head>\n    ${head.join('\n    ')}\n  </head>\n  <body>\n    <div id="app"></div>\n  </body>\n</html>\n`;
}

function stem(path: string): string {
  return path.replace(/\.[^./]+$/, '');
}

/** Where the outputs of a build with `root` (the native mode) or without are named: the prefix of their artifact paths. */
const outRoot = (root: string | undefined) => (root === undefined ? '/out/' : `${root}/${NATIVE_OUT}/`);

function buildOptions(target: BuildTarget, entryPoints: Array<{ in: string; out: string }>, renderer: Renderer, plugin: Plugin, root?: string, alias?: Record<string, string>): BuildOptions & { write: false; metafile: true } {
  const client = target === 'client';
  return {
    // The native mode names the entries from the project's directory, so that esbuild resolves them itself.
    entryPoints: root === undefined ? entryPoints : entryPoints.map((entry) => ({ ...entry, in: `./${entry.in}` })),
    bundle: true,
    write: false,
    // Fixed, so metafile keys and source-map paths are the same on every host (the native mode: the project's files named by their project paths).
    absWorkingDir: root ?? '/',
    ...(root === undefined ? {} : { resolveExtensions: NATIVE_EXTENSIONS, tsconfigRaw: '{}' }),
    ...(alias && Object.keys(alias).length ? { alias } : {}),
    outdir: `${outRoot(root)}${client ? 'client' : target === 'server' ? 'server' : 'tests'}`,
    assetNames: 'assets/[name]-[hash]',
    ...(client ? { publicPath: CLIENT_ASSET_PREFIX } : {}),
    format: 'esm',
    platform: client ? 'browser' : 'neutral',
    target: 'es2022',
    minify: client,
    jsx: 'automatic',
    jsxImportSource: RENDERERS[renderer].jsxImportSource,
    sourcemap: 'external',
    sourcesContent: !client,
    metafile: true,
    legalComments: 'none',
    charset: 'utf8',
    logLevel: 'silent',
    define: { 'process.env.NODE_ENV': '"production"' },
    plugins: [plugin],
  };
}

/** What bundles a project for a compile: a `Bundler` here, or one in another worker. */
export interface ProjectBundler {
  bundle(project: Project, targets?: readonly BuildTarget[], options?: BundleOptions): Promise<BundleResult>;
  dispose(): Promise<void>;
  /**
   * It bundles off this thread: a compile starts it before the type check and waits for it after, so
   * the two run at once. A bundler on this thread (esbuild's plugin reads the files here) is waited for
   * before the check instead.
   */
  readonly offThread?: boolean;
}

/** The preview's vendor script of a renderer: minified, a classic script (an IIFE) that sets PREVIEW_VENDOR_GLOBAL. */
export interface PreviewVendor {
  /** Its marks included, and its last line break. */
  code: string;
  /** Its line breaks: the app's source map is shifted down by as many lines. */
  lines: number;
}

type ClientContext = BuildContext<BuildOptions & { write: false; metafile: true }>;

/**
 * Bundles projects with one esbuild context per target, kept between builds: a rebuild goes through
 * the plugin for every module again (esbuild re-runs a plugin's callbacks on each rebuild), but takes a
 * project's sources from the analysis's snapshot instead of reading them, and esbuild re-parses only
 * what changed. In the native mode (`directoryOf`) the client's and the server's contexts leave the
 * project's scripts to esbuild, with no callback for them. The playground's compiler worker keeps one; the CLI makes one per command. A
 * preview's React client has a context of its own (its renderer comes from the vendor script), so
 * previews and artifacts built in turn each stay incremental.
 */
export class Bundler implements ProjectBundler {
  readonly #esbuild: EsbuildApi;
  readonly #library: Library;
  readonly #contexts = new Map<string, { key: string; context: Promise<ClientContext>; state: PluginState }>();
  readonly #vendors = new Map<Renderer, Promise<PreviewVendor>>();
  readonly #directoryOf: ((fs: FileSystem) => string | undefined) | undefined;
  readonly #libraryOnDisk: (() => ReadonlyMap<string, string>) | undefined;
  /** The host's answer to `libraryOnDisk`, asked once. */
  #onDisk: ReadonlyMap<string, string> | undefined;
  /** Each target and renderer's NativeLibrary, made once for the Bundler's life. */
  readonly #nativeLibraries = new Map<string, NativeLibrary | undefined>();

  /**
   * `options.directoryOf`: the absolute POSIX directory a project's file system reads, where esbuild can
   * read the same files itself (a native esbuild on the host's disk), else undefined. With it, the client
   * and server of a project with a snapshot are bundled in the native mode: esbuild resolves and reads
   * the project's scripts itself, with no call to this thread per module (a 500-file app made two
   * thousand of them on every rebuild), and the build is taken only when what esbuild read is what the
   * snapshot holds (`nativeReadsMatch`), else it is made again through the plugin.
   */
  constructor(esbuild: EsbuildApi, library: Library, options: { directoryOf?(fs: FileSystem): string | undefined; libraryOnDisk?(): ReadonlyMap<string, string> } = {}) {
    this.#esbuild = esbuild;
    this.#library = library;
    this.#directoryOf = options.directoryOf;
    this.#libraryOnDisk = options.libraryOnDisk;
  }

  /**
   * The native mode's Library on disk for a target (see NativeLibrary), when `libraryOnDisk` (Library
   * path → absolute path of a file holding the same text, asked once) has every file the target's bare
   * platform specifiers name; else none, and they go through the plugin. Not for React, whose client
   * takes `preact/hooks` from React (selectedSpecifier).
   */
  #nativeLibrary(target: BuildTarget, renderer: Renderer): NativeLibrary | undefined {
    if (!this.#libraryOnDisk || renderer === 'react' || target === 'test') return undefined;
    const key = `${target}:${renderer}`;
    if (!this.#nativeLibraries.has(key)) this.#nativeLibraries.set(key, this.#makeNativeLibrary(target, renderer, (this.#onDisk ??= this.#libraryOnDisk())));
    return this.#nativeLibraries.get(key);
  }

  #makeNativeLibrary(target: BuildTarget, renderer: Renderer, onDisk: ReadonlyMap<string, string>): NativeLibrary | undefined {
    const specifiers = [PLATFORM_MODULES[target], ...(target === 'client' ? RENDERERS[renderer].entrypoints : [])];
    const alias: Record<string, string> = {};
    for (const specifier of specifiers) {
      const path = specifier.startsWith('platform/') ? `${PLATFORM_MODULES_ROOT}/${specifier}.ts` : libraryPackageFile(this.#library, specifier);
      const disk = path === undefined ? undefined : onDisk.get(path);
      if (disk === undefined) return undefined;
      alias[specifier] = disk;
    }
    return { alias, pathOf: new Map([...onDisk].map(([path, disk]) => [disk, path])) };
  }

  async #context(target: BuildTarget, entryPoints: Array<{ in: string; out: string }>, fs: FileSystem, snapshot: ProjectSnapshot | undefined, renderer: Renderer, vendored: readonly string[] | undefined, root?: string, onDisk?: NativeLibrary) {
    const key = JSON.stringify([entryPoints, renderer, root ?? null, onDisk?.alias ?? null]);
    const slot = `${target}${vendored ? ':preview' : ''}${root === undefined ? '' : ':native'}`;
    let entry = this.#contexts.get(slot);
    if (entry && entry.key !== key) {
      void (await entry.context).dispose();
      entry = undefined;
    }
    if (!entry) {
      const state: PluginState = { fs, stats: new Map(), encoded: new Map(), renderer, builtinsFromDependencies: [] };
      const plugin = platformPlugin(this.#library, target, state, vendored && vendorShims(vendored), root, onDisk);
      entry = { key, state, context: this.#esbuild.context(buildOptions(target, entryPoints, renderer, plugin, root, onDisk?.alias)) };
      this.#contexts.set(slot, entry);
    }
    entry.state.fs = fs;
    entry.state.snapshot = snapshot;
    // What a deleted file left is let go of.
    if (snapshot) for (const path of entry.state.encoded.keys()) if (!snapshot.texts.has(path)) entry.state.encoded.delete(path);
    entry.state.stats = new Map();
    entry.state.builtinsFromDependencies = [];
    return entry;
  }

  /**
   * The vendor script of a renderer, built once per Bundler (its Library is fixed, so once per renderer
   * and library version): the renderer's entrypoints required from the Library, with the client's
   * options (minified, production React), as a script that sets PREVIEW_VENDOR_GLOBAL.
   */
  previewVendor(renderer: Renderer): Promise<PreviewVendor> | undefined {
    const entrypoints = vendoredEntrypoints(renderer);
    if (!entrypoints) return undefined;
    let vendor = this.#vendors.get(renderer);
    if (!vendor) {
      const entry = 'vendor.js';
      // The vendor's source is CommonJS for esbuild to bundle (React is CommonJS): the text names `require`, the core never calls it.
      const load = (specifier: string) => `${COMMONJS_REQUIRE}(${JSON.stringify(specifier)})`;
      const source = `globalThis[${JSON.stringify(PREVIEW_VENDOR_GLOBAL)}] = {\n${entrypoints.map((e) => `  ${JSON.stringify(e)}: ${load(e)},`).join('\n')}\n};\n`;
      const state: PluginState = { fs: new MemoryFileSystem({ [entry]: source }), stats: new Map(), encoded: new Map(), renderer, builtinsFromDependencies: [] };
      const options = buildOptions('client', [{ in: entry, out: 'vendor' }], renderer, platformPlugin(this.#library, 'client', state));
      vendor = this.#esbuild.build({ ...options, format: 'iife', sourcemap: false, metafile: false } as typeof options).then((result) => {
        const built = new TextDecoder().decode(result.outputFiles.find((o) => o.path.endsWith('.js'))!.contents);
        // Marked, so that a preview frame loaded ahead can run it before the next build is known (preview-vendor.ts).
        const code = `${PREVIEW_VENDOR_START}\n${built.endsWith('\n') ? built : `${built}\n`}${PREVIEW_VENDOR_END}\n`;
        return { code, lines: lineBreaks(code) };
      });
      vendor.catch(() => this.#vendors.delete(renderer));
      this.#vendors.set(renderer, vendor);
    }
    return vendor;
  }

  /** Bundles the given targets of a project (all three for an artifact; client and server for a preview). */
  async bundle(project: Project, targets: readonly BuildTarget[] = ALL_TARGETS, options: BundleOptions = {}): Promise<BundleResult> {
    const { fs } = project;
    const renderer = project.renderer ?? DEFAULT_RENDERER;
    const files = new Map<string, Uint8Array>();
    const diagnostics: Diagnostic[] = [];
    let clientMeta: Metafile | undefined;
    const entries: Record<BuildTarget, Array<{ in: string; out: string }>> = {
      client: [{ in: project.clientEntry, out: 'app' }],
      server: [{ in: project.serverEntry, out: 'index' }],
      test: project.testFiles.map((f) => ({ in: f, out: stem(f.slice('tests/'.length)) })),
    };
    // A preview's React client: its bundle without React, the vendor script (built once) put before it.
    const vendor = options.preview && targets.includes('client') ? this.previewVendor(renderer) : undefined;
    // The native mode: a project on disk with its snapshot, for the client and the server (the tests' bundles go through the plugin).
    const directory = project.snapshot && this.#directoryOf?.(fs);
    const root = directory?.startsWith('/') ? directory.replace(/\/+$/, '') : undefined;
    const native: BuildTarget[] = [];
    const run = async (target: BuildTarget, preview = vendor !== undefined) => {
      if (entries[target].length === 0) return;
      const vendored = preview && target === 'client' ? vendoredEntrypoints(renderer) : undefined;
      if (root !== undefined && target !== 'test') {
        const onDisk = vendored ? undefined : this.#nativeLibrary(target, renderer);
        const { context } = await this.#context(target, entries[target], fs, project.snapshot, renderer, vendored, root, onDisk);
        // A failed build, or one that read other files than the snapshot's, is made again through the plugin, whose messages and reads are the reference.
        const result = await (await context).rebuild().catch(() => undefined);
        const named = nativeNamer(root, onDisk?.pathOf);
        if (result && (await nativeReadsMatch(result.metafile, fs, project.snapshot!, named, this.#library))) {
          const inputs = new Map(Object.keys(result.metafile.inputs).filter((input) => !/^[a-z]+:/.test(input)).map((input) => [input, named(input, '')]));
          for (const output of result.outputFiles ?? []) files.set(output.path.slice(outRoot(root).length), nativeOutput(output.path, output.contents, target, inputs, named));
          if (target === 'client') clientMeta = nativeMetafile(result.metafile, named);
          native.push(target);
          return;
        }
      }
      const { context, state } = await this.#context(target, entries[target], fs, project.snapshot, renderer, vendored);
      try {
        const result = await (await context).rebuild();
        for (const output of result.outputFiles ?? []) files.set(output.path.slice(outRoot(undefined).length), output.contents);
        if (target === 'client') clientMeta = result.metafile;
      } catch (error) {
        const messages = (error as { errors?: Message[] }).errors ?? [];
        if (!messages.length) throw error;
        for (const message of messages) {
          const builtin = state.builtinsFromDependencies.find((b) => message.text.includes(`"${b.specifier}"`));
          if (builtin) {
            diagnostics.push(diagnostic('DG1502', `The dependency file ${builtin.importer} imports the server-runtime built-in "${builtin.specifier}".`, { hint: 'Choose a package that runs in browsers and workers, or one with a browser build.' }));
          } else {
            diagnostics.push(messageToDiagnostic(message, target));
          }
        }
      }
    };
    await Promise.all(targets.map((target) => run(target)));
    if (!vendor || !files.has('client/app.js')) return { ...(await finish(project, files, diagnostics, clientMeta)), ...(native.length ? { native: native.sort() } : {}) };
    withVendor(files, await vendor);
    if (!nearLimits(project, files, clientMeta)) return { ...(await finish(project, files, diagnostics, clientMeta)), ...(native.length ? { native: native.sort() } : {}) };
    // Near a limit the preview's figures (a few hundred bytes off an artifact's) could decide otherwise
    // than the artifact's: the diagnostics and sizes come from the client bundled as for an artifact.
    const preview = new Map([...files].filter(([path]) => path.startsWith('client/')));
    for (const path of preview.keys()) files.delete(path);
    clientMeta = undefined;
    await run('client', false);
    const result = await finish(project, files, diagnostics, clientMeta);
    for (const path of [...result.files.keys()]) if (path.startsWith('client/') && path !== 'client/index.html') result.files.delete(path);
    for (const [path, bytes] of preview) if (path !== 'client/index.html') result.files.set(path, bytes);
    return result;
  }

  async dispose(): Promise<void> {
    const contexts = [...this.#contexts.values()];
    this.#contexts.clear();
    await Promise.all(contexts.map(async (entry) => (await entry.context).dispose()));
  }
}

/**
 * Whether a native-mode build read what the plugin would have given it: every project file in it is one
 * the snapshot lists (nothing outside the project, under node_modules or a dot-folder, nor reached
 * through a link out of it), each script as the snapshot holds it (its length as esbuild read it, and
 * its text on disk now: a save since the snapshot shows there, and a build it would not match is made
 * again through the plugin), and each relative import esbuild resolved itself names the file
 * `resolveRelative` names. A Library file read from disk (NativeLibrary) is one the Library has, of
 * its text's length (the host listed it because it held that text), whose relative imports name the
 * files `libraryRelative` names. The files esbuild reads are read again here, without a call per module
 * from esbuild: one read each, at once.
 */
async function nativeReadsMatch(metafile: Metafile, fs: FileSystem, snapshot: ProjectSnapshot, named: NativeNamer, library: Library): Promise<boolean> {
  const inputs = Object.entries(metafile.inputs).filter(([path]) => !/^[a-z]+:/.test(path));
  const project: string[] = [];
  for (const [path, input] of inputs) {
    const name = named(path, '');
    if (name.startsWith('lib:')) {
      const libraryPath = name.slice('lib:'.length);
      const text = library.files.get(libraryPath);
      if (text === undefined || !NATIVE_SCRIPT.test(libraryPath) || input.bytes !== encoder.encode(text).byteLength) return false;
      for (const imported of input.imports) {
        if (imported.external || /^[a-z]+:/.test(imported.path) || !imported.original?.startsWith('.')) continue;
        if (named(imported.path, '') !== `lib:${libraryRelative(library, libraryPath, imported.original)}`) return false;
      }
      continue;
    }
    if (name !== `app:${path}`) return false;
    const text = snapshot.texts.get(path);
    if (text === undefined || snapshotStat(snapshot, path) !== 'file' || !NATIVE_SCRIPT.test(path)) return false;
    // Most texts are ASCII: their length is their UTF-8 size.
    if (input.bytes !== text.length && input.bytes !== encoder.encode(text).byteLength) return false;
    for (const imported of input.imports) {
      if (imported.external || /^[a-z]+:/.test(imported.path) || !imported.original?.startsWith('.')) continue;
      const resolved = await resolveRelative({ fs: { stat: async (candidate) => { const kind = snapshotStat(snapshot, candidate); return kind === 'unlisted' ? undefined : kind; } } }, path, imported.original);
      if (resolved.path !== imported.path) return false;
    }
    project.push(path);
  }
  const now = await Promise.all(project.map((path) => fs.readText(path)));
  return project.every((path, i) => now[i] === snapshot.texts.get(path));
}

/**
 * A native-mode build's file names as the plugin's build names them: a project file `app:src/a.ts`, a
 * Library file read from disk `lib:/node_modules/…`. `name` is as esbuild wrote it, relative to the
 * project's directory after `from` (a source map's `../../../src/a.ts` from its output folder, a
 * metafile's `src/a.ts`); a name with a namespace stays as it is.
 */
type NativeNamer = (name: string, from: string) => string;

function nativeNamer(root: string, pathOf: ReadonlyMap<string, string> | undefined): NativeNamer {
  return (name, from) => {
    if (/^[a-z]+:/.test(name)) return name;
    const parts: string[] = [];
    for (const segment of `${root}/${from}${name}`.split('/')) {
      if (segment === '..') parts.pop();
      else if (segment && segment !== '.') parts.push(segment);
    }
    const absolute = `/${parts.join('/')}`;
    const libraryPath = pathOf?.get(absolute);
    if (libraryPath !== undefined) return `lib:${libraryPath}`;
    return absolute.startsWith(`${root}/`) ? `app:${absolute.slice(root.length + 1)}` : `file:${absolute}`;
  };
}

/**
 * A native-mode output as the plugin's build makes it, byte for byte: esbuild's comment naming each
 * module (`// src/a.ts`, the server's unminified code) and its source map's `sources` (`../../../src/a.ts`)
 * name the files as the plugin's build does (`named`). `inputs`: the files esbuild read itself, by the
 * name it gave them → the plugin's name. The source map's line of sources is rewritten, not the whole
 * map (esbuild writes it on a line of its own, as `"sources": ["…", "…"],`).
 */
function nativeOutput(path: string, contents: Uint8Array, target: BuildTarget, inputs: ReadonlyMap<string, string>, named: NativeNamer): Uint8Array {
  if (path.endsWith('.js')) {
    const code = new TextDecoder().decode(contents);
    const renamed = code.replace(/^\/\/ (.+)$/gm, (line, name: string) => (inputs.has(name) ? `// ${inputs.get(name)}` : line));
    return renamed === code ? contents : encoder.encode(renamed);
  }
  if (!path.endsWith('.map')) return contents;
  const text = new TextDecoder().decode(contents);
  return encoder.encode(
    text.replace(/^ {2}"sources": \[(.*)\],$/m, (line, list: string) => {
      const sources = JSON.parse(`[${list}]`) as string[];
      return `  "sources": [${sources.map((source) => JSON.stringify(named(source, `${NATIVE_OUT}/${target}/`))).join(', ')}],`;
    }),
  );
}

/** A native-mode metafile as the plugin's build names it: inputs `app:…` and `lib:…`, outputs under `out/`. */
function nativeMetafile(metafile: Metafile, named: NativeNamer): Metafile {
  const rename = (name: string) => named(name, '');
  const outputs: Metafile['outputs'] = {};
  for (const [path, output] of Object.entries(metafile.outputs)) {
    outputs[`out/${path.slice(NATIVE_OUT.length + 1)}`] = { ...output, inputs: Object.fromEntries(Object.entries(output.inputs).map(([input, info]) => [rename(input), info])) };
  }
  return { inputs: Object.fromEntries(Object.entries(metafile.inputs).map(([input, info]) => [rename(input), info])), outputs };
}

/**
 * `client/app.js` becomes the vendor script and then the app's bundle, one file as before; its source
 * map's mappings move down by the vendor's lines (a `;` per line), so the app's lines map as they did.
 */
function withVendor(files: Map<string, Uint8Array>, vendor: PreviewVendor): void {
  const app = files.get('client/app.js')!;
  // The script ends with a line break (after its end mark): the app's bundle starts on a line of its own.
  const head = encoder.encode(vendor.code);
  const joined = new Uint8Array(head.byteLength + app.byteLength);
  joined.set(head);
  joined.set(app, head.byteLength);
  files.set('client/app.js', joined);
  const mapBytes = files.get('client/app.js.map');
  if (mapBytes) {
    const map = JSON.parse(new TextDecoder().decode(mapBytes)) as { mappings: string };
    map.mappings = ';'.repeat(vendor.lines) + map.mappings;
    files.set('client/app.js.map', encoder.encode(JSON.stringify(map)));
  }
}

/** Bundles every target once, with contexts made and disposed for this call. */
export async function bundleProject(esbuild: EsbuildApi, library: Library, project: Project, targets: readonly BuildTarget[] = ALL_TARGETS): Promise<BundleResult> {
  const bundler = new Bundler(esbuild, library);
  try {
    return await bundler.bundle(project, targets);
  } finally {
    await bundler.dispose();
  }
}

/** The app's own share of the client: the bytes of every input the platform did not supply (`lib:`: its modules and the renderer). */
function appShareOf(clientMeta: Metafile | undefined): number {
  let bytes = 0;
  for (const [input, info] of Object.entries(clientMeta?.outputs['out/client/app.js']?.inputs ?? {})) if (!input.startsWith('lib:')) bytes += info.bytesInOutput;
  return bytes;
}

/**
 * How close a preview's client figures may come to a limit (the budget, the module limit, the app's
 * share advisory) and still be taken for an artifact's: 5% of the limit. They differ by the vendor
 * script's wrapper and the shims (about 300 bytes for todo-react) and by the minifier's names in the
 * app's own code (15 bytes there), far less than that.
 */
const PREVIEW_MARGIN = 0.05;

function nearLimits(project: Project, files: ReadonlyMap<string, Uint8Array>, clientMeta: Metafile | undefined): boolean {
  const js = files.get('client/app.js')?.byteLength ?? 0;
  const clientBytes = js + (files.get('client/app.css')?.byteLength ?? 0);
  const near = (value: number, limit: number) => Math.abs(value - limit) <= limit * PREVIEW_MARGIN;
  return near(clientBytes, project.manifest.budgets?.clientBundleBytes ?? CLIENT_BUNDLE_DEFAULT) || near(js, MODULE_LIMIT) || near(appShareOf(clientMeta), APP_SHARE_ADVISORY);
}

/** Public files, the generated document, and the size and renderer checks over what esbuild produced. */
async function finish(project: Project, files: Map<string, Uint8Array>, diagnostics: Diagnostic[], clientMeta: Metafile | undefined): Promise<BundleResult> {
  const { fs } = project;
  // Public files: served at /, so they may not claim the generated document or a reserved prefix.
  for (const path of await listFiles(fs, 'public')) {
    const served = path.slice('public/'.length);
    const bytes = (await fs.readBytes(path)) ?? new Uint8Array();
    if (served === 'index.html') {
      diagnostics.push(diagnostic('DG1402', 'public/index.html collides with the generated document at /index.html.', { file: path, hint: 'Remove public/index.html: the platform generates the document from the manifest (app.title, app.language, app.description, app.favicon).' }));
      continue;
    }
    const reserved = RESERVED_PREFIXES.find((prefix) => served.startsWith(prefix));
    if (reserved) {
      diagnostics.push(diagnostic('DG1403', `${path} claims the reserved path /${reserved}.`, { file: path, hint: 'Paths under /_platform/, /__platform/ and /_xa/ belong to the platform: move the file.' }));
      continue;
    }
    if (bytes.byteLength > ASSET_LIMIT) {
      diagnostics.push(diagnostic('DG1401', `${path} is ${bytes.byteLength} bytes, over the 25 MiB asset limit.`, { file: path, hint: 'Store large files with ctx.storage instead of shipping them as assets.' }));
      continue;
    }
    files.set(`public/${served}`, bytes);
  }

  const clientJs = files.get('client/app.js');
  const clientCss = files.get('client/app.css');
  if (clientJs) files.set('client/index.html', encoder.encode(generateIndexHtml(project.manifest, clientCss !== undefined)));
  for (const [path, bytes] of files) {
    if (/\.(m?js|css)$/.test(path) && bytes.byteLength > MODULE_LIMIT) {
      diagnostics.push(diagnostic('DG1401', `The compiled module ${path} is ${bytes.byteLength} bytes, over the 10 MiB limit.`, { hint: 'Split the code or drop large dependencies.' }));
    }
  }

  const clientBytes = (clientJs?.byteLength ?? 0) + (clientCss?.byteLength ?? 0);
  const appShareBytes = appShareOf(clientMeta);
  const output = clientMeta?.outputs['out/client/app.js'];
  if (output) {
    const selected = project.renderer ?? DEFAULT_RENDERER;
    const copies: string[] = [];
    for (const input of Object.keys(output.inputs)) {
      // The platform supplies the renderers (from lib:); one from the app's node_modules is a copy.
      const match = /^app:node_modules\/(preact|react|react-dom)\//.exec(input);
      if (match && !copies.includes(match[1]!)) copies.push(match[1]!);
    }
    const selectedName = selected === 'react' ? 'React' : 'Preact';
    for (const name of copies) {
      const second = RENDERERS[selected].packages.includes(name);
      diagnostics.push(
        diagnostic('DG1503', second ? `The client bundle would contain a second copy of ${name}, from the app's node_modules.` : `The client bundle would contain ${name}, a renderer this application did not select (it renders with ${selectedName}).`, {
          hint: `Remove the dependency that brings it in, or choose one built for ${selectedName}; the platform supplies the renderer.`,
        }),
      );
    }
  }
  const budget = project.manifest.budgets?.clientBundleBytes ?? CLIENT_BUNDLE_DEFAULT;
  if (clientJs && clientBytes > budget) {
    diagnostics.push(diagnostic('DG1405', `The minified client bundle is ${clientBytes} bytes, over its budget of ${budget} bytes.`, { file: project.clientEntry, hint: 'Remove large dependencies or assets from the client, or raise budgets.clientBundleBytes (up to 10485760).' }));
  }
  if (appShareBytes > APP_SHARE_ADVISORY) {
    diagnostics.push(diagnostic('DG1406', `The application's own share of the client bundle is ${appShareBytes} bytes, over the 400 KiB advisory tier.`, { file: project.clientEntry, hint: 'Consider trimming dependencies or splitting rarely used screens.' }));
  }
  return { files, sizes: { clientBytes, appShareBytes }, diagnostics };
}
