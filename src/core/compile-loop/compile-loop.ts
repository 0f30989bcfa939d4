/**
 * The compile loop of `platform dev` and of the playground, written once: when a build starts after
 * changes (a quiet window; a first change after quiet files built at once, tentatively), one build at
 * a time, a build overtaken by a newer change, the generation numbers, and what a build comes to: a
 * failed build keeps the last good generation serving (DG1602), a generation the host refuses (DG1605)
 * or that cannot take over (DG1603) leaves or brings back the last good one, and a good one serves
 * (`compile.ready`). Every step is a `platform.dev.v0` event. The host builds, promotes and reacts
 * (`CompileLoopHost`); what differs between the two is its policy (`QuietPolicy`) and its hooks.
 */
import type { Diagnostic } from '../diagnostics/index.ts';
import { compileDiagnostic, devEvent, type CompileDiagnostic, type CompilePhases, type DevEvent, type PromoteOutcome, type ReadyDetails } from '../local/index.ts';
import type { Result } from '../result.ts';

/** When builds start and what a change does to one in flight. */
export interface QuietPolicy {
  /** How long the files must be still after the change made at `now` before its build is announced (or, without `tentativeMs`, started). */
  quietMs(now: number): number;
  /**
   * The first change after quiet files starts its build this soon (ms), before the window has passed:
   * the build says nothing until the window passes, then it is announced; a change inside the window
   * supersedes it without a word, and the next build takes its changes too. Without it, builds start
   * once the window has passed.
   */
  tentativeMs?: number;
  /**
   * A change after a build was announced drops what that build makes (what serves never goes back to
   * older files); without it, the build still serves and the next one follows (a long build on a big
   * project still shows something).
   */
  dropOvertaken?: boolean;
}

/** What a host's build of the files as they are now came to. */
export type Built<G> = Result<
  {
    generation: G;
    /** Its warnings (`compile.ready`'s diagnostics). */
    warnings: Diagnostic[];
    phases?: Omit<CompilePhases, 'promote'>;
    /** Said in `compile.ready` besides (what the build kept, how it was checked). */
    details?: ReadyDetails;
  },
  { diagnostics: Diagnostic[] }
>;

/**
 * A promotion's outcome, with what `compile.ready` says of it besides (`runtime: 'kept'`); `again`: the
 * host takes it back and asks for a build of the same files at once, without a word.
 */
export type Promoted = PromoteOutcome | { ok: true; restarted: boolean; details?: ReadyDetails } | { ok: false; again: true };

/** What an announced build came to, for the host to show. */
export type Settled<G> =
  | { kind: 'served'; generation: number; next: G; previous: G | undefined; restarted: boolean; warnings: Diagnostic[] }
  | { kind: 'failed'; generation: number; head: CompileDiagnostic; diagnostics: Diagnostic[]; serving: G | undefined };

export interface CompileLoopHost<G> {
  now(): number;
  emit(event: DevEvent): void;
  /** Builds the files as they are now (`changed`: the paths changed since the last build). Undefined: the host found it overtaken, and nothing is said of it. */
  build(changed: readonly string[]): Promise<Built<G> | undefined>;
  /** A reason not to promote a built generation (DG1605: a change that needs a restart). */
  refuse?(next: G, serving: G | undefined): CompileDiagnostic | undefined;
  promote(next: G, serving: G | undefined): Promise<Promoted>;
  /** A build that will not be promoted (superseded or overtaken by a change, failed, refused): whatever the host made ahead for it goes. */
  abandon?(reason: 'superseded' | 'failed' | 'refused'): Promise<void>;
  /** What each announced build came to, after its events. */
  settled?(outcome: Settled<G>): void | Promise<void>;
  /** Each build's turn has ended (the next may start): the host's work after it (generated files written). */
  turnEnded?(): void;
  /** A build or promotion threw: the host decides (stop, or throw it on). Without it the error is thrown on. */
  crashed?(error: unknown): void;
}

/** A build started before the quiet window passed: announced when it passes, superseded by a change inside it. */
interface Flight {
  readonly changed: string[];
  readonly tentative: boolean;
  generation?: number;
  outcome?: 'announced' | 'superseded';
  /** A change came after it was announced, and the policy drops what it makes. */
  overtaken?: boolean;
  readonly settled: Promise<boolean>;
  settle(announced: boolean): void;
}

function flight(changed: string[], tentative: boolean): Flight {
  let settle!: (announced: boolean) => void;
  const settled = new Promise<boolean>((resolve) => (settle = resolve));
  return { changed, tentative, settled, settle };
}

export class CompileLoop<G> {
  readonly #host: CompileLoopHost<G>;
  readonly #policy: QuietPolicy;
  #generation = 0;
  #serving: G | undefined;
  #changed = new Set<string>();
  /** The quiet window after the last change. */
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** The first change after quiet files is about to start a tentative build. */
  #starting: ReturnType<typeof setTimeout> | undefined;
  /** The build in flight. */
  #flight: Flight | undefined;
  #lastChange = -Infinity;
  #lastQuietMs = 0;
  #running: Promise<void> | undefined;
  #again = false;
  #closed = false;

  constructor(host: CompileLoopHost<G>, policy: QuietPolicy) {
    this.#host = host;
    this.#policy = policy;
  }

  /** The generation that serves (the last good one). */
  get serving(): G | undefined {
    return this.#serving;
  }

  /** The last generation number given. */
  get generation(): number {
    return this.#generation;
  }

  /** Whether a build or other work holds the loop's turn. */
  get busy(): boolean {
    return this.#running !== undefined;
  }

  /** Whether changes wait to be built. */
  get pending(): boolean {
    return this.#changed.size > 0;
  }

  /**
   * What serves now when no build of this loop put it there (a build an earlier session kept, shown as
   * the session begins), or nothing (a build taken down): the last good generation from now on.
   */
  adopt(generation: G | undefined): void {
    this.#serving = generation;
  }

  /** A new number for what serves (the previews reload it). */
  renumber(): number {
    return ++this.#generation;
  }

  /** Builds now and resolves once that build has settled (the session's first build). */
  async run(changed: readonly string[] = []): Promise<void> {
    if (this.#closed) return;
    const work = this.#build(flight([...changed], false));
    this.#occupy(work);
    await work;
  }

  /** Builds at once, with no change named (new packages; a build the host took back). */
  buildNow(): void {
    if (this.#closed) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#kick(), 0);
  }

  /**
   * Files changed (project-relative paths): a build follows once the files are quiet. The first change
   * after quiet files starts it tentatively at once when the policy says so.
   */
  changed(paths: readonly string[]): void {
    if (this.#closed || !paths.length) return;
    const now = this.#host.now();
    const afterQuiet = now - this.#lastChange >= this.#lastQuietMs;
    const quietMs = this.#policy.quietMs(now);
    this.#lastChange = now;
    this.#lastQuietMs = quietMs;
    for (const path of paths) this.#changed.add(path);
    const pending = this.#flight;
    if (pending && !pending.outcome) {
      // Inside the window: the build in flight saw part of a save. Its changes go to the next build.
      pending.outcome = 'superseded';
      for (const path of pending.changed) this.#changed.add(path);
      pending.settle(false);
    } else if (pending?.outcome === 'announced' && this.#policy.dropOvertaken) {
      pending.overtaken = true;
    }
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#quiet(), quietMs);
    const tentativeMs = this.#policy.tentativeMs;
    if (tentativeMs !== undefined && afterQuiet && !this.#running && !this.#flight && !this.#starting) {
      this.#starting = setTimeout(() => {
        this.#starting = undefined;
        if (this.#running || this.#closed || !this.#changed.size) return;
        const build = flight([...this.#changed].sort(), true);
        this.#changed.clear();
        this.#occupy(this.#build(build));
      }, tentativeMs);
    }
  }

  /**
   * The window has passed since the last change seen. A change may still wait to be seen behind a long
   * turn (a type check holds the thread): whether a tentative build in flight is announced is decided
   * a turn later, after those are in.
   */
  #quiet(): void {
    if (this.#flight && !this.#flight.outcome) this.#timer = setTimeout(() => this.#quietNow(), 0);
    else this.#quietNow();
  }

  /** The files have been quiet for the window: the tentative build in flight is announced, or the next build starts. */
  #quietNow(): void {
    const build = this.#flight;
    if (build && !build.outcome && !this.#changed.size) {
      this.#announce(build);
      return;
    }
    this.#kick();
  }

  #announce(build: Flight): void {
    build.outcome = 'announced';
    build.generation = ++this.#generation;
    this.#host.emit(devEvent('compile.start', { generation: build.generation, changed: build.changed }));
    build.settle(true);
  }

  #kick(): void {
    if (this.#closed) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    const build = flight([...this.#changed].sort(), false);
    this.#changed.clear();
    this.#occupy(this.#build(build));
  }

  /** Takes the loop's turn for other work (tests prepared on the same compiler): a change meanwhile builds after it. */
  occupy(work: Promise<unknown>): void {
    this.#occupy(work);
  }

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

  async #build(build: Flight): Promise<void> {
    this.#flight = build;
    try {
      if (!build.tentative) this.#announce(build);
      await this.#settle(build);
    } catch (error) {
      if (!this.#host.crashed) throw error;
      this.#host.crashed(error);
    } finally {
      if (this.#flight === build) this.#flight = undefined;
      this.#host.turnEnded?.();
    }
  }

  async #settle(build: Flight): Promise<void> {
    const host = this.#host;
    const started = host.now();
    const built = await host.build(build.changed);
    // A tentative build waits for the window: announced, or superseded by a change inside it.
    if (!(await build.settled) || this.#closed) {
      await host.abandon?.('superseded');
      return;
    }
    const generation = build.generation!;
    if (!built || build.overtaken) {
      // Overtaken by a newer change: what it made never serves; the next build follows.
      await host.abandon?.('superseded');
      this.#again = true;
      return;
    }
    const serving = this.#serving;
    if (!built.ok) {
      await host.abandon?.('failed');
      const head = compileDiagnostic('DG1602', serving ? 'The rebuild failed; the previous generation is still serving.' : 'The build failed; nothing serves until a rebuild succeeds.', {
        hint: 'Fix the errors below and save: the next good rebuild takes over by itself.',
      });
      host.emit(devEvent('compile.diagnostic', { ...head, generation, diagnostics: built.diagnostics }));
      await host.settled?.({ kind: 'failed', generation, head, diagnostics: built.diagnostics, serving });
      return;
    }
    const refused = host.refuse?.(built.generation, serving);
    if (refused) {
      await host.abandon?.('refused');
      host.emit(devEvent('compile.diagnostic', { ...refused, generation, diagnostics: [] }));
      await host.settled?.({ kind: 'failed', generation, head: refused, diagnostics: [], serving });
      return;
    }
    const promoting = host.now();
    const promoted = await host.promote(built.generation, serving);
    if (this.#closed) return;
    if (!promoted.ok && 'again' in promoted) {
      this.buildNow();
      return;
    }
    if (!promoted.ok) {
      if (promoted.previous === 'stopped') this.#serving = undefined;
      const head = compileDiagnostic('DG1603', `The new build could not take over (${promoted.code}): ${promoted.message}${promoted.previous === 'restarted' ? ' The last good generation serves again.' : promoted.previous === 'kept' ? ' The last good generation still serves.' : ''}`, {
        hint: promoted.hint ?? 'Fix the cause above; the next good rebuild takes over by itself.',
        ...(promoted.detail ? { detail: promoted.detail } : {}),
      });
      host.emit(devEvent('compile.diagnostic', { ...head, generation, diagnostics: [] }));
      await host.settled?.({ kind: 'failed', generation, head, diagnostics: [], serving: this.#serving });
      return;
    }
    this.#serving = built.generation;
    const phases: CompilePhases | undefined = built.phases ? { ...built.phases, promote: Math.round(host.now() - promoting) } : undefined;
    host.emit(devEvent('compile.ready', { generation, durationMs: Math.round(host.now() - started), ...(phases ? { phases } : {}), restarted: promoted.restarted, diagnostics: built.warnings, ...built.details, ...('details' in promoted ? promoted.details : {}) }));
    await host.settled?.({ kind: 'served', generation, next: built.generation, previous: serving, restarted: promoted.restarted, warnings: built.warnings });
  }

  /** Stops: nothing more is built; resolves once the build in flight has ended. */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    clearTimeout(this.#starting);
    const build = this.#flight;
    if (build && !build.outcome) {
      build.outcome = 'superseded';
      build.settle(false);
    }
    await this.#running?.catch(() => undefined);
  }
}
