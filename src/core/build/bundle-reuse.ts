/**
 * A preview build after an edit that can only change one of the two bundles keeps the previous build's
 * outputs of the other instead of bundling it again (the playground's compiler worker and `platform
 * dev`). A server edit keeps the client (issue 16: a server edit in todo-react re-bundled React DOM,
 * 150 to 200 ms of esbuild-wasm on the edit's path); a client edit keeps the server (its 20 to 30 ms
 * were on the path of every client edit). In `platform dev` the bundle not made is CPU the type check
 * gets instead (2 cores): a 500-file app's server edit was served in about 185 ms with both bundled,
 * 165 ms with the server alone.
 *
 * The client bundle is made from the client zone's files (the module graph from the client entry),
 * the stylesheets and media it imports, the packages it imports (node_modules, package.json), the
 * manifest (the document's title, language, budgets) and the platform library. The server bundle is
 * made from the server zone's files, the packages it imports, the manifest (its entry) and the platform
 * library, with the JSX of the renderer the client selected. A relative import resolves by which files
 * exist. So one target's previous outputs are kept only when:
 * - the previous preview build succeeded (its outputs were served) and was not a framework project's;
 * - the files are the same paths as then (nothing added, removed or renamed);
 * - no changed file is the manifest, package.json, tsconfig.json, nor under node_modules/, .platform/
 *   or public/ (they may change either bundle);
 * - every file whose content changed was, in the previous build, reached by some zone's graph, and
 *   went into none of the kept target's bundle: for the client, its zone and the stylesheets and media
 *   it imports; for the server, its zone (a stylesheet or media file only the client may import); for
 *   either, every app file its source map names too (esbuild follows a `require()` that the graph does
 *   not). A file both read (src/shared/) changes both, and an edit to a client file and a server file
 *   at once bundles both. An edit only the test zone reaches keeps the client (the server is the
 *   cheaper target to bundle).
 * After the build the new graph is checked again: the kept target's zone, its packages (and the
 * client's assets) and the renderer must be what they were (they cannot differ when its files did not
 * change, but for the renderer, which the client's imports select; if they do, the build is made again
 * in full). The type check is not affected: every zone is checked as before.
 */
import { sameContent } from '../bytes.ts';
import { hasErrors, type Diagnostic } from '../diagnostics/index.ts';
import type { ModuleGraph } from '../analyze/index.ts';
import { listFiles, type Renderer } from '../project/index.ts';
import type { FileSystem } from '../fs/index.ts';
import type { BuildOutcome } from './build.ts';
import type { BuildTarget } from '../bundle/index.ts';
import { FRAMEWORK_RECORD } from './framework.ts';

type FileContent = string | Uint8Array;

/** The preview's two targets, either of which may be kept. */
export type KeptTarget = 'client' | 'server';
const TARGETS: readonly KeptTarget[] = ['client', 'server'];

/** One target's share of a successful build. */
interface KeptOutputs {
  /** Its outputs (`client/…` or `server/…`), copies owned here (what is posted to the page is transferred). */
  files: Map<string, Uint8Array>;
  /** What bundling it said that is not an error (the app's share of the client bundle, DG1406). */
  diagnostics: Diagnostic[];
  /** Its zone's files, with the stylesheets and media (the client's) as they were in the graph. */
  graph: Set<string>;
  /**
   * The app files it was made from: its graph's, and every one its source map names (esbuild bundles
   * a `require()` the graph does not follow).
   */
  reads: Set<string>;
  /** The packages its zone imports, as `specifier file`. */
  packages: Set<string>;
}

/** What a successful preview build leaves for the next one. */
interface KeptBuild {
  files: Map<string, FileContent>;
  test: Set<string>;
  renderer: Renderer;
  targets: Record<KeptTarget, KeptOutputs>;
}

export type ReuseDecision = { keep: KeptTarget; changed: string[] } | { keep?: undefined; reason: string };

/** Paths never taken as one target's alone, whatever the graph says. */
const EITHER_INPUTS = /^(app\.manifest\.json|package\.json|package-lock\.json|tsconfig\.json|node_modules\/|\.platform\/|public\/)/;

/** Whether a diagnostic came from bundling `target` (carried with its outputs when they are kept). */
function fromBundleOf(target: KeptTarget, d: Diagnostic): boolean {
  if (d.code === 'DG1501') return d.message.startsWith(`Bundling the ${target}`);
  if (d.code === 'DG1401') return d.message.startsWith(`The compiled module ${target}/`);
  return target === 'client' && (d.code === 'DG1406' || d.code === 'DG1405');
}

/** What the graph says of `target`: the files it bundles from the app, and the packages it imports. */
function zoneOf(graph: ModuleGraph, target: KeptTarget): { graph: Set<string>; packages: Set<string> } {
  return {
    graph: new Set(target === 'client' ? [...graph.zones.client, ...graph.assets] : graph.zones.server),
    packages: new Set(graph.packages.filter((use) => use.zone === target).map((use) => `${use.specifier} ${use.file}`)),
  };
}

/** Each target's source map (of its one script). */
const MAPS: Record<KeptTarget, string> = { client: 'client/app.js.map', server: 'server/index.js.map' };

const decoder = new TextDecoder();

/**
 * The app's files a source map names (esbuild's `app:` namespace), or undefined when it cannot be read.
 * esbuild writes its `sources` on a line of their own near the start: that line is read, not the whole
 * map (a client's runs to hundreds of kB).
 */
function appSources(map: Uint8Array | undefined): string[] | undefined {
  if (!map) return undefined;
  const text = decoder.decode(map);
  const parse = (json: string): unknown => {
    try {
      return (JSON.parse(json) as { sources?: unknown } | null)?.sources;
    } catch {
      return undefined;
    }
  };
  const start = text.indexOf('"sources": [');
  const end = start < 0 ? -1 : text.indexOf('\n', start);
  let sources = end > start ? parse(`{${text.slice(start, end).replace(/,\s*$/, '')}}`) : undefined;
  if (!Array.isArray(sources)) sources = parse(text);
  if (!Array.isArray(sources) || !sources.every((s) => typeof s === 'string')) return undefined;
  return (sources as string[]).filter((s) => s.startsWith('app:')).map((s) => s.slice('app:'.length));
}

const sameSet = (a: ReadonlySet<string>, b: ReadonlySet<string>): boolean => a.size === b.size && [...b].every((item) => a.has(item));

/** Files read as text (a host may keep texts between reads: platform dev's file system does); any other as bytes. */
const TEXT_FILE = /\.(?:[cm]?[jt]sx?|json|css|html|md|txt|svg)$/;

/**
 * A project's files as `BundleReuse` compares them, read from a file system (`platform dev`: the
 * playground has them in memory): every file the analysis lists (not node_modules/ nor dot folders,
 * whose changes `platform dev` does not rebuild for), and a framework project's record (no bundle is
 * kept in such a project).
 */
export async function projectFiles(fs: FileSystem): Promise<Record<string, FileContent>> {
  const files: Record<string, FileContent> = {};
  for (const path of [...(await listFiles(fs, '')), FRAMEWORK_RECORD]) {
    const content = TEXT_FILE.test(path) ? await fs.readText(path) : await fs.readBytes(path);
    if (content !== undefined) files[path] = content;
  }
  return files;
}

/** The previous successful preview build's outputs, and when one target's may serve the next build. */
export class BundleReuse {
  #kept: KeptBuild | undefined;

  /** Whether the next preview build of `files` may keep one target's previous outputs (which), and if not, why. */
  decide(files: Readonly<Record<string, FileContent>>): ReuseDecision {
    const kept = this.#kept;
    if (!kept) return { reason: 'no earlier successful build' };
    if (FRAMEWORK_RECORD in files || kept.files.has(FRAMEWORK_RECORD)) return { reason: 'a framework project' };
    const paths = Object.keys(files);
    if (paths.length !== kept.files.size || paths.some((path) => !kept.files.has(path))) return { reason: 'files were added, removed or renamed' };
    const changed = paths.filter((path) => !sameContent(files[path]!, kept.files.get(path)!));
    if (changed.length === 0) return { reason: 'nothing changed' };
    /** A changed file each target bundles, if any. */
    const reached: Partial<Record<KeptTarget, string>> = {};
    for (const path of changed) {
      if (EITHER_INPUTS.test(path)) return { reason: `${path} may change either bundle` };
      const by = TARGETS.filter((target) => kept.targets[target].reads.has(path));
      if (by.length === 2) return { reason: `${path} goes into the client's and the server's bundles` };
      if (by.length === 0 && !kept.test.has(path)) return { reason: `${path} is in no zone's graph` };
      for (const target of by) reached[target] ??= path;
    }
    if (reached.client && reached.server) return { reason: `${reached.client} goes into the client's bundle and ${reached.server} into the server's` };
    return { keep: reached.client ? 'server' : 'client', changed };
  }

  /**
   * A preview build of `files`: `compile(targets)` makes it (the analysis, the type check and the
   * bundles of those targets). With one target kept, only the other is bundled and the kept target's
   * previous outputs (copies) complete the files.
   */
  async compile(files: Readonly<Record<string, FileContent>>, compile: (targets: readonly BuildTarget[]) => Promise<BuildOutcome>): Promise<{ outcome: BuildOutcome; decision: ReuseDecision; kept?: KeptTarget }> {
    const decision = this.decide(files);
    const kept = this.#kept;
    const keep = decision.keep;
    if (keep && kept) {
      const outcome = await compile(TARGETS.filter((target) => target !== keep));
      const graph = outcome.analysis.graph;
      const before = kept.targets[keep];
      const now = graph && zoneOf(graph, keep);
      if (graph && now && sameSet(before.graph, now.graph) && sameSet(before.packages, now.packages) && graph.renderer === kept.renderer) {
        if (!outcome.files || hasErrors(outcome.diagnostics)) return { outcome, decision };
        const merged = new Map(outcome.files);
        for (const [path, bytes] of before.files) merged.set(path, bytes.slice());
        this.#remember(files, outcome, { target: keep, outputs: before });
        return { outcome: { ...outcome, files: merged, diagnostics: [...outcome.diagnostics, ...before.diagnostics] }, decision, kept: keep };
      }
    }
    const outcome = await compile(TARGETS);
    if (outcome.files?.has('client/app.js') && outcome.files.has('server/index.js') && !hasErrors(outcome.diagnostics)) this.#remember(files, outcome);
    return { outcome, decision };
  }

  /** Forgets the kept build (the next preview build bundles both targets). */
  clear(): void {
    this.#kept = undefined;
  }

  /**
   * Keeps a successful build of `files`: each target's outputs (copies) and the diagnostics bundling it
   * gave. `outcome` bundled every target but the `carried` one, whose outputs it was completed with.
   */
  #remember(files: Readonly<Record<string, FileContent>>, outcome: BuildOutcome, carried?: { target: KeptTarget; outputs: KeptOutputs }): void {
    const graph = outcome.analysis.graph;
    if (!graph || !outcome.files) return void (this.#kept = undefined);
    const analysed = new Set(outcome.analysis.diagnostics);
    const share = (target: KeptTarget): KeptOutputs => {
      // The kept target's graph was found the same as before: what it holds still stands.
      if (carried?.target === target) return carried.outputs;
      const zone = zoneOf(graph, target);
      return {
        files: new Map([...outcome.files!].filter(([path]) => path.startsWith(`${target}/`)).map(([path, bytes]) => [path, bytes.slice()] as const)),
        diagnostics: outcome.diagnostics.filter((d) => !analysed.has(d) && fromBundleOf(target, d)),
        ...zone,
        // A map that cannot be read: any file may have gone into the bundle.
        reads: new Set([...zone.graph, ...(appSources(outcome.files!.get(MAPS[target])) ?? Object.keys(files))]),
      };
    };
    this.#kept = {
      files: new Map(Object.entries(files).map(([path, content]) => [path, typeof content === 'string' ? content : content.slice()])),
      test: new Set(graph.zones.test),
      renderer: graph.renderer,
      targets: { client: share('client'), server: share('server') },
    };
  }
}
