/** `check` without bundling: manifest, module graphs, dependencies, server definition, generated types, type check. */
import { hasErrors, type Diagnostic } from '../diagnostics/index.ts';
import { canonicalJson, sha256Hex } from '../hash/index.ts';
import type { FileSystem } from '../fs/index.ts';
import { checkManifest, MANIFEST_FILE, type Manifest } from '../manifest/index.ts';
import { suppliedVersion, type Library, loadPackageFiles, RENDERERS, LESSON_ROOT, listFiles, openProject, type Project, type Zone } from '../project/index.ts';
import type { TypeCheckSession } from './typecheck.ts';
import { APP_TYPES_FILE, entryModule, generateAppTypes, generateUntypedDeclarations, SERVER_DECLARATIONS_ROOT, UNTYPED_FILE } from './app-types.ts';
import { attribute, contractBreakers, isDefinitionError, locationKey } from './attribution.ts';
import { brokenResults, type BrokenResult } from './broken-results.ts';
import { contractParts, contractUse, contractView, type ContractParts } from './contract-view.ts';
import { checkDependencies } from './dependencies.ts';
import { buildModuleGraph, readPackageJson, type ModuleGraph } from './graph.ts';
import { parse } from './imports.ts';
import { readServerDefinition, type OperationTable } from './server-definition.ts';

export interface AnalyzeOptions {
  library: Library;
  /** A warm type-check session to reuse; a fresh one is made when absent. Omit checking with `typecheck: false`. */
  typecheck: TypeCheckSession | false;
  /** Why npm packages cannot be installed in this host (the browser), for DG1208. */
  installUnavailable?: string;
  /** A file to type-check first and time on its own: the one being edited. */
  focus?: string;
  /** The host's clock in milliseconds, for timings (the core has no clock of its own). */
  now?: () => number;
  /** The zones whose files are type-checked (all three by default): `platform dev` serves without the tests'. */
  zones?: readonly Zone[];
  /** Runs before the type check when nothing so far is an error, with the analysis as it stands (a host bundles meanwhile). */
  beforeTypecheck?: (analysis: Analysis) => Promise<void>;
  /**
   * Awaited between the server zone's check and the others' (the client's, against the contract just
   * emitted): a host whose bundle is being made on another thread takes its answer here, so what it
   * starts with the bundle (dev's engine for a new server side) starts before the client is checked.
   */
  betweenZones?: () => Promise<void>;
}

export interface AnalysisTimings {
  /** Manifest, graphs, dependencies, server definition, generated types. */
  analyze: number;
  /** Type-checking the focus file alone, right after the edit (0 without a focus). */
  focusCheck: number;
  /** Type-checking every reachable file, the focus file included. */
  typecheck: number;
}

export interface Analysis {
  manifest?: Manifest;
  project?: Project;
  graph?: ModuleGraph;
  operations?: OperationTable;
  /** Generated files (project-relative path → text) the build writes under `.platform/`. */
  generated: Map<string, string>;
  /** Project source files the analysis read (project-relative path → text). */
  sources: Map<string, string>;
  diagnostics: Diagnostic[];
  timings: AnalysisTimings;
}

const SOURCE = /\.(tsx?|jsx?|mjs|cjs|json)$/;
const SCRIPT = /\.(tsx?|jsx?|mjs|cjs)$/;
/** A module specifier of a platform module, or of a path into `.platform/`. */
const NAMES_PLATFORM = /['"](?:platform(?:\/[^'"\n]*)?|[^'"\n]*\.platform\/[^'"\n]*)['"]/;
/** Whether a session's installed packages' declarations name a platform module, at its packages' version. */
const packagesNamingPlatform = new WeakMap<TypeCheckSession, { version: number; names: boolean }>();
/** The digest of each file's text a session last saw. */
const digestsOf = new WeakMap<TypeCheckSession, Map<string, { text: string; digest: string }>>();
/** Declared packages the type checker never takes from node_modules (DG1210 says why). */
const RENDERER_PACKAGES = Object.values(RENDERERS).flatMap((r) => r.packages);
const PLATFORM_SUPPLIED = ['platform', ...RENDERER_PACKAGES];

export async function analyzeProject(fs: FileSystem, options: AnalyzeOptions): Promise<Analysis> {
  const now = options.now ?? (() => 0);
  const started = now();
  const timings: AnalysisTimings = { analyze: 0, focusCheck: 0, typecheck: 0 };
  const generated = new Map<string, string>();
  const sources = new Map<string, string>();
  const { manifest, diagnostics: manifestDiagnostics } = await checkManifest(fs);
  const diagnostics: Diagnostic[] = [...manifestDiagnostics];
  if (!manifest) return { generated, sources, diagnostics, timings: { ...timings, analyze: now() - started } };

  // Every file listed and each source file read once, first: the module graph and the bundler take them from here.
  const listed = await listFiles(fs, '');
  for (const path of listed) {
    if (!SOURCE.test(path)) continue;
    const text = await fs.readText(path);
    if (text !== undefined) sources.set(path, text);
  }
  const opened = { ...(await openProject(fs, manifest, listed)), snapshot: { files: listed, texts: sources } };
  const packageJson = await readPackageJson(opened);
  const graph = await buildModuleGraph(opened, packageJson);
  const project: Project = { ...opened, renderer: graph.renderer };
  diagnostics.push(...graph.diagnostics);
  const manifestText = (await fs.readText(MANIFEST_FILE)) ?? '';
  diagnostics.push(...(await checkDependencies(fs, packageJson, manifest.untypedDependencies ?? [], manifestText, { rendererVersions: Object.fromEntries(RENDERER_PACKAGES.map((name) => [name, suppliedVersion(options.library, name)])), installUnavailable: options.installUnavailable })));

  const serverSource = graph.sources.get(project.serverEntry) ?? parse(project.serverEntry, (await fs.readText(project.serverEntry)) ?? '');
  const server = readServerDefinition(serverSource);
  diagnostics.push(...server.diagnostics);
  generated.set(APP_TYPES_FILE, generateAppTypes(manifest, server.table, project.serverEntry));
  if (manifest.untypedDependencies?.length) generated.set(UNTYPED_FILE, generateUntypedDeclarations(manifest.untypedDependencies));

  timings.analyze = now() - started;

  if (options.typecheck !== false && options.beforeTypecheck && !hasErrors(diagnostics)) {
    await options.beforeTypecheck({ manifest, project, graph, operations: server.table, generated, sources, diagnostics, timings });
  }

  if (options.typecheck !== false) {
    const checking = now();
    const session = options.typecheck;
    // The app's own packages are typed from its node_modules; the platform supplies its modules and the renderer.
    const declared = Object.keys(packageJson?.dependencies ?? {});
    const packageFiles = await loadPackageFiles(fs, declared, { cache: session.packageCache, exclude: PLATFORM_SUPPLIED });
    session.syncPackages(packageFiles);
    session.setRenderer(graph.renderer);
    // A lesson's files (lesson/: step texts, start and solution copies of app files, checks) are not the
    // app's: unless the app imports one, they stay out of the check, where their copies of the app's
    // modules and their checks (which name the platform) would make every contract change re-check all.
    const zonesOf = new Map<string, Zone[]>();
    for (const zone of ZONES) for (const path of graph.zones[zone]) zonesOf.set(path, [...(zonesOf.get(path) ?? []), zone]);
    const files = new Map([...sources].filter(([path]) => !path.startsWith(`${LESSON_ROOT}/`) || zonesOf.has(path)));
    for (const [path, text] of generated) files.set(path, text);
    // The server's declarations last emitted stay in while the server zone is checked and emitted again
    // (nothing there imports them), so an edit that does not change them leaves one program, not two.
    const isDeclaration = (path: string) => path.startsWith(`${SERVER_DECLARATIONS_ROOT}/`);
    session.sync(new Map([...files, ...[...session.emittedDeclarations].map(([path, text]) => [`${SERVER_DECLARATIONS_ROOT}/${path}`, text] as const)]));
    const reachable = [...new Set((options.zones ?? ZONES).flatMap((zone) => graph.zones[zone]))];
    const focus = options.focus !== undefined && reachable.includes(options.focus) ? options.focus : undefined;
    // Each file is checked again only when something it depends on changed: the files it imports,
    // directly or not (the module graph's edges), the declarations in scope (generated or the app's own,
    // and every file no zone reaches, which only such declarations can reach), the packages and the
    // renderer. The server zone cannot import the contract (platform/server does not expose it), so the
    // server's emitted declarations are in the key of client and test files only.
    const outside = [...files].filter(([path]) => !zonesOf.has(path) && !isDeclaration(path)).sort(byPath);
    const environment = sha256Hex(canonicalJson([session.packagesVersion, graph.renderer, outside]));
    // The same without the generated app types: a view of the contract stands for them (contract-view.ts).
    const environmentBesideContract = sha256Hex(canonicalJson([session.packagesVersion, graph.renderer, outside.filter(([path]) => path !== APP_TYPES_FILE)]));
    // A script no zone reaches that names a platform module (or anything "platform") could see the whole contract: then no views.
    // So could an installed package whose declarations import a platform module (read again only when the packages change).
    const known = packagesNamingPlatform.get(session);
    const packagesName = known?.version === session.packagesVersion ? known.names : [...packageFiles.texts].some(([path, text]) => !path.endsWith('.json') && NAMES_PLATFORM.test(text));
    packagesNamingPlatform.set(session, { version: session.packagesVersion, names: packagesName });
    const viewable = !packagesName && !outside.some(([path, text]) => !path.startsWith('.platform/') && SCRIPT.test(path) && text.includes('platform'));
    // Each text is digested once, not once per file that imports it nor once per analysis: a session's
    // digests are kept with the text they are of.
    let digests = digestsOf.get(session);
    if (!digests) digestsOf.set(session, (digests = new Map()));
    const digestOf = (file: string): string | null => {
      const text = files.get(file);
      if (text === undefined) return null;
      const kept = digests.get(file);
      if (kept?.text === text) return kept.digest;
      const digest = sha256Hex(text);
      digests.set(file, { text, digest });
      return digest;
    };
    let contractDigest: string | null = null;
    let parts: ContractParts | undefined;
    /**
     * What a file shows the files that import it: its declaration signature (TypeCheckSession.signature),
     * found again when its text or the signatures of what it imports changed, as tsc's builder
     * propagates a changed `signature`; its text for a file without one (JSON, JavaScript, declaration
     * files). A file met again inside its own import cycle stands for itself by its text.
     */
    const signatures = new Map<string, string | null>();
    const signatureOf = (file: string): string | null => {
      const known = signatures.get(file);
      if (known !== undefined) return known;
      signatures.set(file, digestOf(file));
      const context = sha256Hex(canonicalJson([environment, (graph.edges.get(file) ?? []).map((next) => [next, signatureOf(next)])]));
      const signature = files.has(file) ? (session.signature(file, context) ?? digestOf(file)) : null;
      signatures.set(file, signature);
      return signature;
    };
    /**
     * What a file's diagnostics (and declarations) depend on, but the contract: its own text, and the
     * signature of every file it imports, directly or not. A body-only edit of a file a hundred others
     * import changes its text, not its signature: the hundred are not checked again.
     */
    const closureOf = (path: string): Set<string> => {
      const closure = new Set([path]);
      for (const file of closure) for (const next of graph.edges.get(file) ?? []) closure.add(next);
      return closure;
    };
    const textsOf = (path: string, closure: Set<string>) => [...closure].sort().map((file) => [file, file === path ? digestOf(file) : signatureOf(file)]);
    /**
     * A file's key, and for a client or test file whose imports name operations only as contract-view.ts
     * reads them, a second key with the view of the contract it observes in place of the whole contract.
     */
    const keysOf = (path: string): { key: string; view?: string } => {
      const closure = closureOf(path);
      const texts = textsOf(path, closure);
      const seesContract = zonesOf.get(path)!.some((zone) => zone !== 'server');
      const key = sha256Hex(canonicalJson([environment, seesContract ? contractDigest : null, texts]));
      if (!seesContract || !parts) return { key };
      const ops = new Set<string>();
      for (const file of closure) {
        const source = graph.sources.get(file);
        const use = source ? contractUse(source) : SCRIPT.test(file) ? 'wide' : new Set<string>();
        if (use === 'wide') return { key };
        for (const op of use) ops.add(op);
      }
      return { key, view: sha256Hex(canonicalJson([environmentBesideContract, contractView(parts, ops), texts])) };
    };
    const found = new Map<string, Diagnostic[]>();
    const checkNow = (paths: readonly string[]) => {
      for (const path of paths) {
        if (found.has(path)) continue;
        const { key, view } = keysOf(path);
        found.set(path, session.checkCached(path, key, view));
      }
    };
    // The contract is typed from the server zone's declarations, each file's emitted again only when the
    // file or a signature it imports changed, or the declarations in scope (the generated table types).
    const declarations = session.emitDeclarations(graph.zones.server, (path) => sha256Hex(canonicalJson([environment, textsOf(path, closureOf(path))])));
    // Files of the server zone alone are checked on the program their declarations were just emitted
    // from (its checker has typed them already): the declarations about to be added do not reach them.
    const serverOnly = graph.zones.server.filter((path) => zonesOf.get(path)!.length === 1 && reachable.includes(path));
    if (focus !== undefined && serverOnly.includes(focus)) {
      checkNow([focus]);
      timings.focusCheck = now() - checking;
    }
    checkNow(serverOnly);
    await options.betweenZones?.();
    for (const [path, text] of declarations) {
      const target = `${SERVER_DECLARATIONS_ROOT}/${path}`;
      generated.set(target, text);
      files.set(target, text);
    }
    session.sync(files);
    contractDigest = sha256Hex(canonicalJson([...files].filter(([path]) => isDeclaration(path)).sort(byPath)));
    if (viewable) {
      const withoutOperations = generateAppTypes(manifest, { ...server.table, queries: [], mutations: [] }, project.serverEntry);
      parts = contractParts(withoutOperations, declarations, `${entryModule(project.serverEntry)}.d.ts`, server.table);
    }
    if (focus !== undefined && !found.has(focus)) {
      checkNow([focus]);
      timings.focusCheck = now() - checking;
    }
    checkNow(reachable);
    // In the order they always came: the focus file's first, then every reachable file's.
    const typeErrors: Diagnostic[] = [...(focus !== undefined ? found.get(focus)! : []), ...reachable.filter((f) => f !== focus).flatMap((f) => found.get(f)!)];
    diagnostics.push(...withoutEchoes(typeErrors, diagnostics));

    const serverFiles = new Set(graph.zones.server);
    // A server type error that reached a handler's result broke the contract, whether or not a consumer noticed.
    const serverTypeErrors = contractBreakers(diagnostics, serverFiles).some((d) => d.code === 'DG1205');
    const program = serverTypeErrors ? session.service.getProgram() : undefined;
    const broken: BrokenResult[] = program ? brokenResults(program, project.serverEntry) : [];
    const consumers = reachable.filter((f) => !serverFiles.has(f));
    const consumerErrors = diagnostics.some((d) => d.code === 'DG1205' && d.file !== undefined && consumers.includes(d.file));
    const permissive = new Set<string>();
    const breakers = contractBreakers(diagnostics, serverFiles);
    if (consumerErrors && breakers.length) {
      // Check the client and the tests once more against a permissive contract, then restore the real one.
      const contract = breakers.some(isDefinitionError) ? 'open' : 'permissive';
      session.sync(new Map([...files, [APP_TYPES_FILE, generateAppTypes(manifest, server.table, project.serverEntry, contract)]]));
      for (const d of session.check(consumers)) permissive.add(locationKey(d));
      session.sync(files);
    }
    attribute(diagnostics, serverFiles, new Set(consumers), permissive, broken);
    timings.typecheck = now() - checking;
  }
  return { manifest, project, graph, operations: server.table, generated, sources, diagnostics, timings };
}

/**
 * Type errors at the exact place another error already stands (an import the graph refused, a key the
 * definition refused) restate it: the more specific code is kept.
 */
const ZONES: readonly Zone[] = ['client', 'server', 'test'];
const byPath = (a: readonly [string, unknown], b: readonly [string, unknown]) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);

function withoutEchoes(typeErrors: Diagnostic[], others: readonly Diagnostic[]): Diagnostic[] {
  const taken = new Set(others.filter((d) => d.severity === 'error').map((d) => `${d.file}:${d.span?.line}:${d.span?.column}`));
  return typeErrors.filter((d) => !taken.has(`${d.file}:${d.span?.line}:${d.span?.column}`));
}

