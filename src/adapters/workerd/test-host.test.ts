/** `platform test` runs a stranger's test file in workerd: each reach for the host is refused, nothing is written, and the run still reports. */
import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../cli/main';
import { nodeCompiler } from '../node/compiler';

const ROOT = join(import.meta.dirname, '../../..');
let work: string;
let server: Server;
let requests = 0;
let events: Array<Record<string, unknown>>;

const hostile = (marker: string, port: number) =>
  [
    "import { test } from 'platform/test';",
    '// @ts-ignore: not typed for app code, and not there at run time either',
    "test('process', () => { process.exit(3); });",
    "test('getBuiltinModule', () => { (globalThis as unknown as { process: { getBuiltinModule(m: string): unknown } }).process.getBuiltinModule('node:fs'); });",
    "test('code from a string', () => { Function('return this')(); });",
    `test('the network', async () => { await globalThis.fetch('http://127.0.0.1:${port}/'); });`,
    'test(\'writing a file\', () => {',
    '  const g = globalThis as unknown as { require?(m: string): { writeFileSync(p: string, t: string): void }; process?: { getBuiltinModule(m: string): { writeFileSync(p: string, t: string): void } } };',
    `  const fs = g.require?.('node:fs') ?? g.process!.getBuiltinModule('node:fs');`,
    `  fs.writeFileSync(${JSON.stringify(marker)}, 'written');`,
    '});',
    "test('a test after them', () => {});",
    '',
  ].join('\n');

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'platform-test-hostile-'));
  server = createServer((_, response) => {
    requests++;
    response.end('reached');
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const port = (server.address() as { port: number }).port;
  const dir = join(work, 'app');
  cpSync(join(ROOT, 'templates/todo'), dir, { recursive: true });
  writeFileSync(join(dir, 'tests/hostile.test.ts'), hostile(join(work, 'written.txt'), port));
  // More tests than `test(` in the source: the engine runs out of server copies and hands over to a fresh one.
  writeFileSync(
    join(dir, 'tests/many.test.ts'),
    "import { expect, mutation, query, test } from 'platform/test';\nfor (let i = 0; i < 6; i++) test(`fresh state ${i}`, async () => {\n  expect(await query('todos.list', {})).toEqual([]);\n  await mutation('todos.add', { title: 'milk' });\n});\n",
  );
  writeFileSync(join(dir, 'tests/import.test.ts'), "import { test } from 'platform/test';\ntest('node:fs', async () => { await import('node:fs'); });\n");
  let stdout = '';
  const compiler = nodeCompiler();
  await main(['test', dir, '--json'], { cwd: work, compiler: async () => compiler, stdout: { write: (t: string) => (stdout += t) }, stderr: { write: () => true } });
  events = stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
}, 120_000);

afterAll(() => {
  server?.close();
  rmSync(work, { recursive: true, force: true });
});

const failure = (name: string) => events.find((e) => e.kind === 'test.case.fail' && e.name === name);

describe('a hostile test file under platform test', () => {
  it.each([
    ['process', /process is not defined/],
    ['getBuiltinModule', /Cannot read properties of undefined/],
    ['code from a string', /Code generation from strings disallowed/],
    ['the network', /./],
    ['writing a file', /Cannot read properties of undefined/],
  ])('%s is refused (DG1905)', (name, message) => {
    expect(failure(name)).toMatchObject({ code: 'DG1905', file: 'tests/hostile.test.ts' });
    expect(failure(name)!.message).toMatch(message);
  });

  it('reaches no listening port and writes nothing', () => {
    expect(requests).toBe(0);
    expect(existsSync(join(work, 'written.txt'))).toBe(false);
  });

  it('refuses `import(\'node:fs\')` at build, and the run still reports', () => {
    const finish = events.at(-1)!;
    expect(finish).toMatchObject({ kind: 'test.run.finish', ok: false, failed: 5 });
    expect(JSON.stringify(finish.diagnostics)).toContain('tests/import.test.ts');
    expect(events.some((e) => e.kind === 'test.case.pass' && e.name === 'a test after them')).toBe(true);
    expect(events.filter((e) => e.kind === 'test.case.pass' && e.file === 'tests/todos.test.ts')).toHaveLength(6);
  });

  it('gives every test fresh state, past the copies of the server module one engine holds', () => {
    expect(events.filter((e) => e.kind === 'test.case.pass' && e.file === 'tests/many.test.ts').map((e) => e.name)).toEqual([0, 1, 2, 3, 4, 5].map((i) => `fresh state ${i}`));
  });
});
