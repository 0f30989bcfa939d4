/**
 * A project's first preview without esbuild: each module made JavaScript by Sucrase (types removed,
 * JSX and `import`/`export` made CommonJS, lines kept), then linked here into one script per side that
 * evaluates the modules in the order ES modules are evaluated. The playground shows it while its
 * compiler (esbuild-wasm, 14 MB, and TypeScript) starts, for a project that has no prebuilt or stored
 * build (a share link, a bug report, a zip); the type check follows, and the next build is esbuild's.
 *
 * It takes only what it can link exactly as esbuild would run it; anything else is declined with its
 * reason, and the caller bundles with esbuild as before: React, npm packages, Node's modules, assets
 * other than plain stylesheets and JSON, `import.meta`, top-level `await`, import cycles, code Sucrase
 * or the parser refuses, a server importing the client's platform module (or the reverse), public
 * files the bundler refuses, and a client near its budget. Bundle diagnostics are esbuild's to give.
 */
import type { Result } from '../result.ts';
import { transform, type Transform } from 'sucrase';
import { parse, type Node } from 'acorn';
import { encode, type SourceMapSegment } from '@jridgewell/sourcemap-codec';
import { resolveRelative, assetKind, PLATFORM_MODULES, RENDERERS, PLATFORM_MODULES_ROOT, type Library } from '../project/index.ts';
import { MemoryFileSystem, normalizeProjectPath } from '../fs/index.ts';
import { MANIFEST_FILE, type Manifest } from '../manifest/index.ts';
import { ASSET_LIMIT, CLIENT_BUNDLE_DEFAULT, generateIndexHtml, libraryPackageFile, libraryRelative, RESERVED_PREFIXES } from '../bundle/index.ts';

/** The first line of a quick preview's scripts: says what made them. */
export const QUICK_BUNDLE_MARK = '// platform: a quick preview bundle (Sucrase, linked by quick-bundle.ts), not esbuild';

export type QuickBundle = Result<{ files: Map<string, Uint8Array> }, { reason: string }>;

/** The most text (characters, every text file) the quick preview makes: about 4 MB of sources; 200 generated files hold 0.1 MB. */
export const QUICK_SOURCE_LIMIT = 4 * 1024 * 1024;

/** Why the quick path declined a project: the caller bundles it with esbuild. */
class Declined extends Error {}
const decline = (reason: string): never => {
  throw new Declined(reason);
};

type Side = 'client' | 'server';

/** A module made and resolved, ready to link (plain data: a Library's are made once, at build time for the playground). */
interface Linked {
  /** `app:<project path>` or `lib:<library path>`, as esbuild names its inputs in source maps. */
  id: string;
  kind: 'script' | 'css' | 'json';
  /** The module's code (scripts: Sucrase's, CommonJS; JSON: its text). */
  code: string;
  /** The text it was made from, for the server's source map. */
  source: string;
  /** Each specifier required → the module it names. */
  resolved: Record<string, string>;
  /** The modules required at its top level (its `import`s, moved to its start), in order: evaluated before its body. */
  before: string[];
}

/**
 * The Library's modules as the quick preview links them: every platform module and Preact entrypoint,
 * and what they import, made by `quickLibrary`. Each side's bare specifiers → module id.
 */
export interface QuickLibrary {
  modules: Record<string, Linked>;
  entries: Record<Side, Record<string, string>>;
}

const encoder = new TextEncoder();
const SCRIPT = /\.(tsx?|mts|cts|jsx?|mjs|cjs)$/;

/** The platform module and renderer entrypoints each side may take from the Library (specifier → its file); any other bare specifier is declined. */
function libraryEntries(library: Library): Record<Side, Record<string, string>> {
  const preact = Object.fromEntries(RENDERERS.preact.entrypoints.flatMap((specifier) => {
    const path = libraryPackageFile(library, specifier);
    return path === undefined ? [] : [[specifier, path]];
  }));
  return {
    server: { [PLATFORM_MODULES.server]: `${PLATFORM_MODULES_ROOT}/platform/server.ts` },
    client: { [PLATFORM_MODULES.client]: `${PLATFORM_MODULES_ROOT}/platform/client.ts`, ...preact },
  };
}

const made = new WeakMap<Library, QuickLibrary>();

/** The Library's modules made and resolved for the quick preview, once per Library (the playground makes them at build time: vite.config.ts). */
export function quickLibrary(library: Library): QuickLibrary {
  const known = made.get(library);
  if (known) return known;
  const files = libraryEntries(library);
  const entries = { server: {} as Record<string, string>, client: {} as Record<string, string> };
  const modules: Record<string, Linked> = {};
  // Inside the Library a bare specifier names the same module whichever side imports it (Preact's hooks import `preact`).
  const bare: Record<string, string> = { ...files.server, ...files.client };
  const pending = Object.values(bare);
  for (const side of ['server', 'client'] as const) for (const [specifier, path] of Object.entries(files[side])) entries[side][specifier] = `lib:${path}`;
  while (pending.length) {
    const path = pending.pop()!;
    const id = `lib:${path}`;
    if (modules[id]) continue;
    const text = library.files.get(path);
    if (text === undefined) throw new Error(`The Library has no ${path}.`);
    const { code, required, before } = scriptOf(path, text);
    const resolved: Record<string, string> = {};
    for (const specifier of required) {
      const target = specifier.startsWith('.') ? libraryRelative(library, path, specifier) : bare[specifier];
      if (target === undefined) throw new Error(`${path} imports "${specifier}", which the Library does not hold.`);
      resolved[specifier] = `lib:${target}`;
      pending.push(target);
    }
    modules[id] = { id, kind: 'script', code, source: text, resolved, before: before.map((specifier) => resolved[specifier]!) };
  }
  const out = { modules, entries };
  made.set(library, out);
  return out;
}

/** Every node of `node`'s tree. */
function* walk(node: Node): Generator<Node> {
  yield node;
  for (const value of Object.values(node)) {
    if (Array.isArray(value)) {
      for (const item of value) if (item && typeof item === 'object' && typeof (item as Node).type === 'string') yield* walk(item as Node);
    } else if (value && typeof value === 'object' && typeof (value as Node).type === 'string') yield* walk(value as Node);
  }
}

/** `process.env.NODE_ENV`, which the bundler defines as "production". */
function isNodeEnv(node: Node): boolean {
  const member = node as Node & { object?: Node & { object?: Node & { name?: string }; property?: Node & { name?: string } }; property?: Node & { name?: string }; computed?: boolean };
  return node.type === 'MemberExpression' && !member.computed && member.property?.name === 'NODE_ENV' && member.object?.type === 'MemberExpression' && member.object.property?.name === 'env' && member.object.object?.type === 'Identifier' && member.object.object.name === 'process';
}

/**
 * What Sucrase writes for one `import` or `export … from`, in the import's place: the require, then on
 * the same line the bindings made from it (a default or namespace import, a re-export). Sucrase writes
 * exactly these forms, so they are found by their text, not a parse. An app's own statement of that
 * very text (a CommonJS `var _x = require('x');`) would move too: in TypeScript `require` is not
 * declared in the playground, so such a file fails the check that follows and its build is taken
 * down; in a JavaScript file that statement would run before the module's body (until the next build).
 */
const IMPORT_GROUP = /(?<=^|[;}])[ \t]*(?:var (_\w+) = require\((['"])([^'"\n]*)\2\);(?:[ \t]*(?:var \w+ = _interopRequire(?:Default|Wildcard)\(\1\);|_createNamedExportFrom\(\1, '[^'\n]*', '[^'\n]*'\);|_createStarExport\(\1\);|exports\.\w+ = _\w+;))*|require\((['"])([^'"\n]*)\4\);)/gm;
/** Any require: an import's, a dynamic `import()`'s (inside a function), or one the app wrote. */
const ANY_REQUIRE = /\brequire\((['"])([^'"\n]*)\1\)/g;

/**
 * A script made CommonJS by Sucrase: what it requires, and which of those are its imports (evaluated
 * before its body: Sucrase leaves each where the import was, to keep lines, so they move to the first
 * line, their place left blank). A module that could hold a top-level `await` (any `await`) or that
 * reads `process.env` is also parsed whole, as the function body it is linked into.
 */
function scriptOf(path: string, text: string): { code: string; required: string[]; before: string[] } {
  if (text.includes('import.meta')) decline(`${path} uses import.meta`);
  const typed = /\.(tsx?|mts|cts)$/.test(path);
  const transforms: Transform[] = [...(typed ? (['typescript'] as const) : []), ...(/x$/.test(path) ? (['jsx'] as const) : []), 'imports'];
  let code: string;
  try {
    code = transform(text, { transforms, jsxRuntime: 'automatic', jsxImportSource: RENDERERS.preact.jsxImportSource, production: true, disableESTransforms: true, filePath: path }).code;
  } catch (error) {
    return decline(`Sucrase could not read ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (/\bawait\b/.test(code) || code.includes('process.env')) {
    const head = '(function (exports, require, module) {\n';
    let program: Node;
    try {
      program = parse(`${head}${code}\n})`, { ecmaVersion: 'latest', sourceType: 'script' });
    } catch (error) {
      return decline(`${path} cannot run as a linked module: ${error instanceof Error ? error.message : String(error)}`);
    }
    const defines: Array<[number, number]> = [];
    for (const node of walk(program)) if (isNodeEnv(node)) defines.push([node.start - head.length, node.end - head.length]);
    for (const [start, end] of defines.reverse()) code = `${code.slice(0, start)}"production"${code.slice(end)}`;
  }
  const before: string[] = [];
  const hoisted: string[] = [];
  code = code.replace(IMPORT_GROUP, (group: string, _binding: string, _quote: string, specifier: string | undefined, _bare: string, bareSpecifier: string | undefined) => {
    before.push((specifier ?? bareSpecifier)!);
    hoisted.push(group.trim());
    return '';
  });
  const required = [...code.matchAll(ANY_REQUIRE)].map((match) => match[2]!);
  // After "use strict" and Sucrase's helpers (function declarations, hoisted), on the first line.
  if (hoisted.length) code = code.replace(/^("use strict";)?/, (strict) => `${strict}${hoisted.join(' ')} `);
  return { code, required: [...before, ...required], before };
}

/** The modules one side's entry reaches, each made and resolved; declines what it cannot link. */
async function linkSide(side: Side, entry: string, project: MemoryFileSystem, texts: Record<string, string>, library: QuickLibrary, scripts: Map<string, ReturnType<typeof scriptOf>>): Promise<Linked[]> {
  const modules = new Map<string, Linked>();
  const pending: string[] = [`app:${entry}`];
  while (pending.length) {
    const id = pending.pop()!;
    if (modules.has(id)) continue;
    const made = library.modules[id];
    if (made) {
      modules.set(id, made);
      pending.push(...Object.values(made.resolved));
      continue;
    }
    const path = id.slice('app:'.length);
    const text = texts[path];
    if (text === undefined) return decline(`${path} is not a text file`);
    let module: Linked;
    if (path.endsWith('.css')) {
      if (side !== 'client') decline(`the server imports the stylesheet ${path}`);
      if (/@import|url\(/i.test(text)) decline(`${path} has @import or url(), which esbuild resolves`);
      module = { id, kind: 'css', code: text, source: text, resolved: {}, before: [] };
    } else if (path.endsWith('.json')) {
      try {
        JSON.parse(text);
      } catch {
        decline(`${path} is not valid JSON`);
      }
      module = { id, kind: 'json', code: text, source: text, resolved: {}, before: [] };
    } else if (SCRIPT.test(path)) {
      // A shared module is made once for both sides.
      if (!scripts.has(path)) scripts.set(path, scriptOf(path, text));
      const { code, required, before } = scripts.get(path)!;
      const resolved: Record<string, string> = {};
      for (const specifier of required) {
        if (resolved[specifier]) continue;
        let target: string | undefined;
        if (specifier.startsWith('.') || specifier.startsWith('/')) {
          const found = (await resolveRelative({ fs: project }, path, specifier)).path;
          if (found !== undefined && assetKind(found) && !found.endsWith('.css')) decline(`${path} imports the asset ${found}`);
          target = found === undefined ? undefined : `app:${found}`;
        } else target = library.entries[side][specifier];
        if (!target) return decline(`${side}: ${path} imports "${specifier}", which the quick preview does not link`);
        resolved[specifier] = target;
        pending.push(target);
      }
      module = { id, kind: 'script', code, source: text, resolved, before: before.map((specifier) => resolved[specifier]!) };
    } else {
      return decline(`${path} is neither a script, a stylesheet nor JSON`);
    }
    modules.set(id, module);
  }
  // The order ES modules would be evaluated in: each module's imports first, depth first; a cycle is declined.
  const order: Linked[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (id: string, chain: string[]): void => {
    const seen = state.get(id);
    if (seen === 'done') return;
    if (seen === 'visiting') decline(`an import cycle: ${[...chain.slice(chain.indexOf(id)), id].join(' → ')}`);
    state.set(id, 'visiting');
    const module = modules.get(id)!;
    for (const next of module.before) visit(next, [...chain, id]);
    state.set(id, 'done');
    order.push(module);
  };
  visit(`app:${entry}`, []);
  // Modules only a function requires (a dynamic import) come after, in the order they were found.
  for (const module of modules.values()) if (!state.has(module.id)) visit(module.id, []);
  return order;
}

/** The script of one side: each module a function, evaluated on first require, the entry's first; with a source map line for line. */
function emit(side: Side, modules: Linked[], entry: string): { code: string; map: string } {
  const lines: string[] = [
    QUICK_BUNDLE_MARK,
    'var __platformQuickRequire = (() => {',
    '  const modules = {',
  ];
  const sources: string[] = [];
  const contents: string[] = [];
  const mappings: SourceMapSegment[][] = lines.map(() => []);
  for (const module of modules) {
    // A stylesheet is in app.css; its import runs nothing.
    if (module.kind === 'css') {
      lines.push(`    ${JSON.stringify(module.id)}: [{}, function () {}],`);
      mappings.push([]);
      continue;
    }
    const resolved = JSON.stringify(module.resolved);
    lines.push(`    ${JSON.stringify(module.id)}: [${resolved}, function (exports, require, module) {`);
    mappings.push([]);
    const source = sources.push(module.id) - 1;
    contents.push(module.source);
    const code = module.kind === 'json' ? `module.exports = ${module.code.trim()};` : module.code;
    const codeLines = code.split('\n');
    for (const [at, line] of codeLines.entries()) {
      lines.push(line);
      mappings.push(module.kind === 'script' ? [[0, source, at, 0]] : []);
    }
    lines.push('    }],');
    mappings.push([]);
  }
  const tail = [
    '  };',
    '  const cache = {};',
    '  const load = (id) => {',
    '    if (cache[id]) return cache[id].exports;',
    '    const [resolved, run] = modules[id];',
    '    const module = (cache[id] = { exports: {} });',
    '    run.call(undefined, module.exports, (specifier) => load(resolved[specifier]), module);',
    '    return module.exports;',
    '  };',
    '  return load;',
    '})();',
    side === 'server' ? `export default __platformQuickRequire(${JSON.stringify(`app:${entry}`)}).default;` : `__platformQuickRequire(${JSON.stringify(`app:${entry}`)});`,
    '',
  ];
  lines.push(...tail);
  mappings.push(...tail.map(() => []));
  const map = { version: 3, sources, ...(side === 'server' ? { sourcesContent: contents } : {}), mappings: encode(mappings), names: [] };
  return { code: lines.join('\n'), map: JSON.stringify(map) };
}

/**
 * The preview bundles of `files` (`server/index.js`, `client/app.js` and `client/app.css`, their maps,
 * `client/index.html` and the public files, as the compiler's preview mode names them), or why the
 * quick path declines them. `library`: the platform Library's modules, made by `quickLibrary`.
 */
export async function quickBundle(files: Record<string, string | Uint8Array>, library: QuickLibrary): Promise<QuickBundle> {
  try {
    const manifestText = files[MANIFEST_FILE];
    if (typeof manifestText !== 'string') return decline(`there is no ${MANIFEST_FILE}`);
    let manifest: Manifest;
    try {
      manifest = JSON.parse(manifestText) as Manifest;
    } catch {
      return decline(`${MANIFEST_FILE} is not valid JSON`);
    }
    const client = normalizeProjectPath(String(manifest.entrypoints?.client ?? ''));
    const server = normalizeProjectPath(String(manifest.entrypoints?.server ?? ''));
    if (!client || !server) return decline('the manifest names no entrypoints');
    const texts: Record<string, string> = {};
    let size = 0;
    for (const [path, content] of Object.entries(files)) {
      if (typeof content !== 'string') continue;
      texts[path] = content;
      size += content.length;
    }
    // Made on one thread before anything shows: a project this large is esbuild's, which the compiler runs anyway.
    if (size > QUICK_SOURCE_LIMIT) decline(`the project's text files hold ${size} characters, more than the ${QUICK_SOURCE_LIMIT} the quick preview takes`);
    const project = new MemoryFileSystem(files);
    const out = new Map<string, Uint8Array>();

    const scripts = new Map<string, ReturnType<typeof scriptOf>>();
    const serverModules = await linkSide('server', server, project, texts, library, scripts);
    const serverBundle = emit('server', serverModules, server);
    out.set('server/index.js', encoder.encode(serverBundle.code));
    out.set('server/index.js.map', encoder.encode(serverBundle.map));

    const clientModules = await linkSide('client', client, project, texts, library, scripts);
    const clientBundle = emit('client', clientModules, client);
    const css = clientModules.filter((module) => module.kind === 'css').map((module) => module.code);
    const clientBytes = encoder.encode(clientBundle.code);
    const budget = manifest.budgets?.clientBundleBytes ?? CLIENT_BUNDLE_DEFAULT;
    // Unminified, about twice esbuild's size: a client near its budget is esbuild's to measure (DG1405).
    if (clientBytes.byteLength > budget / 2) decline(`the client is ${clientBytes.byteLength} bytes unminified, near its budget of ${budget}`);
    out.set('client/app.js', clientBytes);
    out.set('client/app.js.map', encoder.encode(clientBundle.map));
    if (css.length) out.set('client/app.css', encoder.encode(css.join('\n')));

    for (const [path, content] of Object.entries(files)) {
      if (!path.startsWith('public/')) continue;
      const served = path.slice('public/'.length);
      const bytes = typeof content === 'string' ? encoder.encode(content) : content;
      if (served === 'index.html' || RESERVED_PREFIXES.some((prefix) => served.startsWith(prefix)) || bytes.byteLength > ASSET_LIMIT) decline(`${path} is refused by the bundler`);
      out.set(path, bytes);
    }
    out.set('client/index.html', encoder.encode(generateIndexHtml(manifest, css.length > 0)));
    return { ok: true, files: out };
  } catch (error) {
    if (error instanceof Declined) return { ok: false, reason: error.message };
    throw error;
  }
}
