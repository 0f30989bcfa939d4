/**
 * Issue 30 (items 3, 6, 7, 8): where the CLI answered otherwise than tooling.md and docs/cli.md say,
 * each through the real CLI: bin/platform.mjs as a process (`platform dev` a long-running one), and
 * `domains` through the CLI's own entry against a real control plane in process.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createControlPlane, type ControlPlane } from '../control-plane/control-plane';
import { compiler } from '../testing/control-plane-apps';
import { BASE, signIn } from '../testing/control-plane';
import { FileCredentialStore } from '../adapters/node/credentials';
import { DevProcess } from '../testing/dev-process';
import { ROOT, runCli, runInProcess, type CliRun } from '../testing/cli';

// Every test spawns the CLI, which runs the TypeScript sources: slow on a busy 2-core machine.
const SLOW = { timeout: 180_000 };
let work: string;

interface Diagnostic {
  code: string;
  file?: string;
  causedBy?: string;
  primary?: true;
  detail?: Record<string, unknown>;
  diagnostics?: Diagnostic[];
}

/** `node bin/platform.mjs <args>` in `cwd`; a process still running after `timeoutMs` is ended (and fails the test that waited for it). */
const platform = (args: string[], cwd: string, timeoutMs = 120_000): Promise<CliRun> => runCli(args, { cwd, timeoutMs });

const envelopeOf = (run: { stdout: string }) => JSON.parse(run.stdout) as { command: string; ok: boolean; diagnostics: Diagnostic[]; result?: any };
const codes = (run: { stdout: string }) => envelopeOf(run).diagnostics.map((d) => d.code);

function template(name: string, id = 'todo'): string {
  const dir = join(work, name);
  cpSync(join(ROOT, 'templates', id), dir, { recursive: true });
  return dir;
}

function edit(dir: string, path: string, change: (text: string) => string): void {
  const before = readFileSync(join(dir, path), 'utf8');
  const after = change(before);
  if (after === before) throw new Error(`The edit of ${path} changed nothing`);
  writeFileSync(join(dir, path), after);
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'platform-issue30-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the command line itself (item 8)', () => {
  it('DG0002: a flag given twice (build --verify --verify), as docs/cli.md says of any repeated option', SLOW, async () => {
    const dir = template('twice');
    const run = await platform(['build', '--verify', '--verify', '--json', dir], work);
    expect(run.code).toBe(2);
    expect(envelopeOf(run).diagnostics).toEqual([expect.objectContaining({ code: 'DG0002', message: '--verify is given more than once.' })]);
    expect(codes(await platform(['check', '--json', '--json', dir], work))).toEqual(['DG0002']);
  });

  it('platform --json with no command is the usage as a help envelope, not a command named "--json"', SLOW, async () => {
    const run = await platform(['--json'], work);
    expect(run.code).toBe(0);
    expect(envelopeOf(run)).toMatchObject({ protocol: 'platform.command.v0', command: 'help', ok: true, diagnostics: [] });
    // Before a command it is the command's --json.
    const dir = template('json-first');
    const check = await platform(['--json', 'check', dir], work);
    expect(envelopeOf(check)).toMatchObject({ command: 'check', ok: true });
  });

  it('auth as and auth clear work, and docs/cli.md no longer calls them DG0001', SLOW, async () => {
    const dir = template('personas');
    const as = await platform(['auth', 'as', 'bob', '--json'], dir);
    expect(envelopeOf(as)).toMatchObject({ command: 'auth', ok: true });
    expect(JSON.parse(readFileSync(join(dir, '.platform/persona.json'), 'utf8'))).toMatchObject({ persona: 'bob' });
    expect(envelopeOf(await platform(['auth', 'clear', '--json'], dir))).toMatchObject({ command: 'auth', ok: true });
    const docs = readFileSync(join(ROOT, 'docs/cli.md'), 'utf8');
    expect(docs).not.toMatch(/`auth as` and `auth clear`[^.]*DG0001/);
  });
});

describe('attribution after a renamed operation (item 6)', () => {
  it('the calls of the old name in the client and the tests carry causedBy of the primary, not only their follow-on errors', SLOW, async () => {
    const dir = template('renamed');
    // todos.add renamed to a name the definition refuses (DG1303): the client and the tests still call todos.add.
    edit(dir, 'src/server/index.ts', (text) => text.replace("'todos.add': mutation", "'todos.Add': mutation"));
    const run = await platform(['check', '--json', dir], work);
    const { diagnostics } = envelopeOf(run);
    expect(diagnostics.filter((d) => d.primary)).toEqual([expect.objectContaining({ code: 'DG1303', file: 'src/server/index.ts' })]);
    const consumers = diagnostics.filter((d) => d.file === 'src/client/main.tsx' || d.file?.startsWith('tests/'));
    expect(consumers.length).toBeGreaterThan(3);
    expect(consumers.filter((d) => d.causedBy !== 'DG1303')).toEqual([]);
    expect(diagnostics.filter((d) => /todos\.add/.test(JSON.stringify(d)) && d.file === 'src/client/main.tsx')).not.toEqual([]);
  });
});

describe('test.case.fail (item 7)', () => {
  it('is Diagnostic-shaped and carries the failure whole in `failure`, whose kind is the failure\'s', { timeout: 180_000 }, async () => {
    const dir = template('failing');
    edit(dir, 'tests/todos.test.ts', (text) => text.replace(/toHaveLength\(1\)/, 'toHaveLength(7)'));
    const run = await platform(['test', '--json', dir], work, 170_000);
    const events = run.stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, any>);
    const failed = events.find((e) => e.kind === 'test.case.fail');
    expect(failed).toMatchObject({ protocol: 'platform.dev.v0', kind: 'test.case.fail', code: 'DG1904', severity: 'error', file: 'tests/todos.test.ts', matcher: 'toHaveLength' });
    expect(failed!.failure).toEqual({
      code: 'DG1904',
      severity: 'error',
      message: failed!.message,
      file: 'tests/todos.test.ts',
      span: failed!.span,
      test: failed!.name,
      kind: 'assertion',
      matcher: 'toHaveLength',
      expected: failed!.expected,
      actual: failed!.actual,
    });
    expect(run.code).toBe(1);
  });
});

describe('preview (item 8)', () => {
  it('refuses a stale build with DG1705 naming the changed file instead of serving it', { timeout: 180_000 }, async () => {
    const dir = template('stale');
    expect((await platform(['build', '--json', dir], work)).code).toBe(0);
    edit(dir, 'src/shared/todo.ts', (text) => `${text}\n// changed after the build\n`);
    // A preview that serves never exits by itself: the timeout ends it and the test fails.
    const run = await platform(['preview', '--json', '--port', '0', dir], work, 60_000);
    const lines = run.stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, any>);
    expect(lines.some((e) => e.kind === 'preview.ready')).toBe(false);
    const last = lines.at(-1)!;
    expect(last.diagnostics.map((d: Diagnostic) => d.code)).toEqual(['DG1704', 'DG1705']);
    expect(last.diagnostics[1].detail).toEqual({ changed: ['src/shared/todo.ts'] });
    expect(run.code).toBe(1);
  });
});

describe('against a running platform dev (items 3 and 8)', () => {
  let dir: string;
  let dev: DevProcess;
  let url: string;

  beforeAll(async () => {
    dir = template('dev');
    dev = new DevProcess(['dev', '--json', '--port', '0'], dir);
    url = String((await dev.kind('preview.ready')).url);
  }, 300_000);

  afterAll(async () => {
    await dev?.stop();
  });

  it('logs --after with something that is not a cursor is DG2002, as the hosted read answers', SLOW, async () => {
    const read = await platform(['logs', '--json'], dir);
    expect(envelopeOf(read)).toMatchObject({ ok: true, result: { local: true, view: 'logs' } });
    const garbage = await platform(['logs', '--after', 'garbage', '--json'], dir);
    expect(codes(garbage)).toEqual(['DG2002']);
    expect(codes(await platform(['inspect', '--view', 'logs', '--after', 'garbage', '--json'], dir))).toEqual(['DG2002']);
    // The cursor a read printed is taken.
    expect(envelopeOf(await platform(['logs', '--after', envelopeOf(read).result.cursor, '--json'], dir)).ok).toBe(true);
  });

  it('an env file made unusable while dev runs is a compile.diagnostic of DG1602 with the DG5134 in its diagnostics, never DG5134 itself', { timeout: 120_000 }, async () => {
    const from = dev.events.length;
    writeFileSync(join(dir, '.platform/env.dev.local.json'), '{ "format": "platform.env-local.v0", "values": { "lower": 1 } }');
    const event = await dev.kind('compile.diagnostic', from);
    expect(event).toMatchObject({ code: 'DG1602', file: '.platform/env.dev.local.json' });
    expect((event.diagnostics as Diagnostic[]).map((d) => d.code)).toEqual(['DG5134']);
    rmSync(join(dir, '.platform/env.dev.local.json'));
  });

  it('import refuses an export made under another schema identity, an optional field added since included (DG1824 state_import_schema_mismatch)', { timeout: 150_000 }, async () => {
    await fetch(new URL('/_platform/v0/mutation/todos.add', url), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ input: { title: 'milk' } }) });
    expect(envelopeOf(await platform(['export', '--state', 'dev', '--out', 'before.json', '--json'], dir)).ok).toBe(true);
    // A compatible change: the running server takes it over, keeping its rows.
    const from = dev.events.length;
    edit(dir, 'app.manifest.json', (text) => text.replace('"done": {', '"priority": { "type": "number", "optional": true },\n          "done": {'));
    const ready = await dev.next((e) => e.kind === 'compile.ready' || e.kind === 'compile.diagnostic', from);
    expect(ready.kind).toBe('compile.ready');
    const run = await platform(['import', 'before.json', '--state', 'dev', '--json'], dir);
    expect(envelopeOf(run).diagnostics).toEqual([expect.objectContaining({ code: 'DG1824', detail: expect.objectContaining({ code: 'state_import_schema_mismatch' }) })]);
    expect(run.code).toBe(1);
    // An export under the schema in force imports.
    expect(envelopeOf(await platform(['export', '--state', 'dev', '--out', 'after.json', '--json'], dir)).ok).toBe(true);
    expect(envelopeOf(await platform(['import', 'after.json', '--state', 'dev', '--json'], dir)).result).toMatchObject({ counts: { todos: 1 } });
  });
});

describe('domains ls --app (item 8)', () => {
  let plane: ControlPlane;

  const cli = (args: string[], who: string, cwd = work) =>
    runInProcess([...args, '--json'], {
      cwd,
      compiler,
      env: { PLATFORM_CONFIG_DIR: join(work, 'config', who), PLATFORM_CONTROL_URL: BASE },
      fetch: (request: Request) => Promise.resolve(plane.app.request(request)),
    });

  beforeAll(async () => {
    plane = await createControlPlane({ dataDir: join(work, 'plane'), devicePollMs: 5 });
    for (const who of ['alice', 'bob']) {
      const token = await signIn(plane, who);
      await new FileCredentialStore(join(work, 'config', who)).write(BASE, { token, builder: { id: 'bld_x', name: who }, createdAt: new Date().toISOString() });
    }
  }, 60_000);

  afterAll(async () => {
    await plane?.close();
  });

  it('another builder\'s app is DG5193 for ls as it is for add; the owner lists it', SLOW, async () => {
    const dir = template('domains-app', 'endpoints');
    const linked = await cli(['link', '--new'], 'alice', dir);
    const appId = envelopeOf(linked).result.app.id as string;
    expect(appId).toMatch(/^app_/);
    expect(codes(await cli(['domains', 'add', 'shop.example.com', '--app', appId], 'bob'))).toEqual(['DG5193']);
    const listed = await cli(['domains', 'ls', '--app', appId], 'bob');
    expect(codes(listed)).toEqual(['DG5193']);
    expect(listed.code).toBe(1);
    expect(envelopeOf(await cli(['domains', 'ls', '--app', appId], 'alice'))).toMatchObject({ ok: true, result: { action: 'ls', domains: [] } });
    expect(codes(await cli(['domains', 'ls', '--app', 'app_zzzzzzzzzzzzzzzzzzzzzzzzzz'], 'alice'))).toEqual(['DG5193']);
  });
});
