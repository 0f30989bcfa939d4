import { describe, expect, it } from 'vitest';
import { changedBy, checkFiles, checkPath, fitProgress, readLesson, withOverlay } from './index';

const files = {
  'app.manifest.json': '{}',
  'src/server/index.ts': 'server',
  'tests/app.test.ts': 'app test',
  'tests/helper.ts': 'helper',
  'lesson/README.md': '# For the teacher',
  'lesson/10-last/step.md': 'No heading here.',
  'lesson/2-second/step.md': '# Mutations ##\n\nText.',
  'lesson/2-second/start/src/server/index.ts': 'server 2',
  'lesson/2-second/solution/src/server/index.ts': 'server 2 solved',
  'lesson/2-second/solution/src/client/new.tsx': 'new file',
  'lesson/2-second/check.test.ts': 'check 2',
  'lesson/1-first/step.md': 'Intro\n# A first query\n',
  'lesson/1-first/notes.txt': 'stray',
  'lesson/1-first/solution/lesson/1-first/step.md': 'overwrite the lesson',
  'lesson/draft/start/x.ts': 'no text',
};

describe('readLesson', () => {
  const lesson = readLesson(files)!;

  it('orders the steps by folder name, numbers by value, and titles them by their first heading', () => {
    expect(lesson.steps.map((s) => [s.id, s.title])).toEqual([
      ['1-first', 'A first query'],
      ['2-second', 'Mutations'],
      ['10-last', '10-last'],
    ]);
  });

  it('reads start files, solution files and the check', () => {
    const second = lesson.steps[1]!;
    expect(second.start).toEqual({ 'src/server/index.ts': 'server 2' });
    expect(second.solution).toEqual({ 'src/server/index.ts': 'server 2 solved', 'src/client/new.tsx': 'new file' });
    expect(second.check).toEqual({ file: 'lesson/2-second/check.test.ts', text: 'check 2' });
    expect(lesson.steps[0]!.check).toBeUndefined();
  });

  it('says what it leaves out, with a stable code, rather than throwing', () => {
    expect(lesson.problems.map((p) => [p.code, p.file])).toEqual([
      ['lesson_file_unplaced', 'lesson/1-first/notes.txt'],
      ['lesson_file_in_lesson', 'lesson/1-first/solution/lesson/1-first/step.md'],
      ['lesson_step_text_missing', 'lesson/draft'],
    ]);
    expect(lesson.steps[0]!.solution).toEqual({});
  });

  it('is undefined for a project without steps', () => {
    expect(readLesson({ 'lesson/README.md': 'x', 'src/a.ts': '' })).toBeUndefined();
  });
});

describe('overlays and checks', () => {
  const second = readLesson(files)!.steps[1]!;

  it('writes an overlay over the files and tells what it would change', () => {
    expect(withOverlay({ a: '1', b: '2' }, { b: '3', c: '4' })).toEqual({ a: '1', b: '3', c: '4' });
    expect(changedBy({ a: '1', b: '2' }, { a: '1', b: '3' })).toEqual({ b: '3' });
  });

  it("runs a step's check alone, in tests/, beside the app's files and test helpers", () => {
    expect(checkPath(second)).toBe('tests/lesson-2-second.test.ts');
    const run = checkFiles(files, second)!;
    expect(run['tests/lesson-2-second.test.ts']).toBe('check 2');
    expect(run['tests/app.test.ts']).toBeUndefined();
    expect(run['tests/helper.ts']).toBe('helper');
    expect(run['src/server/index.ts']).toBe('server');
    expect(checkFiles(files, readLesson(files)!.steps[0]!)).toBeUndefined();
  });
});

describe('fitProgress', () => {
  const lesson = readLesson(files)!;

  it('starts at the first step with nothing done', () => {
    expect(fitProgress(lesson, undefined)).toEqual({ step: '1-first', done: [], entered: [] });
    expect(fitProgress(lesson, 'garbage')).toEqual({ step: '1-first', done: [], entered: [] });
  });

  it('keeps what fits the lesson and drops steps it no longer has', () => {
    expect(fitProgress(lesson, { step: '2-second', done: ['1-first', 'gone', 3], entered: ['1-first', '2-second'] })).toEqual({ step: '2-second', done: ['1-first'], entered: ['1-first', '2-second'] });
    expect(fitProgress(lesson, { step: 'gone' }).step).toBe('1-first');
  });
});
