/**
 * A lesson as the learner goes through it: the project's `lesson/` steps (src/core/lesson), the step
 * shown, the steps done, and the check of the step shown. Entering a step for the first time writes
 * its start files over the project's; Reset writes them again, Show the solution writes the solution's.
 * The check runs the step's `check.test.ts` alone, over the project's files as they are now, in the
 * tests' own sandboxes (the preview's data is never touched); when it passes, the step is done.
 * Progress is kept per project in localStorage (in the page only where storage is refused).
 */
import type { Diagnostic } from '../../core/diagnostics';
import { changedBy, checkFiles, fitProgress, LESSON_ROOT, readLesson, type Lesson, type LessonProgress, type LessonStep } from '../../core/lesson';
import { StateStore } from '../state-store';
import type { SessionContext } from '../session/session-state';
import { loadProgress, saveProgress } from './progress-store';
import type { TestSession, TestSessionHost } from '../tests/test-session';

/** What the lesson needs of the project's session. */
export interface LessonHost {
  readonly state: { project: { id: string; files: Record<string, string> } };
  subscribe(listener: () => void): () => void;
  writeFiles(overlay: Readonly<Record<string, string>>, open?: string): void;
  log: SessionContext['log'];
}

/** What runs a step's check: a TestSession over the files it is given (use-lesson.ts makes one with the compiler). */
export type StepChecker = Pick<TestSession, 'run' | 'state' | 'dispose'>;
export type MakeChecker = (host: TestSessionHost) => StepChecker;

export interface StepCheck {
  /** The step the check was of. */
  step: string;
  status: 'running' | 'passed' | 'failed';
  /** Each failed test: its name and why. */
  failures: { name: string; message: string }[];
  /** Why the check could not run (the files do not compile, say). */
  problems: Diagnostic[];
}

export interface LessonState {
  lesson?: Lesson;
  progress?: LessonProgress;
  check?: StepCheck;
}

/** The lesson files' texts as one key: the lesson is read again only when one of them changed. */
function lessonKey(files: Record<string, string>): string {
  let key = '';
  for (const path in files) if (path.startsWith(`${LESSON_ROOT}/`)) key += `${path}\0${files[path]}\0`;
  return key;
}

export class LessonSession extends StateStore<LessonState> {
  readonly #host: LessonHost;
  readonly #tests: StepChecker;
  #key: string | undefined;
  #files: Record<string, string> | undefined;
  readonly #off: () => void;

  constructor(host: LessonHost, makeChecker: MakeChecker) {
    super({});
    this.#host = host;
    this.#tests = makeChecker({
      files: () => {
        const step = this.step;
        return (step && checkFiles(this.#host.state.project.files, step)) || {};
      },
      log: (kind, fields) => host.log(kind, fields),
    });
    this.#off = host.subscribe(() => this.#read());
    this.#read();
    this.#enter();
  }

  /** The step shown. */
  get step(): LessonStep | undefined {
    const { lesson, progress } = this.state;
    return lesson?.steps.find((s) => s.id === progress?.step);
  }

  /** Shows another step (its start files are written the first time). Leaving a step without a check marks it done. */
  go(id: string): void {
    const { lesson, progress } = this.state;
    if (!lesson || !progress || !lesson.steps.some((s) => s.id === id)) return;
    const from = this.step;
    const done = from && !from.check && id !== from.id && !progress.done.includes(from.id) ? [...progress.done, from.id] : progress.done;
    this.#save({ ...progress, step: id, done });
    this.update({ check: undefined });
    this.#enter();
  }

  /** The step after the one shown, if any. */
  get next(): LessonStep | undefined {
    const { lesson } = this.state;
    const at = lesson?.steps.findIndex((s) => s.id === this.step?.id) ?? -1;
    return at >= 0 ? lesson!.steps[at + 1] : undefined;
  }

  /** Leaves a last step without a check as done (there is no next step to move to). */
  finish(): void {
    const { progress } = this.state;
    const step = this.step;
    if (step && progress && !progress.done.includes(step.id)) this.#save({ ...progress, done: [...progress.done, step.id] });
  }

  /** Writes the step's start files again, over the learner's changes to them. */
  reset(): void {
    const step = this.step;
    if (step) this.#write(step.start);
  }

  /** Writes the step's solution over the project's files. */
  solve(): void {
    const step = this.step;
    if (step) this.#write(step.solution);
  }

  /** Runs the step's check; when it passes, the step is done. */
  async check(): Promise<void> {
    const step = this.step;
    if (!step?.check) return;
    this.update({ check: { step: step.id, status: 'running', failures: [], problems: [] } });
    await this.#tests.run();
    if (this.step?.id !== step.id) return;
    const { status, results, diagnostics, failed, passed } = this.#tests.state;
    const failures = results.filter((r) => r.status === 'failed').map((r) => ({ name: r.name, message: r.failure?.message ?? 'failed' }));
    const ok = status === 'done' && failed === 0 && passed > 0;
    this.update({ check: { step: step.id, status: ok ? 'passed' : 'failed', failures, problems: ok ? [] : diagnostics } });
    const { progress } = this.state;
    if (ok && progress && !progress.done.includes(step.id)) this.#save({ ...progress, done: [...progress.done, step.id] });
  }

  dispose(): void {
    this.#off();
    this.#tests.dispose();
  }

  #write(overlay: Record<string, string>): void {
    const changed = changedBy(this.#host.state.project.files, overlay);
    // The written file the step's text names first opens (else the first written), so the learner sees what changed.
    const text = this.step?.text ?? '';
    const named = (path: string) => (text.includes(path) ? text.indexOf(path) : Infinity);
    const paths = Object.keys(changed).sort((a, b) => named(a) - named(b) || a.localeCompare(b));
    if (paths.length) this.#host.writeFiles(changed, paths[0]);
  }

  /** Writes the shown step's start files if this is the first time it is entered. */
  #enter(): void {
    const { progress } = this.state;
    const step = this.step;
    if (!step || !progress || progress.entered.includes(step.id)) return;
    this.#save({ ...progress, entered: [...progress.entered, step.id] });
    this.#write(step.start);
  }

  #read(): void {
    const files = this.#host.state.project.files;
    if (files === this.#files) return;
    this.#files = files;
    const key = lessonKey(files);
    if (key === this.#key) return;
    this.#key = key;
    const lesson = readLesson(files);
    if (!lesson) return this.update({ lesson: undefined, progress: undefined });
    this.update({ lesson, progress: fitProgress(lesson, this.state.progress ?? loadProgress(this.#host.state.project.id)) });
  }

  #save(progress: LessonProgress): void {
    this.update({ progress });
    saveProgress(this.#host.state.project.id, progress);
  }
}
