import { describe, expect, it } from 'vitest';
import { StateStore } from '../state-store';
import type { TestSessionHost, TestsState } from '../tests/test-session';
import { LessonSession, type LessonHost, type StepChecker } from './lesson-session';

/** The project's session as the lesson sees it, in memory: files, a write that opens a tab, a log. */
class MemoryHost extends StateStore<{ project: { id: string; files: Record<string, string> } }> implements LessonHost {
  opened: (string | undefined)[] = [];
  writes = 0;
  constructor(files: Record<string, string>) {
    super({ project: { id: `p_${Math.random().toString(36).slice(2)}`, files } });
  }
  writeFiles(overlay: Readonly<Record<string, string>>, open?: string): void {
    this.writes++;
    this.opened.push(open);
    this.update({ project: { ...this.state.project, files: { ...this.state.project.files, ...overlay } } });
  }
  edit(path: string, text: string): void {
    this.replace({ ...this.state.project.files, [path]: text });
  }
  replace(files: Record<string, string>): void {
    this.update({ project: { ...this.state.project, files } });
  }
  log(): void {}
}

/**
 * A check in memory: it records the files it was given and answers with the outcome set for it (the real
 * one compiles and runs them in the tests' sandboxes: e2e/lesson.spec.ts).
 */
class MemoryChecker implements StepChecker {
  state: TestsState = { status: 'idle', results: [], diagnostics: [], passed: 0, failed: 0 };
  given: Record<string, string>[] = [];
  outcome: 'pass' | 'fail' = 'fail';
  constructor(readonly host: TestSessionHost) {}
  async run(): Promise<void> {
    const files = this.host.files();
    this.given.push(files);
    const file = Object.keys(files).find((path) => path.startsWith('tests/'))!;
    const passed = this.outcome === 'pass';
    this.state = {
      status: 'done',
      results: [{ file, name: 'the step', status: passed ? 'passed' : 'failed', ...(passed ? {} : { failure: { message: 'expected 1 to be 2' } as never }) }],
      diagnostics: [],
      passed: passed ? 1 : 0,
      failed: passed ? 0 : 1,
    };
  }
  dispose(): void {}
}
let checker: MemoryChecker | undefined;
const compiler = (host: TestSessionHost) => (checker = new MemoryChecker(host));

const files = {
  'app.manifest.json': '{}',
  'src/server/index.ts': 'start 1',
  'lesson/1-a/step.md': '# One\nEdit `src/server/index.ts`.',
  'lesson/1-a/start/src/server/index.ts': 'start 1',
  'lesson/1-a/solution/src/server/index.ts': 'solved 1',
  'lesson/1-a/check.test.ts': 'check',
  'lesson/2-b/step.md': '# Two\nNow `src/client/main.tsx`, then `src/server/index.ts`.',
  'lesson/2-b/start/src/server/index.ts': 'start 2',
  'lesson/2-b/start/src/client/main.tsx': 'client 2',
  'lesson/2-b/solution/src/server/index.ts': 'solved 2',
  'lesson/3-c/step.md': '# Three',
};

describe('LessonSession', () => {
  it('opens on the first step, writing nothing when its start files are already the project’s', () => {
    const host = new MemoryHost(files);
    const lesson = new LessonSession(host, compiler);
    expect(lesson.step?.title).toBe('One');
    expect(lesson.state.progress).toEqual({ step: '1-a', done: [], entered: ['1-a'] });
    expect(host.writes).toBe(0);
  });

  it('writes a step’s start files the first time only, opening the file its text names first; going back keeps the work', () => {
    const host = new MemoryHost(files);
    const lesson = new LessonSession(host, compiler);
    lesson.go('2-b');
    expect(host.state.project.files['src/server/index.ts']).toBe('start 2');
    expect(host.state.project.files['src/client/main.tsx']).toBe('client 2');
    expect(host.opened).toEqual(['src/client/main.tsx']);
    host.edit('src/server/index.ts', 'my work');
    lesson.go('1-a');
    lesson.go('2-b');
    expect(host.state.project.files['src/server/index.ts']).toBe('my work');
    expect(host.writes).toBe(1);
  });

  it('Reset writes the start files again and Solve the solution, each only where they differ', () => {
    const host = new MemoryHost(files);
    const lesson = new LessonSession(host, compiler);
    host.edit('src/server/index.ts', 'a wrong turn');
    lesson.reset();
    expect(host.state.project.files['src/server/index.ts']).toBe('start 1');
    lesson.solve();
    expect(host.state.project.files['src/server/index.ts']).toBe('solved 1');
    lesson.solve();
    expect(host.writes).toBe(2);
  });

  it('a step with a check is done only by its check; one without is done when left, or finished', () => {
    const host = new MemoryHost(files);
    const lesson = new LessonSession(host, compiler);
    lesson.go('2-b');
    expect(lesson.state.progress?.done).toEqual([]);
    lesson.go('3-c');
    expect(lesson.state.progress?.done).toEqual(['2-b']);
    expect(lesson.next).toBeUndefined();
    lesson.finish();
    expect(lesson.state.progress?.done).toEqual(['2-b', '3-c']);
  });

  it('follows the lesson as its files change: a step removed is dropped from the progress, and no lesson is none', () => {
    const host = new MemoryHost(files);
    const lesson = new LessonSession(host, compiler);
    lesson.go('3-c');
    host.edit('lesson/3-c/step.md', '# Three, renamed');
    expect(lesson.step?.title).toBe('Three, renamed');
    const { 'lesson/3-c/step.md': _gone, ...rest } = host.state.project.files;
    host.replace(rest);
    expect(lesson.step?.id).toBe('1-a');
    host.replace({ 'app.manifest.json': '{}' });
    expect(lesson.state.lesson).toBeUndefined();
    lesson.dispose();
  });

  it("Check runs the step's check alone, placed in tests/, and a pass marks the step done", async () => {
    const host = new MemoryHost({ ...files, 'tests/app.test.ts': 'the project’s own test' });
    const lesson = new LessonSession(host, compiler);
    await lesson.check();
    expect(Object.keys(checker!.given[0]!).filter((path) => path.startsWith('tests/'))).toEqual(['tests/lesson-1-a.test.ts']);
    expect(lesson.state.check).toEqual({ step: '1-a', status: 'failed', failures: [{ name: 'the step', message: 'expected 1 to be 2' }], problems: [] });
    expect(lesson.state.progress?.done).toEqual([]);
    checker!.outcome = 'pass';
    await lesson.check();
    expect(lesson.state.check?.status).toBe('passed');
    expect(lesson.state.progress?.done).toEqual(['1-a']);
    // A step without a check has none to run.
    lesson.go('3-c');
    await lesson.check();
    expect(checker!.given).toHaveLength(2);
  });
});
