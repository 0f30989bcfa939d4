/** The compiler in Node: native esbuild, the Library from this checkout, and a type-check session. */
import * as esbuild from 'esbuild';
import type { Compiler } from '../../core/build/index.ts';
import type { Library, PackageFiles } from '../../core/project/index.ts';
import { type PreparedFiles, TypeCheckSession } from '../../core/analyze/index.ts';
import type { Diagnostic } from '../../core/diagnostics/index.ts';
import { nodeSha256 } from './hash.ts';
import { nodeLibrary } from './library.ts';
import { startupSnapshot } from './startup-snapshot.ts';

export function nodeCompiler(): Compiler & { typecheck: KeptResultsSession } {
  const library = nodeLibrary();
  // Started from the CLI's start-up snapshot: the library's files are parsed and bound already.
  const prepared = startupSnapshot()?.prepared;
  return { esbuild, library, typecheck: new KeptResultsSession(library, { forTypeErrorsOnly: true, prepared }) };
}

/**
 * A type-check session's per-file results as one process leaves them for the next (plain JSON): each
 * file's diagnostics under the key the analysis gave them, each script's declaration signature under its
 * text's digest and context, and the server zone's declarations under each file's key. Every key is a
 * digest of what the result depends on (analyze.ts), except that it counts the installed packages'
 * changes in the session instead of naming them: `packages`, a digest of the packages' files, stands for
 * them across processes. The CLI keeps them in the project's `.platform/check-cache.json` (src/cli/check-cache.ts).
 */
export interface KeptResults {
  packages: string;
  checked: Record<string, { key: string; view?: string; diagnostics: Diagnostic[] }>;
  signatures: Record<string, { text: string; context: string; signature: string | null }>;
  declarations: { keys: Array<[path: string, key: string]>; files: Record<string, string> } | null;
}

const digest = nodeSha256;
const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/**
 * A session that takes an earlier process's results (`adopt`) and answers from them what they hold for
 * exactly the same key, so a check after a one-file edit in a new process types only what the edit can
 * reach, as a warm session does; and gives the results of this run (`keptResults`) for the next. Without
 * `adopt` it is the session itself.
 */
export class KeptResultsSession extends TypeCheckSession {
  #earlier: KeptResults | undefined;
  /** The results of this run, each as it was answered (adopted or found), or undefined when not keeping. */
  #now: KeptResults | undefined;
  #texts = new Map<string, string>();
  /** The server's declarations answered from the earlier results, not emitted: emitted when a check needs them. */
  #pendingEmit: { paths: readonly string[]; keyOf: (path: string) => string } | undefined;
  #adoptedDeclarations: ReadonlyMap<string, string> | undefined;

  constructor(library: Library, options: { forTypeErrorsOnly?: boolean; prepared?: PreparedFiles } = {}) {
    super(library, options);
  }

  /** Takes `earlier` (undefined: none) and starts keeping this run's results. */
  adopt(earlier: KeptResults | undefined): void {
    this.#earlier = earlier;
    this.#now = { packages: '', checked: {}, signatures: {}, declarations: null };
  }

  /** This run's results, for a later process; undefined unless `adopt` was called. */
  keptResults(): KeptResults | undefined {
    return this.#now && copy(this.#now);
  }

  /** The earlier results, when their packages are these. */
  #usable(): KeptResults | undefined {
    return this.#earlier && this.#now && this.#earlier.packages === this.#now.packages ? this.#earlier : undefined;
  }

  override sync(files: ReadonlyMap<string, string>): void {
    super.sync(files);
    if (this.#now) this.#texts = new Map(files);
  }

  override syncPackages(files: PackageFiles): void {
    super.syncPackages(files);
    if (this.#now) {
      const texts = [...files.texts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      this.#now.packages = digest(JSON.stringify([texts, [...files.present].sort()]));
    }
  }

  override signature(path: string, context: string): string | undefined {
    const text = this.#texts.get(path);
    if (!this.#now || text === undefined) return super.signature(path, context);
    const textDigest = digest(text);
    const kept = this.#usable()?.signatures[path];
    const signature = kept && kept.text === textDigest && kept.context === context ? (kept.signature ?? undefined) : super.signature(path, context);
    this.#now.signatures[path] = { text: textDigest, context, signature: signature ?? null };
    return signature;
  }

  override emitDeclarations(paths: readonly string[], keyOf: (path: string) => string): Map<string, string> {
    if (!this.#now) return super.emitDeclarations(paths, keyOf);
    const keys = paths.filter((path) => this.#texts.has(path) && /\.(tsx?|mts|cts)$/.test(path)).map((path): [string, string] => [path, `${this.packagesVersion}:${keyOf(path)}`]);
    const kept = this.#usable()?.declarations;
    if (kept && JSON.stringify(kept.keys) === JSON.stringify(keys)) {
      this.#pendingEmit = { paths, keyOf };
      this.#adoptedDeclarations = new Map(Object.entries(kept.files));
      this.#now.declarations = copy(kept);
      return new Map(this.#adoptedDeclarations);
    }
    this.#pendingEmit = undefined;
    this.#adoptedDeclarations = undefined;
    const emitted = super.emitDeclarations(paths, keyOf);
    this.#now.declarations = { keys, files: Object.fromEntries(emitted) };
    return emitted;
  }

  override get emittedDeclarations(): ReadonlyMap<string, string> {
    return this.#adoptedDeclarations ?? super.emittedDeclarations;
  }

  /**
   * The server's declarations answered from the earlier results are emitted now: a check of a server
   * file reports their errors (TypeCheckSession.check). A check of other files needs none of it.
   */
  #emitPending(): void {
    const pending = this.#pendingEmit;
    if (!pending) return;
    this.#pendingEmit = undefined;
    this.#adoptedDeclarations = undefined;
    super.emitDeclarations(pending.paths, pending.keyOf);
  }

  override check(paths: readonly string[]): Diagnostic[] {
    if (this.#pendingEmit && paths.some((path) => this.#pendingEmit!.paths.includes(path))) this.#emitPending();
    return super.check(paths);
  }

  override checkCached(path: string, key: string, view?: string): Diagnostic[] {
    if (!this.#now) return super.checkCached(path, key, view);
    const kept = this.#usable()?.checked[path];
    // As the session's own (TypeCheckSession.checkCached): the same key, or the same view of the contract and no errors.
    if (kept && (kept.key === key || (view !== undefined && kept.view === view && kept.diagnostics.length === 0))) {
      this.#now.checked[path] = { key, ...(view !== undefined ? { view } : {}), diagnostics: copy(kept.diagnostics) };
      return copy(kept.diagnostics);
    }
    const diagnostics = super.checkCached(path, key, view);
    // A copy as found: the analysis marks its diagnostics afterwards (attribution).
    this.#now.checked[path] = { key, ...(view !== undefined ? { view } : {}), diagnostics: copy(diagnostics) };
    return diagnostics;
  }
}
