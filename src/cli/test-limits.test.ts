/**
 * `platform test` (the real CLI, bin/platform.mjs, each file in workerd) answers a call as `platform dev`
 * and hosting do: a call whose wire body is over `budgets.requestBytes` is 413 `request_too_large`
 * before its handler runs, and a handler that spins (`for (;;) {}`) is stopped at the handler deadline
 * and answered 504 `handler_deadline_exceeded`, which `expectFailure` sees; the test goes on with the
 * state it had before that call, and the next test runs on fresh state.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCli, type CliRun } from '../testing/cli';

let dir: string;

const platform = (args: string[], env: Record<string, string>): Promise<CliRun> => runCli(args, { cwd: dir, env });

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'platform-test-limits-'));
  cpSync(join(ROOT, 'templates/todo'), dir, { recursive: true });
  const manifest = JSON.parse(readFileSync(join(dir, 'app.manifest.json'), 'utf8')) as Record<string, unknown>;
  writeFileSync(join(dir, 'app.manifest.json'), JSON.stringify({ ...manifest, budgets: { requestBytes: 2000 } }, null, 2));
  const server = readFileSync(join(dir, 'src/server/index.ts'), 'utf8');
  writeFileSync(
    join(dir, 'src/server/index.ts'),
    server.replace(
      'mutations: {',
      [
        'mutations: {',
        "    'probe.big': mutation({ input: { s: 'string' }, handler: async (_ctx, input) => input.s.length }),",
        "    'probe.spin': mutation({ input: {}, handler: async (): Promise<number> => { for (;;) {} } }),",
      ].join('\n'),
    ),
  );
  writeFileSync(
    join(dir, 'tests/limits.test.ts'),
    [
      "import { expect, expectFailure, mutation, query, test } from 'platform/test';",
      '',
      "test('a call over requestBytes is refused before its handler', async () => {",
      "  const failure = await expectFailure(mutation('probe.big', { s: 'q'.repeat(3000) }));",
      "  expect([failure.status, failure.code]).toEqual([413, 'request_too_large']);",
      '});',
      "test('a call under requestBytes runs', async () => {",
      "  expect(await mutation('probe.big', { s: 'q'.repeat(100) })).toBe(100);",
      '});',
      "test('a spinning handler ends at its deadline and the test goes on', async () => {",
      "  await mutation('todos.add', { title: 'before' });",
      "  const failure = await expectFailure(mutation('probe.spin', {}));",
      "  expect([failure.status, failure.code]).toEqual([504, 'handler_deadline_exceeded']);",
      "  expect((await query('todos.list', {})).map((todo) => todo.title)).toEqual(['before']);",
      '});',
      "test('the next test runs on fresh state', async () => {",
      "  expect(await query('todos.list', {})).toEqual([]);",
      '});',
      '',
    ].join('\n'),
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('platform test holds calls to the limits dev and hosting hold them to', () => {
  it('413 request_too_large over requestBytes, 504 handler_deadline_exceeded for a spinning handler, then the rest', async () => {
    // A short handler deadline and test limit keep this test's own time small.
    const { code, stdout, stderr } = await platform(['test', '--json'], { PLATFORM_TEST_TIMEOUT_MS: '8000', PLATFORM_HANDLER_DEADLINE_MS: '300' });
    const events = stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const failures = events.filter((event) => event.kind === 'test.case.fail');
    expect(failures, stderr).toEqual([]);
    const passed = events.filter((event) => event.kind === 'test.case.pass').map((event) => event.name);
    expect(passed).toEqual(expect.arrayContaining(['a call over requestBytes is refused before its handler', 'a call under requestBytes runs', 'a spinning handler ends at its deadline and the test goes on', 'the next test runs on fresh state']));
    expect(events.at(-1)).toMatchObject({ kind: 'test.run.finish', ok: true, failed: 0 });
    expect(code).toBe(0);
  }, 120_000);
});
