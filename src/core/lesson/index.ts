/**
 * Lessons: a project whose `lesson/` folder holds ordered steps, each a short text, the files it starts
 * from, its solution and optionally a test that says when it is done (docs/playground.md, "Lessons").
 *
 * ```
 * lesson/<step>/step.md             the step's text (Markdown; its first `# ` heading is its title)
 * lesson/<step>/start/<path>        files written over the project's as the step is entered or reset
 * lesson/<step>/solution/<path>     files written over the project's by "Show the solution"
 * lesson/<step>/check.test.ts       tests that pass when the step is done, written as if in tests/
 * ```
 *
 * Steps are the folders that hold a `step.md`, in the order of their names (numbers by value: `2-…`
 * before `10-…`). What a lesson gets wrong is said as a problem with a stable code, never thrown: a
 * project from a share link is a stranger's, and its lesson shows as far as it is readable.
 */

import { isTestFile, LESSON_ROOT } from '../project/index.ts';

export { LESSON_ROOT };
const TEXT_FILE = 'step.md';
const CHECK_FILE = /^check\.test\.tsx?$/;

export interface LessonStep {
  /** The step's folder name under lesson/. */
  id: string;
  /** The text's first `# ` heading, else the folder name. */
  title: string;
  /** The step's text, Markdown. */
  text: string;
  /** Project path → text: written over the project's files as the step is entered or reset. */
  start: Record<string, string>;
  /** Project path → text: written over the project's files by "Show the solution". */
  solution: Record<string, string>;
  /** The step's check (`lesson/<id>/check.test.ts`), if it has one. */
  check?: { file: string; text: string };
}

export type LessonProblemCode = 'lesson_step_text_missing' | 'lesson_file_in_lesson' | 'lesson_file_unplaced';

export interface LessonProblem {
  code: LessonProblemCode;
  /** The lesson file it is about. */
  file: string;
  message: string;
}

export interface Lesson {
  steps: LessonStep[];
  problems: LessonProblem[];
}

/** The project's lesson, or undefined when it has no step (no `lesson/<step>/step.md`). */
export function readLesson(files: Readonly<Record<string, string>>): Lesson | undefined {
  const byStep = new Map<string, Record<string, string>>();
  const problems: LessonProblem[] = [];
  for (const [path, text] of Object.entries(files)) {
    if (!path.startsWith(`${LESSON_ROOT}/`)) continue;
    const rest = path.slice(LESSON_ROOT.length + 1);
    const slash = rest.indexOf('/');
    // A file directly under lesson/ (a README for the teacher) belongs to no step.
    if (slash === -1) continue;
    const id = rest.slice(0, slash);
    const inStep = byStep.get(id) ?? {};
    inStep[rest.slice(slash + 1)] = text;
    byStep.set(id, inStep);
  }
  const steps: LessonStep[] = [];
  for (const id of [...byStep.keys()].sort((a, b) => a.localeCompare(b, 'en', { numeric: true }))) {
    const inStep = byStep.get(id)!;
    const text = inStep[TEXT_FILE];
    if (text === undefined) {
      problems.push({ code: 'lesson_step_text_missing', file: `${LESSON_ROOT}/${id}`, message: `${LESSON_ROOT}/${id}/ has no ${TEXT_FILE}, so it is not a step: write the step's text there.` });
      continue;
    }
    const step: LessonStep = { id, title: titleOf(text) ?? id, text, start: {}, solution: {} };
    for (const [name, content] of Object.entries(inStep)) {
      const file = `${LESSON_ROOT}/${id}/${name}`;
      const placed = /^(start|solution)\/(.+)$/.exec(name);
      if (name === TEXT_FILE) continue;
      if (CHECK_FILE.test(name)) step.check = { file, text: content };
      else if (!placed) problems.push({ code: 'lesson_file_unplaced', file, message: `${file} is not the step's text, check, start/ or solution/: the lesson does not use it.` });
      else if (placed[2]!.startsWith(`${LESSON_ROOT}/`)) problems.push({ code: 'lesson_file_in_lesson', file, message: `${file} would write into the lesson itself; it is left out.` });
      else step[placed[1] as 'start' | 'solution'][placed[2]!] = content;
    }
    steps.push(step);
  }
  return steps.length ? { steps, problems } : undefined;
}

/** The first `# ` heading of a Markdown text. */
function titleOf(text: string): string | undefined {
  return /^#[ \t]+(.+?)[ \t#]*$/m.exec(text)?.[1];
}

/** The files with `overlay`'s written over them (the others as they are). */
export function withOverlay(files: Readonly<Record<string, string>>, overlay: Readonly<Record<string, string>>): Record<string, string> {
  return { ...files, ...overlay };
}

/** The overlay's files that differ from the project's (what writing it would change). */
export function changedBy(files: Readonly<Record<string, string>>, overlay: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(overlay).filter(([path, text]) => files[path] !== text));
}

/** Where a step's check runs: in tests/, so that it imports the app's files as the project's tests do. */
export function checkPath(step: LessonStep): string {
  return `tests/lesson-${step.id}.${step.check?.file.endsWith('.tsx') ? 'test.tsx' : 'test.ts'}`;
}

/**
 * The files a step's check runs over: the project's, without its own tests (only the check runs), and
 * the check placed in tests/. Undefined for a step without a check.
 */
export function checkFiles(files: Readonly<Record<string, string>>, step: LessonStep): Record<string, string> | undefined {
  if (!step.check) return undefined;
  const kept = Object.entries(files).filter(([path]) => !isTestFile(path));
  return { ...Object.fromEntries(kept), [checkPath(step)]: step.check.text };
}

/** A learner's progress through a lesson: kept per project, never in the project's files. */
export interface LessonProgress {
  /** The step shown. */
  step: string;
  /** Steps done: their check passed (or, for a step without one, the learner moved on from it). */
  done: string[];
  /** Steps whose start files were written (each is written once, on first entering; Reset writes them again). */
  entered: string[];
}

/** The progress as kept, made to fit the lesson as it is now (steps renamed or removed are dropped). */
export function fitProgress(lesson: Lesson, kept: unknown): LessonProgress {
  const ids = new Set(lesson.steps.map((s) => s.id));
  const first = lesson.steps[0]!.id;
  if (typeof kept !== 'object' || kept === null) return { step: first, done: [], entered: [] };
  const value = kept as Partial<Record<keyof LessonProgress, unknown>>;
  const list = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && ids.has(x)) : []);
  return { step: typeof value.step === 'string' && ids.has(value.step) ? value.step : first, done: list(value.done), entered: list(value.entered) };
}
