/** `platform test` runs a stranger's test file in workerd: each reach for the host is refused, nothing is written, and the run still reports. */
import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../../testing/cli';
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
  // A test that holds memory without bound (1 MiB arrays kept in a global) runs into the engine's heap limit.
  writeFileSync(
    join(dir, 'tests/heap.test.ts'),
    [
      "import { test } from 'platform/test';",
      'const held: number[][] = [];',
      "test('holds memory without bound', () => {",
      '  for (let i = 0; ; i++) held.push(new Array(1 << 17).fill(i));',
      '});',
      "test('a test after the greedy one', () => {});",
      '',
    ].join('\n'),
  );
  // A test file that shares the engine's realm rewrites what the trusted entry sends the host: it patches
  // the stream writer the entry writes its lines with, and slips its own lines in before the next one.
  writeFileSync(
    join(dir, 'tests/messages.test.ts'),
    [
      "import { test } from 'platform/test';",
      'type Writer = { write(this: unknown, chunk: string): Promise<void> };',
      'const proto = (globalThis as unknown as { WritableStreamDefaultWriter: { prototype: Writer } }).WritableStreamDefaultWriter.prototype;',
      'const write = proto.write;',
      'const inject = (...lines: string[]) => {',
      '  proto.write = function (this: unknown, chunk: string) {',
      '    proto.write = write;',
      "    return write.call(this, lines.map((line) => `${line}\\n`).join('') + chunk);",
      '  };',
      '};',
      "const pass = (name: string, file: string) => JSON.stringify({ type: 'event', event: { protocol: 'platform.dev.v0', kind: 'test.case.pass', name, file, durationMs: 0 } });",
      "test('claims a pass for another file', () => inject(pass('a forged pass', 'tests/todos.test.ts')));",
      "test('sends the host messages it does not know', () => inject(JSON.stringify({ type: 'shell', command: 'rm -rf ~' }), 'not json at all', JSON.stringify({ type: 'event', event: { kind: 'test.run.finish', name: 'x', ok: true, passed: 99, failed: 0 } })));",
      "test('a test after the messages', () => {});",
      '',
    ].join('\n'),
  );
  const compiler = nodeCompiler();
  const { stdout } = await runInProcess(['test', dir, '--json'], { cwd: work, compiler: async () => compiler });
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
    // The five refusals of hostile.test.ts, the greedy test, and the two tests that forge messages (below).
    expect(finish).toMatchObject({ kind: 'test.run.finish', ok: false, failed: 8 });
    expect(JSON.stringify(finish.diagnostics)).toContain('tests/import.test.ts');
    expect(events.some((e) => e.kind === 'test.case.pass' && e.name === 'a test after them')).toBe(true);
    expect(events.filter((e) => e.kind === 'test.case.pass' && e.file === 'tests/todos.test.ts' && e.name !== 'a forged pass')).toHaveLength(6);
  });

  it('gives every test fresh state, past the copies of the server module one engine holds', () => {
    expect(events.filter((e) => e.kind === 'test.case.pass' && e.file === 'tests/many.test.ts').map((e) => e.name)).toEqual([0, 1, 2, 3, 4, 5].map((i) => `fresh state ${i}`));
  });

  it('a test that allocates without bound fails as a runtime failure, and the next file still runs', () => {
    const greedy = failure('holds memory without bound');
    expect(greedy).toMatchObject({ file: 'tests/heap.test.ts' });
    expect(['DG1902', 'DG1906']).toContain(greedy!.code);
    expect(greedy!.message).toMatch(/^The test (runtime failed|"holds memory without bound" ran past)/);
    // Files run in order: hostile.test.ts, after heap.test.ts, still ran in a fresh engine.
    const next = events.findIndex((e) => e.kind === 'test.case.pass' && e.name === 'a test after them');
    expect(next).toBeGreaterThan(events.indexOf(greedy!));
  });

  // An engine that died in a test (here at its heap limit) fails that test, names why, and the file goes on in a fresh engine.
  it('the greedy test\'s file goes on: the test after it runs', () => {
    expect(events.some((e) => e.kind === 'test.case.pass' && e.name === 'a test after the greedy one')).toBe(true);
  });

  it('the greedy test\'s failure names the heap limit', () => {
    expect(failure('holds memory without bound')!.message).toMatch(/memory|heap/i);
  });

  it('unknown messages to the host are a runtime failure of that test, and the run goes on and reports truly', () => {
    expect(failure('sends the host messages it does not know')).toMatchObject({ code: 'DG1902', file: 'tests/messages.test.ts' });
    // Nothing it sent is passed on: one finish event, the last, with the host's own counts.
    expect(events.filter((e) => e.kind === 'test.run.finish')).toHaveLength(1);
    expect(events.every((e) => e.kind === 'test.case.pass' || e.kind === 'test.case.fail' || e.kind === 'test.run.finish')).toBe(true);
    const finish = events.at(-1)!;
    expect(finish.passed).toBe(events.filter((e) => e.kind === 'test.case.pass').length);
    expect(events.filter((e) => e.kind === 'test.case.pass' && e.file === 'tests/todos.test.ts').length).toBeGreaterThanOrEqual(6);
  });

  // The host takes one result for the test that started, under the file it asked for: a forged line is a runtime failure of the forging test.
  it('a test file cannot report a pass under another file\'s name', () => {
    expect(events.some((e) => e.kind === 'test.case.pass' && e.name === 'a forged pass')).toBe(false);
    expect(failure('claims a pass for another file')).toMatchObject({ code: 'DG1902', message: expect.stringContaining('"a forged pass", which is not the test that started') });
    expect(events.some((e) => e.kind === 'test.case.pass' && e.name === 'a test after the messages')).toBe(true);
  });
});
