/**
 * A preview build after an edit that can only change the server keeps the previous build's client
 * bundle instead of bundling the client again (the playground's compiler worker; issue 16: a server
 * edit in todo-react re-bundled React DOM, 150 to 200 ms of esbuild-wasm on the edit's path).
 *
 * The client bundle is made from the client zone's files (the module graph from the client entry),
 * the stylesheets and media it imports, the packages it imports (node_modules, package.json), the
 * manifest (the document's title, language, budgets) and the platform library; a relative import
 * resolves by which files exist. So the previous client outputs are kept only when:
 * - the previous preview build succeeded (its outputs were served) and was not a framework project's;
 * - the files are the same paths as then (nothing added, removed or renamed);
 * - every file whose content changed was, in the previous build's graph, reached by the server or test
 *   zone and not by the client zone, and is not a stylesheet or media the client imports, nor the
 *   manifest, package.json or anything under node_modules/ or .platform/.
 * After the build the new graph is checked again: the client zone, its assets and renderer must be
 * what they were (they cannot differ when the client's files did not change; if they do, the build
 * is made again in full). The type check is not affected: every zone is checked as before.
 */
import { hasErrors, type Diagnostic } from '../diagnostics';
import type { Renderer } from '../analyze/packages';
import type { BuildOutcome } from './build';
import type { BuildTarget } from './bundle';

type FileContent = string | Uint8Array;

/** What a successful preview build leaves for the next one. */
interface KeptBuild {
  files: Map<string, FileContent>;
  client: Set<string>;
  server: Set<string>;
  test: Set<string>;
  assets: Set<string>;
  renderer: Renderer;
  /** The client's outputs (`client/…`), copies owned here (what is posted to the page is transferred). */
  outputs: Map<string, Uint8Array>;
  /** What bundling the client said that is not an error (the app's share of the bundle, DG1406). */
  diagnostics: Diagnostic[];
}

export type ReuseDecision = { reuse: true; changed: string[] } | { reuse: false; reason: string };

/** Paths never to be taken as server-only, whatever the graph says. */
const CLIENT_INPUTS = /^(app\.manifest\.json|package\.json|package-lock\.json|tsconfig\.json|node_modules\/|\.platform\/|public\/)/;

const FRAMEWORK_RECORD = '.platform/framework.json';

function sameContent(a: FileContent, b: FileContent): boolean {
  if (typeof a === 'string' || typeof b === 'string') return a === b;
  if (a.byteLength !== b.byteLength) return false;
  for (let i = 0; i < a.byteLength; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Whether a diagnostic came from bundling the client (carried with its outputs when they are kept). */
function fromClientBundle(d: Diagnostic): boolean {
  if (d.code === 'DG1406' || d.code === 'DG1405') return true;
  if (d.code === 'DG1501') return d.message.startsWith('Bundling the client');
  if (d.code === 'DG1401') return d.message.includes('client/');
  return false;
}

const sameSet = (a: ReadonlySet<string>, b: readonly string[]): boolean => a.size === new Set(b).size && b.every((path) => a.has(path));

/** The previous successful preview build's client outputs, and when they may serve the next build. */
export class BundleReuse {
  #kept: KeptBuild | undefined;

  /** Whether the next preview build of `files` may keep the previous client outputs, and if not, why. */
  decide(files: Readonly<Record<string, FileContent>>): ReuseDecision {
    const kept = this.#kept;
    if (!kept) return { reuse: false, reason: 'no earlier successful build' };
    if (FRAMEWORK_RECORD in files || kept.files.has(FRAMEWORK_RECORD)) return { reuse: false, reason: 'a framework project' };
    const paths = Object.keys(files);
    if (paths.length !== kept.files.size || paths.some((path) => !kept.files.has(path))) return { reuse: false, reason: 'files were added, removed or renamed' };
    const changed = paths.filter((path) => !sameContent(files[path]!, kept.files.get(path)!));
    if (changed.length === 0) return { reuse: false, reason: 'nothing changed' };
    for (const path of changed) {
      if (CLIENT_INPUTS.test(path)) return { reuse: false, reason: `${path} may change the client` };
      if (kept.client.has(path) || kept.assets.has(path)) return { reuse: false, reason: `${path} is in the client's graph` };
      if (!kept.server.has(path) && !kept.test.has(path)) return { reuse: false, reason: `${path} is in no zone's graph` };
    }
    return { reuse: true, changed };
  }

  /**
   * A preview build of `files`: `compile(targets)` makes it (the analysis, the type check and the
   * bundles of those targets). With the client kept, only the server is bundled and the previous
   * client outputs (copies) complete the files.
   */
  async compile(files: Readonly<Record<string, FileContent>>, compile: (targets: readonly BuildTarget[]) => Promise<BuildOutcome>): Promise<{ outcome: BuildOutcome; decision: ReuseDecision; reused: boolean }> {
    const decision = this.decide(files);
    const kept = this.#kept;
    if (decision.reuse && kept) {
      const outcome = await compile(['server']);
      const graph = outcome.analysis.graph;
      const agrees = graph !== undefined && sameSet(kept.client, graph.zones.client) && sameSet(kept.assets, graph.assets) && graph.renderer === kept.renderer;
      if (agrees) {
        if (!outcome.files || hasErrors(outcome.diagnostics)) return { outcome, decision, reused: false };
        const merged = new Map(outcome.files);
        for (const [path, bytes] of kept.outputs) merged.set(path, bytes.slice());
        const diagnostics = [...outcome.diagnostics, ...kept.diagnostics];
        this.#remember(files, outcome, kept.outputs, kept.diagnostics);
        return { outcome: { ...outcome, files: merged, diagnostics }, decision, reused: true };
      }
    }
    const outcome = await compile(['client', 'server']);
    if (outcome.files?.has('client/app.js') && !hasErrors(outcome.diagnostics)) {
      const analysed = new Set(outcome.analysis.diagnostics);
      const outputs = new Map([...outcome.files].filter(([path]) => path.startsWith('client/')).map(([path, bytes]) => [path, bytes.slice()] as const));
      this.#remember(files, outcome, outputs, outcome.diagnostics.filter((d) => !analysed.has(d) && fromClientBundle(d)));
    }
    return { outcome, decision, reused: false };
  }

  /** Forgets the kept build (the next preview build bundles the client). */
  clear(): void {
    this.#kept = undefined;
  }

  #remember(files: Readonly<Record<string, FileContent>>, outcome: BuildOutcome, outputs: Map<string, Uint8Array>, diagnostics: Diagnostic[]): void {
    const graph = outcome.analysis.graph;
    if (!graph) return void (this.#kept = undefined);
    this.#kept = {
      files: new Map(Object.entries(files).map(([path, content]) => [path, typeof content === 'string' ? content : content.slice()])),
      client: new Set(graph.zones.client),
      server: new Set(graph.zones.server),
      test: new Set(graph.zones.test),
      assets: new Set(graph.assets),
      renderer: graph.renderer,
      outputs,
      diagnostics,
    };
  }
}
