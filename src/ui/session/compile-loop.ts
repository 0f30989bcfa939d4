/**
 * The playground's host of the core's compile loop (src/core/compile-loop): its adaptive quiet window
 * (none after a pause, a little longer than the gaps while typing), a build overtaken by an edit
 * dropped, the runtime restarted on each new generation from committed state (kept when only the
 * client changed), a failed rebuild keeping the last good generation serving (DG1602), a refused
 * takeover (DG1603) restarting the last good one, and the last good build of an earlier session shown
 * at once while this session's first build is made (and kept, marked, when that build fails). The
 * session's first build is bundled before it is type-checked, so its preview does not wait for the
 * check; a build the check then finds broken is taken down.
 */
import { isTestFile } from '../../core/project';
import { AdaptiveQuietWindow, CompileLoop as Loop, type Built, type Promoted, type Settled } from '../../core/compile-loop';
import type { CommittedState } from '../runtime/durable-log';
import { diagnostic, sortDiagnostics, type Diagnostic } from '../../core/diagnostics';
import { canonicalJson } from '../../core/hash';
import { CLIENT_BUNDLE, PUBLIC_PREFIX, sameClient, sameServer, SERVER_BUNDLE } from '../../core/generation';
import { MANIFEST_FILE, type Manifest } from '../../core/manifest';
import { SCHEMA_CHANGE_REFUSED } from '../../core/runtime';
import type { ReadyDetails } from '../../core/local';
import type { CompileResult } from '../compiler-client';
import type { ProjectStore } from './project-store';
import type { LastGoodBuild } from '../projects/store';
import { appOf, type NumberedGeneration } from './generation';
import { type SessionCompiler, type SessionContext, type SessionRuntime } from './session-state';

const encoder = new TextEncoder();

export interface CompileLoopParts {
  compiler: SessionCompiler;
  runtime: SessionRuntime;
  store: ProjectStore;
  /** The app's committed data as last handed over, for a restart when the runtime holds none. */
  committed(): CommittedState | undefined;
  /** After the runtime started on a new generation, before the previews show it (a share link's data goes in). */
  started(): Promise<void>;
}

/** What the build the loop is settling was made from, for what follows it. */
interface Making {
  files: Record<string, string>;
  /** What the compiler answered (none when it failed before answering). */
  result?: CompileResult;
  /** Bundled before its type check (the session's first build, nothing stored shown). */
  trusted: boolean;
  diagnostics: Diagnostic[];
}

export class CompileLoop {
  readonly #ctx: SessionContext;
  readonly #parts: CompileLoopParts;
  readonly #quiet = new AdaptiveQuietWindow();
  readonly #loop: Loop<NumberedGeneration>;
  #focus: string | undefined;
  #dependencies: Record<string, Uint8Array> | undefined;
  /** Whether a build of this session has produced a generation (the first one is bundled before its check). */
  #built = false;
  /** A quick preview (src/ui/quick-preview.ts) failed to start: this session's builds are the compiler's. */
  #quickRefused = false;
  /** The build being settled. */
  #making: Making | undefined;

  constructor(ctx: SessionContext, parts: CompileLoopParts) {
    this.#ctx = ctx;
    this.#parts = parts;
    this.#loop = new Loop<NumberedGeneration>(
      {
        now: () => performance.now(),
        emit: (event) => ctx.record(event),
        build: () => this.#build(),
        promote: (next, serving) => this.#promote(next, serving),
        settled: (outcome) => this.#settled(outcome),
      },
      // An edit after a pause builds at once; a burst waits for its end; what an edit overtakes never shows.
      { quietMs: (now) => this.#quiet.edited(now), dropOvertaken: true },
    );
  }

  /**
   * The session begins: the last good build an earlier session kept is shown at once, while the
   * compiler starts and this session's first build is made (`restoredFrom` marks it until then).
   */
  begin(): void {
    const kept = this.#parts.store.loadLastGood().catch(() => undefined);
    this.#hasStored = kept.then((build) => build !== undefined);
    void this.#showStored(kept);
    this.#loop.buildNow();
  }

  /** Whether an earlier session kept a last good build (shown as the session begins). */
  #hasStored: Promise<boolean> = Promise.resolve(false);

  /** Files changed (`paths`; `focus`: the file edited, checked first): a build after the quiet window. */
  edited(paths: readonly string[], focus?: string): void {
    this.#focus = focus;
    this.#loop.changed(paths);
  }

  /** A build at once of the files as they are. */
  schedule(): void {
    this.#loop.buildNow();
  }

  /** Packages installed in a WebContainer (`node_modules/…` → bytes): the next builds resolve from them. */
  setDependencies(modules: Record<string, Uint8Array>): void {
    this.#dependencies = Object.keys(modules).length ? modules : undefined;
    this.#loop.buildNow();
  }

  /** The same generation again under a new number: the previews reload and show the data as it is now. */
  reloadPreviews(): void {
    const generation = this.#ctx.state.generation;
    if (generation) {
      const number = this.#loop.renumber();
      this.#ctx.update({ generation: { ...generation, number, client: number } });
    }
  }

  dispose(): void {
    void this.#loop.close();
  }

  #withDependencies(files: Record<string, string>): Record<string, string | Uint8Array> {
    return this.#dependencies ? { ...files, ...this.#dependencies } : files;
  }

  /** The files as they are now, built: undefined when an edit overtook them. */
  async #build(): Promise<Built<NumberedGeneration> | undefined> {
    const ctx = this.#ctx;
    const { compiler } = this.#parts;
    const files = ctx.state.project.files;
    const number = this.#loop.generation;
    this.#making = undefined;
    ctx.update({ compile: ctx.state.generation || ctx.state.compile !== 'loading' ? 'compiling' : 'loading' });
    performance.mark('platform:compile-start');
    let result: CompileResult | undefined;
    // The session's first build is bundled, previewed and then type-checked (#checkAfter): its preview
    // waits for the bundle, not for the whole project's check; one found broken is taken down. While
    // the last good build of an earlier session is kept (a reopened project), it is shown at once
    // (#showStored): the first build is checked before it replaces that one, as every later build is,
    // so files that do not check never run.
    const trusted = !this.#built && !(await this.#hasStored);
    try {
      result = await compiler.compile(this.#withDependencies(files), 'preview', this.#focus, { skipTypecheck: trusted, quick: !this.#quickRefused });
    } catch (error) {
      this.#making = { files, trusted: false, diagnostics: [] };
      return { ok: false, diagnostics: [diagnostic('DG1501', `The compiler failed: ${error instanceof Error ? error.message : String(error)}`)] };
    }
    if (!result || files !== ctx.state.project.files) return undefined; // overtaken by a newer edit
    // Errors only in test files block the tests, not the app: the preview is built without them.
    if (!isBuilt(result) && onlyTestErrors(result.diagnostics)) {
      const app = Object.fromEntries(Object.entries(files).filter(([path]) => !isTestFile(path)));
      const retry = await compiler.compile(this.#withDependencies(app), 'preview', this.#focus, { skipTypecheck: trusted, quick: !this.#quickRefused }).catch(() => undefined);
      if (files !== ctx.state.project.files) return undefined;
      if (retry && isBuilt(retry)) result = { ...retry, diagnostics: result.diagnostics };
    }
    // For `npm run bench` (bench/edits.ts): the worker's own timings of the build, where an edit's time goes.
    performance.mark('platform:compile-done', { detail: result.timings });
    const diagnostics = sortDiagnostics(result.diagnostics);
    this.#making = { files, result, trusted, diagnostics };
    if (!isBuilt(result)) return { ok: false, diagnostics };
    this.#built = true;
    const details: ReadyDetails = { ...(result.kept ? { [result.kept]: 'kept' } : {}), ...(trusted ? { typecheck: 'after' as const } : {}) };
    return { ok: true, generation: this.#generationOf(files, result, number), warnings: diagnostics, details };
  }

  /**
   * A client-only edit leaves the server and the manifest as they were: the running runtime (and its
   * uncommitted-to-disk state) serves the new client as it is; only the previews reload. (The worker
   * keeps the server's outputs after such an edit, `server=kept`: the same bytes, so the same code.)
   * Otherwise the runtime restarts on the new server from the committed data; one that cannot start
   * hands back to the last good generation (DG1603).
   */
  async #promote(next: NumberedGeneration, previous: NumberedGeneration | undefined): Promise<Promoted> {
    const ctx = this.#ctx;
    const { runtime } = this.#parts;
    // `previous`: what the loop serves, the generation the previews show.
    if (previous !== undefined && sameServer(previous, next) && runtime.phase === 'running') return { ok: true, restarted: false, details: { runtime: 'kept' } };
    this.#starts++;
    try {
      // Commits are exported to the trusted side in batches: take the latest before restarting.
      await runtime.flush();
      await runtime.start({ ...appOf(next), state: runtime.committedState ?? this.#parts.committed() });
    } catch (error) {
      if (this.#making?.result?.quick) {
        // The quick preview is a shortcut, never a verdict: the compiler's bundle of the same files decides.
        ctx.log('runtime.restarted', { reason: `The quick preview could not start (${error instanceof Error ? error.message : String(error)}); the compiler bundles the project.` });
        this.#quickRefused = true;
        this.#built = false;
        return { ok: false, again: true };
      }
      // An incompatible schema change names its table, field and reason in the message; its code says what it is.
      const schema = (error as { code?: unknown } | undefined)?.code === SCHEMA_CHANGE_REFUSED;
      const code = schema ? SCHEMA_CHANGE_REFUSED : 'runtime_not_ready';
      // The last good generation takes over again, on the data it was running with.
      const back = previous;
      if (back) {
        await runtime
          .start({ ...appOf(back), state: runtime.committedState ?? this.#parts.committed() })
          .catch((restart: unknown) => ctx.log('runtime.restarted', { reason: `The last good build could not restart: ${restart instanceof Error ? restart.message : String(restart)}` }));
      }
      return {
        ok: false,
        code,
        message: error instanceof Error ? error.message : String(error),
        previous: back ? 'restarted' : 'stopped',
        hint: schema ? 'Change the declaration back, or Reset data to adopt it (a recovery copy of the data is kept).' : 'Fix the cause above; the next good rebuild takes over by itself.',
        ...(schema ? { detail: { code: SCHEMA_CHANGE_REFUSED } } : {}),
      };
    }
    await this.#parts.started();
    return { ok: true, restarted: true };
  }

  /** What the session shows of a build the loop settled, and what follows it (the check a first build skipped, the build kept). */
  async #settled(outcome: Settled<NumberedGeneration>): Promise<void> {
    const ctx = this.#ctx;
    const making = this.#making;
    const timings = making?.result?.timings;
    if (outcome.kind === 'served') {
      const { next } = outcome;
      const trusted = making?.trusted ?? false;
      ctx.update({ compile: 'ready', checked: !trusted, takenDown: false, diagnostics: making?.diagnostics ?? outcome.warnings, generation: next, stale: false, restoredFrom: undefined, ...(timings ? { timings } : {}) });
      if (trusted && making) void this.#checkAfter(making.files, next);
      else if (making) this.#rememberGood(making.files, next);
      return;
    }
    const { head } = outcome;
    if (head.code === 'DG1603') {
      ctx.update({ compile: 'failed', checked: !(making?.trusted ?? false), diagnostics: [head, ...(making?.diagnostics ?? [])], stale: ctx.state.generation !== undefined, ...(timings ? { timings } : {}) });
      return;
    }
    // The build failed (its analysis, bundle or compiler): the type check still runs for a build that skipped it, for the whole list.
    const trusted = making?.trusted ?? false;
    const diagnostics = outcome.diagnostics;
    if (trusted && making) void this.#checkAfter(making.files, undefined, diagnostics);
    if (this.#showingStored() || (ctx.state.generation === undefined && making && (await this.#restoreLastGood(making.files)))) {
      ctx.update({ compile: 'failed', checked: !trusted, diagnostics, stale: true, ...(timings ? { timings } : {}) });
      return;
    }
    const serving = ctx.state.generation !== undefined;
    ctx.update({ compile: 'failed', checked: !trusted, diagnostics: serving ? [head, ...diagnostics] : diagnostics, stale: serving, ...(timings ? { timings } : {}) });
  }

  /** The build as a generation under the number the loop announced it with. */
  #generationOf(files: Record<string, string>, result: CompileResult, number: number): NumberedGeneration {
    // The bundles by artifact path, and the app's public/ files under the same prefix.
    const out = new Map(Object.entries(result.files!));
    for (const [path, text] of Object.entries(files)) if (path.startsWith(PUBLIC_PREFIX)) out.set(path, encoder.encode(text));
    const generation: NumberedGeneration = { number, client: number, manifest: JSON.parse(files[MANIFEST_FILE] ?? '{}') as Manifest, files: out };
    const previous = this.#ctx.state.generation;
    return previous && sameClient(previous, generation) ? { ...generation, client: previous.client } : generation;
  }

  /**
   * A session whose first build failed previews the last good build an earlier session kept (marked
   * by `restoredFrom`), on the committed data. False when there is none, or it could not start, or an
   * edit or a good build came first.
   */
  async #restoreLastGood(files: Record<string, string>, replacing?: number): Promise<boolean> {
    const ctx = this.#ctx;
    const kept = await this.#parts.store.loadLastGood();
    if (!kept || files !== ctx.state.project.files || ctx.state.generation?.number !== replacing) return false;
    const started = await this.#startKept(kept);
    if (!started) return false;
    const { generation } = started;
    if (ctx.state.generation?.number !== replacing || files !== ctx.state.project.files) return false;
    this.#stored = generation.number;
    this.#loop.adopt(generation);
    ctx.log('compile.restored', { generation: generation.number, savedAt: new Date(kept.savedAt).toISOString() });
    ctx.update({ generation, restoredFrom: kept.savedAt });
    return true;
  }

  /** How many times this loop has started the runtime: a start made after another one wins. */
  #starts = 0;

  /** A kept build as this session's next generation, its server started on the committed data (with the start's count); nothing when it cannot start. */
  async #startKept(kept: LastGoodBuild): Promise<{ generation: NumberedGeneration; start: number } | undefined> {
    const { runtime } = this.#parts;
    const number = this.#loop.renumber();
    const generation: NumberedGeneration = { ...kept.generation, number, client: number };
    const start = ++this.#starts;
    try {
      await runtime.start({ ...appOf(generation), state: runtime.committedState ?? this.#parts.committed() });
    } catch (error) {
      this.#ctx.log('runtime.restarted', { reason: `The last good build could not start: ${error instanceof Error ? error.message : String(error)}` });
      return undefined;
    }
    return { generation, start };
  }

  /**
   * The last good build an earlier session kept, shown at once as the session begins (before the
   * compiler is up), on the committed data. Nothing when there is none, or a build of this session
   * came first; a build of this session replaces it (keeping the runtime and the previews' pages when
   * the bundles are the same).
   */
  async #showStored(lookup: Promise<LastGoodBuild | undefined>): Promise<void> {
    const ctx = this.#ctx;
    const kept = await lookup;
    if (!kept || this.#starts !== 0 || ctx.state.generation) return;
    const started = await this.#startKept(kept);
    if (!started) return;
    const { generation, start } = started;
    // A build of this session started the runtime after this one (or is showing already): it wins.
    if (this.#starts !== start || ctx.state.generation) return;
    await this.#parts.started();
    if (this.#starts !== start || ctx.state.generation) return;
    ctx.log('compile.restored', { generation: generation.number, savedAt: new Date(kept.savedAt).toISOString(), while: 'starting' });
    this.#stored = generation.number;
    this.#loop.adopt(generation);
    ctx.update({ generation, restoredFrom: kept.savedAt });
  }

  /** The generation number of the stored build shown as the session began (until a build replaces it). */
  #stored: number | undefined;

  #showingStored(): boolean {
    return this.#stored !== undefined && this.#ctx.state.generation?.number === this.#stored;
  }

  /**
   * The type check a first build skipped: its diagnostics, unless an edit came first. A build it finds
   * broken (errors outside the test files) is taken down: the last good build an earlier session kept
   * takes its place, marked, or no preview shows; the status says why.
   */
  async #checkAfter(files: Record<string, string>, generation: NumberedGeneration | undefined, built: readonly Diagnostic[] = []): Promise<void> {
    const checked = await this.#parts.compiler.compile(files, 'check').catch(() => undefined);
    const ctx = this.#ctx;
    if (!checked || files !== ctx.state.project.files) return;
    // The check's diagnostics, and the build's own that the check does not make (the bundler's).
    const seen = new Set(checked.diagnostics.map((d) => canonicalJson(d)));
    const kept = ctx.state.diagnostics.filter((d) => d.code === 'DG1602' || d.code === 'DG1603');
    const diagnostics = [...kept, ...sortDiagnostics([...checked.diagnostics, ...built.filter((d) => !seen.has(canonicalJson(d)) && d.code !== 'DG1602' && d.code !== 'DG1603')])];
    // For the e2e tests and `npm run bench`: when the check a first build skipped has answered.
    performance.mark('platform:check-done');
    ctx.update({ diagnostics, checked: true });
    if (!generation) return;
    if (!diagnostics.some((d) => d.severity === 'error')) return this.#rememberGood(files, generation);
    if (onlyTestErrors(diagnostics)) return this.#rememberGood(undefined, generation);
    if (ctx.state.generation?.number !== generation.number) return;
    ctx.log('compile.taken-down', { generation: generation.number, errors: diagnostics.filter((d) => d.severity === 'error').length });
    if (await this.#restoreLastGood(files, generation.number)) {
      ctx.update({ compile: 'failed', takenDown: true, stale: true });
      return;
    }
    if (files !== ctx.state.project.files || ctx.state.generation?.number !== generation.number) return;
    this.#loop.adopt(undefined);
    ctx.update({ compile: 'failed', takenDown: true, generation: undefined, stale: false });
  }

  /**
   * Files that type-checked cleanly, for the next session's first build, and the build itself, which a
   * later session shows when its first build fails.
   */
  #rememberGood(files: Record<string, string> | undefined, generation: NumberedGeneration): void {
    const { store } = this.#parts;
    if (files && !this.#ctx.state.diagnostics.some((d) => d.severity === 'error')) void store.rememberGood(files);
    const { number: _number, client: _client, ...build } = generation;
    void store.saveLastGood({ generation: build, savedAt: Date.now() });
  }
}

const isBuilt = (result: CompileResult): boolean => !!(result.files?.[SERVER_BUNDLE] && result.files[CLIENT_BUNDLE]);

/** A test file: a `.test.ts` or `.test.tsx` under `tests/`, as `platform test` finds them. */
export { isTestFile };

/** Whether the errors among these diagnostics (at least one) are all in test files. */
export function onlyTestErrors(diagnostics: readonly Diagnostic[]): boolean {
  const errors = diagnostics.filter((d) => d.severity === 'error');
  return errors.length > 0 && errors.every((d) => d.file !== undefined && isTestFile(d.file));
}
