/**
 * The shipped lesson (templates/lesson) works as a learner goes through it: at each step, the step's
 * check fails on its start files and passes once its solution is written, the project still passes
 * `platform check`, and its own tests pass. Run through the CLI, as `platform test` runs them.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { nodeCompiler } from '../adapters/node/compiler';
import type { Compiler } from '../core/build';
import { checkFiles, checkPath, readLesson, withOverlay } from '../core/lesson';
import { runInProcess } from '../testing/cli';

const TEMPLATE = join(import.meta.dirname, '../../templates/lesson');
let work: string;
let shared: Compiler | undefined;

function readTree(root: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else files[relative(root, path)] = readFileSync(path, 'utf8');
    }
  };
  walk(root);
  return files;
}

/** Writes the files into a new folder and runs the CLI there. */
async function run(command: 'check' | 'test', files: Record<string, string>, name: string) {
  const dir = join(work, name);
  rmSync(dir, { recursive: true, force: true });
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  const { code, stdout } = await runInProcess([command, dir], { cwd: work, compiler: async () => (shared ??= nodeCompiler()) });
  return { code, stdout };
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'platform-lesson-'));
  process.env.PLATFORM_TEST_TIMEOUT_MS = '3000';
});
afterAll(() => {
  delete process.env.PLATFORM_TEST_TIMEOUT_MS;
  rmSync(work, { recursive: true, force: true });
});

it('the shipped lesson: each check fails at its step’s start and passes with its solution; the project checks and its tests pass throughout', { timeout: 300_000 }, async () => {
  let files = readTree(TEMPLATE);
  const lesson = readLesson(files)!;
  expect(lesson.problems).toEqual([]);
  expect(lesson.steps.map((s) => s.title)).toEqual(['A first query', 'Mutations', 'Owned tables and personas', 'Tests of your own']);
  for (const step of lesson.steps) {
    files = withOverlay(files, step.start);
    const started = await run('check', files, `${step.id}-start`);
    expect(started.code, `platform check at the start of ${step.id}:\n${started.stdout}`).toBe(0);
    if (step.check) {
      const before = await run('test', checkFiles(files, step)!, `${step.id}-check-start`);
      expect(before.code, `${step.id}'s check at its start:\n${before.stdout}`).not.toBe(0);
    }
    files = withOverlay(files, step.solution);
    expect((await run('check', files, `${step.id}-solved`)).code, `platform check of ${step.id}'s solution`).toBe(0);
    if (step.check) {
      const after = await run('test', checkFiles(files, step)!, `${step.id}-check-solved`);
      expect(after.code, `${step.id}'s check with its solution:\n${after.stdout}`).toBe(0);
      expect(after.stdout).toContain(checkPath(step));
    }
    const own = await run('test', files, `${step.id}-tests`);
    expect(own.code, `the project's tests after ${step.id}:\n${own.stdout}`).toBe(0);
  }
});
