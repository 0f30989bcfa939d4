/**
 * The module graph of each zone, walked from its entrypoints, and every import that breaks the zone
 * rules (DG1201 to DG1209), reported at the import's specifier.
 */
import type ts from 'typescript';
import { diagnostic, type Diagnostic, type DiagnosticCode } from '../diagnostics/index.ts';
import { normalizeProjectPath, type FileSystem } from '../fs/index.ts';
import { LineIndex, didYouMean } from '../text/index.ts';
import { parse, readImports, type ImportRecord } from './imports.ts';
import { assetKind, DEFAULT_RENDERER, isBare, isNodeBuiltin, packageName, PLATFORM_MODULES, rendererOf, RENDERERS, type Renderer, ownerOf, SHARED_ROOT, snapshotStat, type Project, type Zone, resolveRelative } from '../project/index.ts';

const ZONE_NAMES: Record<Zone, string> = { client: 'client', server: 'server', test: 'test' };
const RENDERER_NAMES: Record<Renderer, string> = { preact: 'Preact', react: 'React' };

export interface PackageUse {
  zone: Zone;
  specifier: string;
  file: string;
}

export interface ModuleGraph {
  /** Source files each zone reaches, entrypoints first, then in discovery order. */
  zones: Record<Zone, string[]>;
  /** Parsed source files by path. */
  sources: Map<string, ts.SourceFile>;
  /** The project files each file imports (the relative imports that resolved). */
  edges: Map<string, string[]>;
  /** Packages imported (other than the platform's and the renderer), by zone. */
  packages: PackageUse[];
  /** Stylesheets and media the client imports (bundled by the client build). */
  assets: string[];
  /** The renderer the client zone selected by its imports (Preact when it imports none). */
  renderer: Renderer;
  diagnostics: Diagnostic[];
}

export interface PackageJson {
  dependencies: Record<string, string>;
  /** Present when package.json exists but cannot be read as JSON. */
  error?: string;
}

export async function readPackageJson(project: Project): Promise<PackageJson | undefined> {
  const text = project.snapshot?.texts.get('package.json') ?? (await project.fs.readText('package.json'));
  if (text === undefined) return undefined;
  try {
    const value = JSON.parse(text) as { dependencies?: unknown };
    const deps = value && typeof value.dependencies === 'object' && value.dependencies !== null ? (value.dependencies as Record<string, string>) : {};
    return { dependencies: deps };
  } catch (error) {
    return { dependencies: {}, error: error instanceof Error ? error.message : String(error) };
  }
}


/**
 * The trees parsed last from each file system, by path, with the text each was parsed from: a project
 * analysed again through the same file system (`platform dev`'s rebuilds) parses only the files whose
 * text changed. Held weakly: a file system that is gone takes its trees with it.
 */
const parsedBy = new WeakMap<object, Map<string, { text: string; source: ts.SourceFile }>>();

function parseOnce(fs: object, path: string, text: string): ts.SourceFile {
  let parsed = parsedBy.get(fs);
  if (!parsed) parsedBy.set(fs, (parsed = new Map()));
  const kept = parsed.get(path);
  if (kept?.text === text) return kept.source;
  const source = parse(path, text);
  parsed.set(path, { text, source });
  return source;
}

export async function buildModuleGraph(project: Project, packageJson?: PackageJson): Promise<ModuleGraph> {
  const graph: ModuleGraph = { zones: { client: [], server: [], test: [] }, sources: new Map(), edges: new Map(), packages: [], assets: [], renderer: DEFAULT_RENDERER, diagnostics: [] };
  /** The client zone's renderer imports, in walk order (the client entrypoint's first). */
  const rendererImports: Array<{ renderer: Renderer; file: string; record: ImportRecord }> = [];
  /** Each file's text, and its line index once a problem in it is reported. */
  const texts = new Map<string, string>();
  const lines = new Map<string, LineIndex>();
  const lineIndex = (file: string) => {
    let index = lines.get(file);
    if (!index) lines.set(file, (index = new LineIndex(texts.get(file)!)));
    return index;
  };
  // Each path is looked up once per graph: a file a hundred others import is not stat'ed a hundred times.
  // With the analysis's snapshot, a path it lists is answered from it, and only others reach the file system.
  const stats = new Map<string, ReturnType<FileSystem['stat']>>();
  const { snapshot } = project;
  const statOf = (path: string): ReturnType<FileSystem['stat']> => {
    const listed = snapshot ? snapshotStat(snapshot, path) : 'unlisted';
    return listed === 'unlisted' ? project.fs.stat(path) : Promise.resolve(listed);
  };
  const looking = { fs: { stat: (path: string) => stats.get(path) ?? (stats.set(path, statOf(path)), stats.get(path)!) } };
  const reachedBy = new Map<string, Set<Zone>>();
  const report = (code: DiagnosticCode, file: string, record: Pick<ImportRecord, 'start' | 'length'>, message: string, hint?: string) => {
    const span = lineIndex(file).span(record.start, record.length);
    graph.diagnostics.push(diagnostic(code, message, { file, span, hint }));
  };
  const entries: Array<[Zone, string]> = [
    ['client', project.clientEntry],
    ['server', project.serverEntry],
    ...project.testFiles.map((f) => ['test', f] as [Zone, string]),
  ];

  for (const [zone, entry] of entries) {
    const queue = [entry];
    const seen = new Set<string>();
    while (queue.length) {
      const file = queue.shift()!;
      if (seen.has(file)) continue;
      seen.add(file);
      if (!graph.zones[zone].includes(file)) graph.zones[zone].push(file);
      const zones = reachedBy.get(file) ?? new Set<Zone>();
      zones.add(zone);
      reachedBy.set(file, zones);

      let source = graph.sources.get(file);
      if (!source) {
        const text = snapshot?.texts.get(file) ?? (await project.fs.readText(file));
        if (text === undefined) continue;
        source = parseOnce(project.fs, file, text);
        graph.sources.set(file, source);
        texts.set(file, text);
      }
      const fileOwner = ownerOf(project, file);
      const edges = new Set<string>();
      for (const record of readImports(source)) {
        const target = await checkImport(zone, file, fileOwner, record);
        if (target) {
          queue.push(target);
          edges.add(target);
        }
      }
      graph.edges.set(file, [...edges]);
    }
  }

  // The first renderer the client imports is the selected one; the other family would be bundled beside it.
  const selected = rendererImports[0];
  if (selected) {
    graph.renderer = selected.renderer;
    for (const other of rendererImports.filter((r) => r.renderer !== selected.renderer)) {
      report('DG1503', other.file, other.record, `"${other.record.specifier}" belongs to ${RENDERER_NAMES[other.renderer]}, but this client selected ${RENDERER_NAMES[selected.renderer]} (first imported in ${selected.file}): the bundle would contain the unselected renderer.`, `Use one renderer in the client: import from ${RENDERERS[selected.renderer].entrypoints.join(', ')}, or switch every import to ${RENDERER_NAMES[other.renderer]}.`);
    }
  }

  // A file reached from several zones has its imports checked once per zone: report each problem once.
  const seen = new Set<string>();
  graph.diagnostics = graph.diagnostics.filter((d) => {
    const key = `${d.code}|${d.file}|${d.span?.line}|${d.span?.column}|${d.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });

  // Code reached from more than one zone must live under src/shared/.
  for (const [file, zones] of reachedBy) {
    if (zones.size > 1 && ownerOf(project, file) === 'unowned') {
      const names = [...zones].map((z) => ZONE_NAMES[z]).join(' and ');
      graph.diagnostics.push(
        diagnostic('DG1201', `${file} is imported by both the ${names} zones.`, {
          file,
          hint: `Code that zones share lives under ${SHARED_ROOT}/: move it there (it may import nothing from a zone).`,
        }),
      );
    }
  }
  return graph;

  async function checkImport(zone: Zone, file: string, fileOwner: ReturnType<typeof ownerOf>, record: ImportRecord): Promise<string | undefined> {
    if (!record.literal) {
      report('DG1203', file, record, 'A dynamic import must name its module with a string literal.', 'Write import("./module") with a literal path, or import the modules statically and choose between them.');
      return undefined;
    }
    const { specifier } = record;
    if (specifier.startsWith('/') || /^[A-Za-z]:[\\/]/.test(specifier)) {
      report('DG1201', file, record, `The import "${specifier}" is an absolute path.`, 'Import project files by relative path.');
      return undefined;
    }
    if (isBare(specifier)) {
      checkPackage(zone, file, fileOwner, record);
      return undefined;
    }
    const resolved = await resolveRelative(looking, file, specifier);
    if (resolved.outside) {
      report('DG1201', file, record, `The import "${specifier}" leaves the project root.`, 'Keep every imported file inside the project.');
      return undefined;
    }
    if (!resolved.path) {
      report('DG1204', file, record, `The import "${specifier}" does not resolve to a file.`, `Check the path from ${file}; relative imports resolve to a file, with or without its extension, or a folder's index.`);
      return undefined;
    }
    const target = resolved.path;
    const kind = assetKind(target);
    if (kind === 'stylesheet' || kind === 'media') {
      if (zone !== 'client') {
        const code = kind === 'stylesheet' ? 'DG1206' : 'DG1209';
        const what = kind === 'stylesheet' ? 'A stylesheet' : 'An image, font or wasm file';
        report(code, file, record, `${what} is imported in the ${ZONE_NAMES[zone]} zone: ${specifier}.`, 'Only the client graph may import stylesheets, images, fonts and wasm.');
      } else if (!graph.assets.includes(target)) {
        graph.assets.push(target);
      }
      return undefined;
    }
    if (kind === 'native') {
      report('DG1202', file, record, `"${specifier}" is a native addon, which no zone may import.`);
      return undefined;
    }
    const targetOwner = ownerOf(project, target);
    const opposite = zone === 'client' ? project.serverEntry : zone === 'server' ? project.clientEntry : undefined;
    if (target === opposite || (zone === 'test' && (target === project.serverEntry || target === project.clientEntry))) {
      report('DG1201', file, record, `The ${ZONE_NAMES[zone]} zone imports the ${target === project.serverEntry ? 'server' : 'client'} entrypoint ${target}.`, zone === 'test' ? 'Tests reach the app through query, mutation and fetch from platform/test.' : 'The client reaches the server through platform/client; shared code lives under src/shared/.');
      return undefined;
    }
    if (fileOwner === 'shared' && targetOwner !== 'shared') {
      report('DG1201', file, record, `Shared code imports ${target}, outside ${SHARED_ROOT}/.`, `Code under ${SHARED_ROOT}/ may import only other shared code.`);
      return undefined;
    }
    if (targetOwner !== 'shared' && targetOwner !== 'unowned' && targetOwner !== zone) {
      report('DG1201', file, record, `The ${ZONE_NAMES[zone]} zone imports ${target} from the ${ZONE_NAMES[targetOwner]} zone.`, `Move what both zones need under ${SHARED_ROOT}/.`);
      return undefined;
    }
    return target;
  }

  function checkPackage(zone: Zone, file: string, fileOwner: ReturnType<typeof ownerOf>, record: ImportRecord): void {
    const { specifier } = record;
    const name = packageName(specifier);
    const where = fileOwner === 'shared' ? 'shared code' : `the ${ZONE_NAMES[zone]} zone`;
    if (isNodeBuiltin(specifier)) {
      report('DG1202', file, record, `"${specifier}" is a server-runtime built-in module, which ${where} cannot import.`, 'Applications run on the platform runtime, not Node.js: use the web-standard APIs and ctx.');
      return;
    }
    if (name === 'platform') {
      const allowed = fileOwner === 'shared' ? undefined : PLATFORM_MODULES[zone];
      if (specifier !== allowed) {
        const admitted = allowed ? `${where} may import ${allowed}` : 'shared code imports no platform module';
        report('DG1202', file, record, `"${specifier}" is not available in ${where}.`, `${admitted}.${specifier === 'platform/server' && zone === 'client' ? ' The client calls the server through platform/client.' : ''}`);
      }
      return;
    }
    const renderer = rendererOf(name);
    if (renderer) {
      const { entrypoints, testEntrypoints } = RENDERERS[renderer];
      if (testEntrypoints.includes(specifier)) {
        report('DG1202', file, record, `"${specifier}" is a test-only renderer entrypoint.`, 'Test the app through platform/test.');
      } else if (!entrypoints.includes(specifier)) {
        const suggestion = didYouMean(specifier, entrypoints);
        report('DG1202', file, record, `"${specifier}" is not a renderer entrypoint the platform provides.`, `The client may import ${entrypoints.join(', ')}.${suggestion ? ` ${suggestion}` : ''}`);
      } else if (zone !== 'client' || fileOwner === 'shared') {
        report('DG1202', file, record, `The renderer "${specifier}" is imported in ${where}.`, 'Only the client zone renders: move UI code under the client.');
      } else {
        rendererImports.push({ renderer, file, record });
      }
      return;
    }
    const declared = packageJson && !packageJson.error && Object.prototype.hasOwnProperty.call(packageJson.dependencies, name);
    if (!declared) {
      const why = packageJson?.error ? ` (package.json is not valid JSON: ${packageJson.error})` : packageJson ? '' : ' (there is no package.json)';
      report('DG1207', file, record, `The package "${name}" is imported but not declared in dependencies${why}.`, `Add "${name}" to "dependencies" in package.json.`);
      return;
    }
    graph.packages.push({ zone, specifier, file });
  }
}
