import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeCompiler } from '../adapters/node/compiler';
import type { Compiler } from '../core/build';
import { runInProcess } from '../testing/cli';

const ROOT = join(import.meta.dirname, '../..');
const TEMPLATES = ['todo', 'files', 'team-board', 'endpoints', 'todo-react', 'blank', 'lesson'];
let work: string;
let shared: Compiler | undefined;

async function run(args: string[]) {
  const { code, stdout } = await runInProcess(args, { cwd: work, compiler: async () => (shared ??= nodeCompiler()) });
  return { code, stdout };
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'platform-test-cmd-'));
  process.env.PLATFORM_TEST_TIMEOUT_MS = '1500';
});
afterAll(() => {
  delete process.env.PLATFORM_TEST_TIMEOUT_MS;
  rmSync(work, { recursive: true, force: true });
});

describe('platform test on every template', () => {
  for (const template of TEMPLATES) {
    it(`templates/${template} passes`, async () => {
      const { code, stdout } = await run(['test', join(ROOT, 'templates', template)]);
      const lines = stdout.trimEnd().split('\n');
      expect(lines.at(-1)).toMatch(/^[1-9]\d* passed, 0 failed$/);
      expect(code).toBe(0);
    });
  }
});

describe('platform test on a broken copy', () => {
  let dir: string;
  beforeAll(() => {
    dir = join(work, 'broken');
    cpSync(join(ROOT, 'templates/todo'), dir, { recursive: true });
    writeFileSync(
      join(dir, 'tests/broken.test.ts'),
      [
        "import { as, expect, mutation, query, test } from 'platform/test';",
        "test('an assertion that fails', async () => {",
        "  await mutation('todos.add', { title: 'milk' });",
        "  expect(await query('todos.list', {})).toHaveLength(2);",
        '});',
        "test('an unexpected refusal', async () => {",
        "  await as('guest').mutation('todos.add', { title: 'x' });",
        '});',
        "test('a runaway test', () => {",
        '  while (true) {}',
        '});',
        "test('a test after the runaway one', async () => {",
        "  expect(await query('todos.remaining', {})).toBe(0);",
        '});',
        '',
      ].join('\n'),
    );
    writeFileSync(join(dir, 'tests/load.test.ts'), "import { test } from 'platform/test';\nthrow new Error('broken while loading');\ntest('never', () => {});\n");
    writeFileSync(join(dir, 'tests/types.test.ts'), "import { query, test } from 'platform/test';\ntest('typo', async () => { await query('todos.lisst', {}); });\n");
  });

  it('reports each failure as a readable diagnostic and ends with the counts', async () => {
    const { code, stdout } = await run(['test', dir]);
    expect(code).toBe(1);
    expect(stdout).toContain('✗ tests/broken.test.ts:4:41 › an assertion that fails\n    error DG1904: expect(received).toHaveLength(expected)\n    expected: 2\n    actual:   1');
    expect(stdout).toContain('error DG1905: A call was refused: 400 operation_failed: This operation requires a signed-in user.');
    expect(stdout).toContain('error DG1906: The test "a runaway test" ran past 1.5 seconds and was stopped; the other tests still ran.');
    expect(stdout).toContain('✓ tests/broken.test.ts › a test after the runaway one');
    expect(stdout).toContain('error DG1903: tests/load.test.ts threw while loading: broken while loading');
    expect(stdout).toContain('tests/types.test.ts: error DG1901: tests/types.test.ts could not be compiled');
    expect(stdout.trimEnd().split('\n').at(-1)).toBe('7 passed, 4 failed');
  }, 60_000);

  it('streams platform.dev.v0 events with --json, the finish event last', async () => {
    const { code, stdout } = await run(['test', dir, '--json']);
    expect(code).toBe(1);
    const events = stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(events.every((e) => e.protocol === 'platform.dev.v0')).toBe(true);
    const assertion = events.find((e) => e.kind === 'test.case.fail' && e.code === 'DG1904');
    expect(assertion).toMatchObject({ name: 'an assertion that fails', severity: 'error', failure: { kind: 'assertion', code: 'DG1904', matcher: 'toHaveLength', test: 'an assertion that fails' }, matcher: 'toHaveLength', expected: '2', actual: '1', file: 'tests/broken.test.ts', span: { line: 4, column: 41 } });
    const finish = events.at(-1)!;
    expect(finish).toMatchObject({ kind: 'test.run.finish', ok: false, passed: 7, failed: 4 });
    expect((finish.diagnostics as Array<{ code: string }>).map((d) => d.code)).toEqual(expect.arrayContaining(['DG1205', 'DG1901']));
    expect(events.filter((e) => e.kind === 'test.case.pass')).toHaveLength(7);
  }, 60_000);

  it('runs one test with --only', async () => {
    const { stdout } = await run(['test', dir, '--only', 'a test after the runaway one']);
    expect(stdout).toContain('✓ tests/broken.test.ts › a test after the runaway one');
    expect(stdout).not.toContain('a runaway test');
  });
});

describe('platform test without tests or without an app', () => {
  it('DG1900 when tests/ holds no test files', async () => {
    const dir = join(work, 'no-tests');
    cpSync(join(ROOT, 'templates/todo'), dir, { recursive: true });
    rmSync(join(dir, 'tests'), { recursive: true });
    const { code, stdout } = await run(['test', dir, '--json']);
    expect(code).toBe(1);
    const finish = JSON.parse(stdout.trimEnd().split('\n').at(-1)!);
    expect(finish).toMatchObject({ kind: 'test.run.finish', ok: false, passed: 0, failed: 0, diagnostics: [expect.objectContaining({ code: 'DG1900' })] });
  });

  it('DG1001 without a manifest', async () => {
    const { code, stdout } = await run(['test', join(work, 'nothing')]);
    expect(code).toBe(1);
    expect(stdout).toContain('0 passed, 0 failed');
  });
});

describe('platform new', () => {
  it('creates an app named after its directory that passes its tests', async () => {
    const dir = join(work, 'created', 'my-board');
    const created = await run(['new', dir, '--template', 'team-board', '--json']);
    expect(JSON.parse(created.stdout)).toMatchObject({ ok: true, result: { template: 'team-board', name: 'my-board' } });
    const tested = await run(['test', dir]);
    expect(tested.code).toBe(0);
  });

  it.each([
    [['new', 'x', '--template', 'tood'], 'DG3002', 'Did you mean "todo"?'],
    [['new', 'x', '--ui', 'vue'], 'DG3003', undefined],
    [['new', 'x', '--ui', 'reakt'], 'DG3003', 'Did you mean "react"?'],
    [['new', 'x', '--template', 'files', '--ui', 'react'], 'DG3002', 'React starters: todo-react; or omit --ui for the Preact files.'],
    [['new', 'x', '--framework', 'next', '--ui', 'preact'], 'DG3004', undefined],
    [['new', 'x', '--framework', 'next', '--template', 'todo'], 'DG3005', undefined],
    [['new', 'x', '--framework', 'next'], 'DG3006', undefined],
  ])('%j is %s', async (args, code, hint) => {
    const { stdout } = await run([...args, '--json']);
    const envelope = JSON.parse(stdout);
    expect(envelope.ok).toBe(false);
    expect(envelope.diagnostics.map((d: { code: string }) => d.code)).toContain(code);
    if (hint) expect(envelope.diagnostics[0].hint).toBe(hint);
  });

  it('--ui react creates the React todo app, which checks, builds and passes its tests', async () => {
    const dir = join(work, 'created', 'my-react');
    const created = await run(['new', dir, '--ui', 'react', '--json']);
    expect(JSON.parse(created.stdout)).toMatchObject({ ok: true, result: { template: 'todo-react', name: 'my-react' } });
    expect(readFileSync(join(dir, 'src/client/main.tsx'), 'utf8')).toContain("from 'react-dom/client'");
    expect((await run(['check', dir])).code).toBe(0);
    const built = await run(['build', dir, '--json']);
    expect(JSON.parse(built.stdout)).toMatchObject({ ok: true });
    const record = JSON.parse(readFileSync(join(dir, '.platform/artifacts', `${JSON.parse(built.stdout).result.artifactId.slice('sha256:'.length)}.json`), 'utf8'));
    expect(record.toolchain.react).toMatch(/^19\./);
    expect((await run(['test', dir])).code).toBe(0);
  });

  it('DG3001 for a directory that is not empty', async () => {
    const dir = join(work, 'full');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'keep.txt'), 'x');
    const { stdout } = await run(['new', dir, '--json']);
    expect(JSON.parse(stdout).diagnostics[0].code).toBe('DG3001');
  });
});
