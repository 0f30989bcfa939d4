/**
 * The development loop of `platform dev`: the core's compile loop (`CompileLoop`) hosted on the local
 * server: compile (client and server, type-checked, with one long-lived esbuild context per target),
 * serve each good generation, watch the files, rebuild and promote. A failed rebuild keeps the last
 * good one serving (DG1602); a server side that cannot take over restores the last good one (DG1603);
 * a changed `client.runtime` needs a restart (DG1605); a manifest that cannot be watched is said once
 * (DG1604). The tests run on each generation that serves. Every step is a `platform.dev.v0` event
 * through `emit`.
 */
import { Bundler } from '../bundle/index.ts';
import { BundleReuse, projectFiles, compileProject, type Compiler, type PreparedTests } from '../build/index.ts';
import { CompileLoop, type Built, type Promoted, type QuietPolicy, type Settled } from '../compile-loop/index.ts';
import { diagnostic, hasErrors, type Diagnostic } from '../diagnostics/index.ts';
import type { WritableFileSystem } from '../fs/index.ts';
import { canonicalJson } from '../hash/index.ts';
import { MANIFEST_FILE } from '../manifest/index.ts';
import { type CompileDiagnostic, compileDiagnostic, devEvent, type DevEvent, type DevAnalyzer, type DevBundler, type LocalHost, type LocalServer, refusedWriteDiagnostic } from '../local/index.ts';
import type { Generation } from '../generation/index.ts';
import { finishEvent, type TestEvent } from '../testing/index.ts';

/**
 * How long the files must be still before a rebuild is announced (an editor saving several files at
 * once). The build itself starts at the first change after quiet files (the loop's tentative build):
 * a change inside the window supersedes it.
 */
export const QUIET_WINDOW_MS = 12;

/** How long the first change after quiet files waits before its build starts: the other events of the same save, delivered together. */
export const FIRST_CHANGE_MS = 1;

/** `platform dev`'s policy: a fixed window, a save built at its first change, and a long build still served when the next save comes. */
const DEV_POLICY: QuietPolicy = { quietMs: () => QUIET_WINDOW_MS, tentativeMs: FIRST_CHANGE_MS };

/** How long the files must be still after a generation serves before its tests run (a save that follows soon cancels them). */
export const TESTS_QUIET_MS = 300;

/** How `platform dev` runs the app's tests: prepared with the session's compiler, run where `platform test` runs them. */
export interface DevTests {
  prepare(compiler: Compiler): Promise<PreparedTests>;
  run(prepared: PreparedTests): AsyncIterable<TestEvent>;
}

/** Paths whose changes never start a rebuild: the platform's own output and installed packages. */
export function ignoredChange(path: string): boolean {
  // The dev env values are the one file under .platform/ that changes what serves.
  if (path === '.platform/env.dev.local.json') return false;
  return /^(?:\.platform|node_modules|\.git)(?:\/|$)/.test(path) || /(?:^|\/)(?:\.#|#)[^/]*$|~$|\.swp$/.test(path);
}

export interface DevSessionOptions {
  fs: WritableFileSystem;
  compiler: Compiler;
  host: LocalHost;
  server: LocalServer;
  root: string;
  emit(event: DevEvent): void;
  /** Called once the first generation serves (discovery record, preview.ready). */
  onReady(generation: number): Promise<void>;
  /** Runs the tests on each generation that serves, once the files are quiet; without it, no tests run. */
  tests?: DevTests;
}

export class DevSession {
  readonly #options: DevSessionOptions;
  readonly #compiler: Compiler;
  readonly #bundler: DevBundler;
  readonly #analyzer: DevAnalyzer | undefined;
  readonly #loop: CompileLoop<Generation>;
  #closed = false;
  #ready = false;
  #testTimer: ReturnType<typeof setTimeout> | undefined;
  /** The test run in progress: its events, and whether a change has cancelled it. */
  #testRun: { events: AsyncIterator<TestEvent>; cancelled: boolean } | undefined;
  /**
   * Settles with DG1813 when a write of the session (the engine's files, the discovery record, the
   * generated types) was refused under the project: it builds nothing more, and its command ends.
   */
  readonly halted: Promise<Diagnostic>;
  #halt!: (diagnostic: Diagnostic) => void;

  constructor(options: DevSessionOptions) {
    this.#options = options;
    this.halted = new Promise((resolve) => (this.#halt = resolve));
    // One bundler for the whole session: esbuild re-parses only what changed.
    this.#bundler = options.host.bundler?.(options.compiler) ?? new Bundler(options.compiler.esbuild, options.compiler.library);
    // The type checks too, once moved: this thread then serves, and starts the next engine, while they run.
    this.#analyzer = options.host.analyzer?.(options.compiler);
    this.#compiler = { ...options.compiler, now: options.compiler.now ?? (() => options.host.now()), bundler: this.#bundler, ...(this.#analyzer ? { analyzer: this.#analyzer } : {}) };
    const { server } = options;
    this.#loop = new CompileLoop<Generation>(
      {
        now: () => options.host.now(),
        emit: (event) => options.emit(event),
        build: (changed) => this.#compile(changed),
        refuse: (next, serving) => refusal(next, serving),
        promote: (next) => this.#promote(next),
        abandon: async (reason) => {
          // Superseded: nothing it made is used (the next build writes the generated files). A failed
          // or refused build's generated files are still written: they describe the files as they are.
          if (reason === 'superseded') this.#generated = undefined;
          await server.abandonPrestart?.();
        },
        settled: (outcome) => this.#settled(outcome),
        crashed: (error) => this.#stopOnRefusal(error),
        turnEnded: () => this.#turnEnded(),
      },
      DEV_POLICY,
    );
  }

  get ready(): boolean {
    return this.#ready;
  }

  /** The last successful build's bundles, one of which the next build may keep. */
  readonly #reuse = new BundleReuse();

  async #compile(changed: readonly string[]): Promise<Built<Generation>> {
    const { fs } = this.#options;
    // The edited file is type-checked first: its errors are the likely ones.
    const focus = changed.find((path) => /\.tsx?$/.test(path));
    let outcome;
    try {
      // What serves is the client and the server: the tests' files are checked when the tests run.
      // The engine for a new server side is made from the bundle while the types are checked (it serves only if they pass).
      const { server } = this.#options;
      // An edit only one bundle can see bundles that one alone and keeps the other's outputs, as the
      // playground does (bundle-reuse.ts). Every zone is type-checked whatever is bundled.
      const files = await projectFiles(fs);
      ({ outcome } = await this.#reuse.compile(files, (targets) => {
        // The engine for a new server side starts from the server's bundle: none is made when it is kept.
        const prestart = server.prestart && targets.includes('server') ? { onBundled: (bundled: Generation) => server.prestart!(bundled) } : {};
        return compileProject(fs, this.#compiler, { targets, zones: ['client', 'server'], ...(focus ? { focus } : {}), ...prestart });
      }));
    } catch (error) {
      return { ok: false, diagnostics: [diagnostic('DG1501', `The compiler failed: ${error instanceof Error ? error.message : String(error)}`)] };
    }
    this.#generated = outcome.analysis.generated;
    if (hasErrors(outcome.diagnostics) || !outcome.files || !outcome.analysis.manifest) return { ok: false, diagnostics: outcome.diagnostics };
    const { timings } = outcome.analysis;
    const phases = { analyze: Math.round(timings.analyze), typecheck: Math.round(timings.typecheck), bundle: Math.round(outcome.bundleTime) };
    return { ok: true, generation: { manifest: outcome.analysis.manifest, files: outcome.files }, warnings: outcome.diagnostics, phases };
  }

  /** The local server takes the generation; a new runtime is said (`server.restarted`) before the loop says what serves. */
  async #promote(next: Generation): Promise<Promoted> {
    const { emit, server } = this.#options;
    const promoted = await server.promote(next);
    if (!promoted.ok) {
      if (promoted.previous === 'restarted') emit(devEvent('server.restarted', { mode: 'dev', url: server.url, urls: [server.url], generation: this.#loop.generation - 1, reason: 'back on the last good generation' }));
      const hint =
        promoted.code === 'provision_failed'
          ? 'Make the database change compatible, or adopt it with platform state reset --state dev --confirm <app> (a recovery copy is kept).'
          : promoted.code === 'runtime_not_ready'
            ? 'The engine or the app in it was still starting at its time limit (counted only while platform dev was free, not during type checks): a server module that loops or waits as it loads never starts; otherwise the machine is busy, and saving again retries.'
            : 'Fix the server module; the next good rebuild takes over by itself.';
      return { ...promoted, hint };
    }
    // The first generation starts the runtime: that is no restart.
    if (!this.#ready) return { ok: true, restarted: false };
    if (promoted.restarted) emit(devEvent('server.restarted', { mode: 'dev', url: server.url, urls: [server.url], generation: this.#loop.generation, reason: 'the server side changed' }));
    return promoted;
  }

  async #settled(outcome: Settled<Generation>): Promise<void> {
    if (outcome.kind !== 'served' || this.#closed) return;
    if (!this.#ready) {
      this.#ready = true;
      await this.#options.onReady(outcome.generation);
      // The first generation serves: rebuilds may now bundle beside the type check, once the bundler has
      // moved, and then check on a thread of their own, once the analyzer has (each warms up on this project).
      void (async () => {
        await this.#bundler.moveOffThread?.();
        if (!this.#closed) await this.#analyzer?.moveOffThread?.();
      })();
    }
    this.#scheduleTests(outcome.generation);
  }

  /** Builds and serves the first generation; then every quiet window after a change builds the next. */
  async start(): Promise<void> {
    await this.#loop.run([]);
  }

  /**
   * A file changed (project-relative path): a rebuild is announced once the files are quiet. The first
   * change after quiet files starts it tentatively at once (FIRST_CHANGE_MS later, with the other
   * events of the same save).
   */
  changed(paths: readonly string[]): void {
    if (this.#closed) return;
    const relevant = paths.filter((p) => !ignoredChange(p));
    if (!relevant.length) return;
    this.#cancelTests();
    this.#loop.changed(relevant);
  }

  /** Stops on a refused write: nothing more is built, and `halted` says why. Any other error is thrown on. */
  #stopOnRefusal(error: unknown): void {
    const refused = refusedWriteDiagnostic(error);
    if (!refused) throw error;
    this.#closed = true;
    void this.#loop.close();
    this.#halt(refused);
  }

  /** The generated files (the contract's types) of the last compile, not yet written. */
  #generated: ReadonlyMap<string, string> | undefined;
  /** What was last written to each generated file. */
  readonly #written = new Map<string, string>();
  /** The generated files being written, one build's after another's. */
  #writing: Promise<void> = Promise.resolve();

  /**
   * Written after the session's turn, not in it: a save that comes meanwhile (the next edit, right
   * after compile.ready) starts its build at once instead of waiting for the quiet window. Nothing the
   * next build reads is among them (the analysis never reads .platform/).
   */
  #turnEnded(): void {
    const generated = this.#generated;
    this.#generated = undefined;
    // A file whose write fails is written again after the next build (it is not recorded as written);
    // one refused (a link where it goes) stops the session.
    if (generated) this.#writing = this.#writing.then(() => this.#writeGenerated(generated)).catch((error: unknown) => { if (refusedWriteDiagnostic(error)) this.#stopOnRefusal(error); });
  }

  /**
   * Writes the generated files that changed, for the person's editor. After the generation serves, not
   * before: what serves never reads them (the compiler has them in memory).
   */
  async #writeGenerated(generated: ReadonlyMap<string, string>): Promise<void> {
    for (const [path, text] of generated) {
      if (this.#written.get(path) === text) continue;
      await this.#options.fs.writeFile(path, text);
      this.#written.set(path, text);
    }
  }

  /** The tests of the generation now serving run once the files have been quiet for TESTS_QUIET_MS. */
  #scheduleTests(generation: number): void {
    if (!this.#options.tests || this.#closed) return;
    clearTimeout(this.#testTimer);
    this.#testTimer = setTimeout(() => this.#startTests(generation), TESTS_QUIET_MS);
  }

  /** A change stops the tests: a waiting run never starts, a running one ends at its next event (its engine is ended). */
  #cancelTests(): void {
    clearTimeout(this.#testTimer);
    if (!this.#testRun) return;
    this.#testRun.cancelled = true;
    void this.#testRun.events.return?.()?.catch(() => undefined);
  }

  #startTests(generation: number): void {
    const tests = this.#options.tests!;
    // Preparing uses the session's type checker, so it takes the rebuilds' turn: a change meanwhile waits for it.
    if (this.#loop.busy || this.#closed) return;
    const preparing = tests.prepare(this.#compiler).catch((error: unknown) => ({ diagnostics: [diagnostic('DG1501', `The compiler failed: ${error instanceof Error ? error.message : String(error)}`)], tests: [] }) as PreparedTests);
    this.#loop.occupy(preparing);
    void preparing.then((prepared) => {
      if (this.#closed || this.#loop.pending || this.#loop.generation !== generation) return;
      return this.#runTests(prepared, generation);
    });
  }

  async #runTests(prepared: PreparedTests, generation: number): Promise<void> {
    const { emit } = this.#options;
    const events = this.#options.tests!.run(prepared)[Symbol.asyncIterator]();
    const run = { events, cancelled: false };
    this.#testRun = run;
    let passed = 0;
    let failed = 0;
    try {
      for (;;) {
        const next = await events.next();
        if (next.done || run.cancelled || this.#closed) break;
        if (next.value.kind === 'test.case.pass') passed++;
        else if (next.value.kind === 'test.case.fail') failed++;
        emit({ ...next.value, generation } as DevEvent);
      }
    } catch (error) {
      if (!run.cancelled) prepared.diagnostics.push(diagnostic('DG1902', `The test run failed: ${error instanceof Error ? error.message : String(error)}`));
    } finally {
      if (this.#testRun === run) this.#testRun = undefined;
    }
    // A cancelled run says nothing more: the next generation's run will.
    if (run.cancelled || this.#closed) return;
    emit({ ...finishEvent(passed, failed, prepared.diagnostics), generation });
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#cancelTests();
    await this.#loop.close();
    await this.#writing;
    await this.#bundler.dispose();
    await this.#analyzer?.dispose();
  }
}

/** A changed `client.runtime` needs a restart of `platform dev` (DG1605): the previous generation still serves. */
function refusal(next: Generation, serving: Generation | undefined): CompileDiagnostic | undefined {
  if (!serving) return undefined;
  if (canonicalJson(serving.manifest.client?.runtime ?? null) === canonicalJson(next.manifest.client?.runtime ?? null)) return undefined;
  return compileDiagnostic('DG1605', `client.runtime changed in ${MANIFEST_FILE} while the dev server runs; the previous generation is still serving.`, {
    file: MANIFEST_FILE,
    hint: 'Stop platform dev (Ctrl-C) and start it again to serve the new client runtime.',
  });
}
