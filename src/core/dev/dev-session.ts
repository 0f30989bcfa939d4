/**
 * The development loop of `platform dev`: compile (client and server, type-checked, with one long-lived
 * esbuild context per target), serve the generation, watch the files, rebuild after a quiet window and
 * promote each good generation. A failed rebuild keeps the last good one serving (DG1602); a server side
 * that cannot take over restores the last good one (DG1603); a changed `client.runtime` needs a restart
 * (DG1605); a manifest that cannot be watched is said once (DG1604). Every step is a `platform.dev.v0`
 * event through `emit`.
 */
import { Bundler } from '../bundle/index.ts';
import { BundleReuse, projectFiles, compileProject, type Compiler, type PreparedTests } from '../build/index.ts';
import { diagnostic, hasErrors, type Diagnostic } from '../diagnostics/index.ts';
import type { WritableFileSystem } from '../fs/index.ts';
import { canonicalJson } from '../hash/index.ts';
import { MANIFEST_FILE } from '../manifest/index.ts';
import { compileDiagnostic, devEvent, type CompilePhases, type DevEvent, type DevAnalyzer, type DevBundler, type Generation, type LocalHost, type LocalServer, refusedWriteDiagnostic } from '../local/index.ts';
import { finishEvent, type TestEvent } from '../testing/index.ts';

/**
 * How long the files must be still before a rebuild is announced (an editor saving several files at
 * once). The build itself starts at the first change after quiet files (see Tentative): a change inside
 * the window supersedes it.
 */
export const QUIET_WINDOW_MS = 12;

/** How long the first change after quiet files waits before its build starts: the other events of the same save, delivered together. */
export const FIRST_CHANGE_MS = 1;

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

/**
 * A build started at the first change after quiet files, before the quiet window has passed. It says
 * nothing until the window passes; then it is announced (compile.start) and goes on as any other. A
 * change inside the window supersedes it: it ends without a word, serving nothing, and the next build
 * takes its changes too. A single save is built 12 ms sooner; a save of several files costs a build.
 */
interface Tentative {
  readonly changed: string[];
  /** Set when announced. */
  generation?: number;
  outcome?: 'announced' | 'superseded';
  readonly settled: Promise<boolean>;
  settle(announced: boolean): void;
}

function tentative(changed: string[]): Tentative {
  let settle!: (announced: boolean) => void;
  const settled = new Promise<boolean>((resolve) => (settle = resolve));
  return { changed, settled, settle };
}

type Compiled = { ok: true; generation: Generation; warnings: Diagnostic[]; phases: Omit<CompilePhases, 'promote'> } | { ok: false; diagnostics: Diagnostic[] };

export class DevSession {
  readonly #options: DevSessionOptions;
  readonly #compiler: Compiler;
  readonly #bundler: DevBundler;
  readonly #analyzer: DevAnalyzer | undefined;
  #generation = 0;
  #serving: Generation | undefined;
  #changed = new Set<string>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** The first change after quiet files is about to start a tentative build. */
  #starting: ReturnType<typeof setTimeout> | undefined;
  #tentative: Tentative | undefined;
  /** When the last change came (the host's clock). */
  #lastChange = -Infinity;
  #running: Promise<void> | undefined;
  #again = false;
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
  }

  get ready(): boolean {
    return this.#ready;
  }

  /** The last successful build's bundles, one of which the next build may keep. */
  readonly #reuse = new BundleReuse();

  async #compile(changed: readonly string[]): Promise<Compiled> {
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

  /** Builds and serves the first generation; then every quiet window after a change builds the next. */
  async start(): Promise<void> {
    await this.#rebuild([]);
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
    const now = this.#options.host.now();
    const afterQuiet = now - this.#lastChange >= QUIET_WINDOW_MS;
    this.#lastChange = now;
    for (const path of relevant) this.#changed.add(path);
    this.#cancelTests();
    const pending = this.#tentative;
    if (pending && !pending.outcome) {
      // Inside the window: the build in flight saw part of a save. Its changes go to the next build.
      pending.outcome = 'superseded';
      for (const path of pending.changed) this.#changed.add(path);
      pending.settle(false);
    }
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#quiet(), QUIET_WINDOW_MS);
    if (afterQuiet && !this.#running && !this.#tentative && !this.#starting) {
      this.#starting = setTimeout(() => {
        this.#starting = undefined;
        if (this.#running || this.#closed || !this.#changed.size) return;
        const build = tentative([...this.#changed].sort());
        this.#changed.clear();
        this.#tentative = build;
        this.#occupy(this.#rebuild(build.changed, build));
      }, FIRST_CHANGE_MS);
    }
  }

  /**
   * The window has passed since the last change seen. A change may still wait to be seen behind a long
   * turn (a type check holds the thread): the decision is taken a turn later, after those are in.
   */
  #quiet(): void {
    this.#timer = setTimeout(() => this.#quietNow(), 0);
  }

  /** The files have been quiet for the window: the tentative build in flight is announced, or the next build starts. */
  #quietNow(): void {
    const build = this.#tentative;
    if (build && !build.outcome && !this.#changed.size) {
      build.outcome = 'announced';
      build.generation = ++this.#generation;
      this.#options.emit(devEvent('compile.start', { generation: build.generation, changed: build.changed }));
      build.settle(true);
      return;
    }
    this.#kick();
  }

  #kick(): void {
    if (this.#running) {
      this.#again = true;
      return;
    }
    const changed = [...this.#changed].sort();
    this.#changed.clear();
    this.#occupy(this.#rebuild(changed));
  }

  /** The session's one turn (a rebuild, or tests being prepared on its type checker): a change meanwhile rebuilds after it. */
  #occupy(work: Promise<unknown>): void {
    this.#running = work
      .then(() => undefined)
      .finally(() => {
        this.#running = undefined;
        if (this.#again && !this.#closed) {
          this.#again = false;
          this.#kick();
        }
      });
  }

  /** The generated files (the contract's types) of the last compile, not yet written. */
  #generated: ReadonlyMap<string, string> | undefined;
  /** What was last written to each generated file. */
  readonly #written = new Map<string, string>();
  /** The generated files being written, one build's after another's. */
  #writing: Promise<void> = Promise.resolve();

  /** Stops on a refused write: nothing more is built, and `halted` says why. Any other error is thrown on. */
  #stopOnRefusal(error: unknown): void {
    const refused = refusedWriteDiagnostic(error);
    if (!refused) throw error;
    this.#closed = true;
    this.#halt(refused);
  }

  async #rebuild(changed: string[], tentative?: Tentative): Promise<void> {
    try {
      await this.#build(changed, tentative);
    } catch (error) {
      this.#stopOnRefusal(error);
    } finally {
      // Written after the session's turn, not in it: a save that comes meanwhile (the next edit, right
      // after compile.ready) starts its build at once instead of waiting for the quiet window. Nothing the
      // next build reads is among them (the analysis never reads .platform/).
      const generated = this.#generated;
      this.#generated = undefined;
      // A file whose write fails is written again after the next build (it is not recorded as written);
      // one refused (a link where it goes) stops the session.
      if (generated) this.#writing = this.#writing.then(() => this.#writeGenerated(generated)).catch((error: unknown) => { if (refusedWriteDiagnostic(error)) this.#stopOnRefusal(error); });
    }
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

  async #build(changed: string[], tentative?: Tentative): Promise<void> {
    const { emit, host, server } = this.#options;
    const started = host.now();
    let generation = 0;
    if (!tentative) {
      generation = ++this.#generation;
      emit(devEvent('compile.start', { generation, changed }));
    }
    const compiled = await this.#compile(changed);
    if (tentative) {
      const announced = await tentative.settled;
      if (this.#tentative === tentative) this.#tentative = undefined;
      if (!announced) {
        // Superseded: nothing it made is used (the next build writes the generated files).
        this.#generated = undefined;
        await server.abandonPrestart?.();
        return;
      }
      generation = tentative.generation!;
    }
    if (this.#closed) return;
    if (!compiled.ok) {
      await server.abandonPrestart?.();
      const first = !this.#serving;
      emit(
        devEvent('compile.diagnostic', {
          ...compileDiagnostic('DG1602', first ? 'The build failed; nothing serves until a rebuild succeeds.' : 'The rebuild failed; the previous generation is still serving.', {
            hint: 'Fix the errors below and save: the next good rebuild takes over by itself.',
          }),
          generation,
          diagnostics: compiled.diagnostics,
        }),
      );
      return;
    }
    const previous = this.#serving;
    const runtimeBefore = canonicalJson(previous?.manifest.client?.runtime ?? null);
    const runtimeAfter = canonicalJson(compiled.generation.manifest.client?.runtime ?? null);
    if (previous && runtimeBefore !== runtimeAfter) {
      await server.abandonPrestart?.();
      emit(
        devEvent('compile.diagnostic', {
          ...compileDiagnostic('DG1605', `client.runtime changed in ${MANIFEST_FILE} while the dev server runs; the previous generation is still serving.`, {
            file: MANIFEST_FILE,
            hint: 'Stop platform dev (Ctrl-C) and start it again to serve the new client runtime.',
          }),
          generation,
          diagnostics: [],
        }),
      );
      return;
    }
    const promoting = host.now();
    const promoted = await server.promote(compiled.generation);
    const phases: CompilePhases = { ...compiled.phases, promote: Math.round(host.now() - promoting) };
    if (this.#closed) return;
    if (!promoted.ok) {
      if (promoted.previous === 'restarted') emit(devEvent('server.restarted', { mode: 'dev', url: server.url, urls: [server.url], generation: generation - 1, reason: 'back on the last good generation' }));
      emit(
        devEvent('compile.diagnostic', {
          ...compileDiagnostic('DG1603', `The rebuilt server could not take over (${promoted.code}): ${promoted.message}${promoted.previous === 'restarted' ? ' The last good generation serves again.' : promoted.previous === 'kept' ? ' The last good generation still serves.' : ''}`, {
            hint:
              promoted.code === 'provision_failed'
                ? 'Make the database change compatible, or adopt it with platform state reset --state dev --confirm <app> (a recovery copy is kept).'
                : promoted.code === 'runtime_not_ready'
                  ? 'The engine or the app in it was still starting at its time limit (counted only while platform dev was free, not during type checks): a server module that loops or waits as it loads never starts; otherwise the machine is busy, and saving again retries.'
                  : 'Fix the server module; the next good rebuild takes over by itself.',
          }),
          generation,
          diagnostics: [],
        }),
      );
      return;
    }
    this.#serving = compiled.generation;
    if (!this.#ready) {
      this.#ready = true;
      emit(devEvent('compile.ready', { generation, durationMs: Math.round(host.now() - started), phases, restarted: false, diagnostics: compiled.warnings }));
      await this.#options.onReady(generation);
      // The first generation serves: rebuilds may now bundle beside the type check, once the bundler has
      // moved, and then check on a thread of their own, once the analyzer has (each warms up on this project).
      void (async () => {
        await this.#bundler.moveOffThread?.();
        if (!this.#closed) await this.#analyzer?.moveOffThread?.();
      })();
      this.#scheduleTests(generation);
      return;
    }
    if (promoted.restarted) emit(devEvent('server.restarted', { mode: 'dev', url: server.url, urls: [server.url], generation, reason: 'the server side changed' }));
    emit(devEvent('compile.ready', { generation, durationMs: Math.round(host.now() - started), phases, restarted: promoted.restarted, diagnostics: compiled.warnings }));
    this.#scheduleTests(generation);
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
    if (this.#running || this.#closed) return;
    const preparing = tests.prepare(this.#compiler).catch((error: unknown) => ({ diagnostics: [diagnostic('DG1501', `The compiler failed: ${error instanceof Error ? error.message : String(error)}`)], tests: [] }) as PreparedTests);
    this.#occupy(preparing);
    void preparing.then((prepared) => {
      if (this.#closed || this.#changed.size || this.#generation !== generation) return;
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
    clearTimeout(this.#timer);
    clearTimeout(this.#starting);
    if (this.#tentative && !this.#tentative.outcome) {
      this.#tentative.outcome = 'superseded';
      this.#tentative.settle(false);
    }
    this.#cancelTests();
    await this.#running?.catch(() => undefined);
    await this.#writing;
    await this.#bundler.dispose();
    await this.#analyzer?.dispose();
  }
}
