/**
 * The local loop through the real CLI: `platform dev` and `preview` as child processes (workerd,
 * loopback HTTP), and `db`, `export`, `import`, `state reset`, `auth as|clear` against them, each
 * DG16xx, DG17xx and DG18xx code produced on its condition.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, renameSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../testing/cli';
import { DevProcess } from '../testing/dev-process';
import { processesNaming } from '../testing/control-plane';

const TEMPLATES = join(import.meta.dirname, '../../templates');
const roots: string[] = [];

function copyTemplate(name: string): string {
  const root = mkdtempSync(join(tmpdir(), `platform-local-${name}-`));
  roots.push(root);
  cpSync(join(TEMPLATES, name), root, { recursive: true });
  return root;
}

async function cli(cwd: string, ...args: string[]): Promise<{ code: number; stdout: string; json: { ok: boolean; diagnostics: Array<{ code: string; detail?: { code?: string } }>; result?: any } }> {
  const { code, stdout } = await runInProcess([...args, '--json'], { cwd });
  return { code, stdout, json: JSON.parse(stdout) };
}

/** The workerd processes running for a project's dev server. */
const engines = (root: string) => processesNaming(join(root, '.platform/engines/dev')).filter((p) => p.state !== 'Z' && p.state !== 'X');

const codes = (r: { json: { diagnostics: Array<{ code: string }> } }) => r.json.diagnostics.map((d) => d.code);

async function call(url: string, kind: 'query' | 'mutation', name: string, input: unknown): Promise<any> {
  const response = await fetch(new URL(`/_platform/v0/${kind}/${name}`, url), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ input }) });
  return response.json();
}

afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

describe('platform dev on the todo template', () => {
  let root: string;
  let dev: DevProcess;
  let url: string;

  beforeAll(async () => {
    root = copyTemplate('todo');
    dev = new DevProcess(['dev', '--json', '--port', '0'], root);
    url = String((await dev.kind('preview.ready')).url);
  }, 180_000);

  afterAll(async () => {
    await dev?.stop();
  });

  it('serves the app in workerd as alice, and platform auth as changes who the visitor is', async () => {
    expect((await call(url, 'mutation', 'todos.add', { title: 'milk' })).result.id).toBeTruthy();
    expect((await call(url, 'query', 'todos.list', {})).result.map((t: { title: string }) => t.title)).toEqual(['milk']);
    expect(await (await fetch(url)).text()).toContain('you are alice');
    expect(codes(await cli(root, 'auth', 'as', 'bob'))).toEqual([]);
    expect(await (await fetch(url)).text()).toContain('you are bob');
    expect(await (await fetch(new URL('/__platform/auth/me', url))).json()).toMatchObject({ kind: 'user', appUserId: expect.stringMatching(/^local:bob:/) });
    // bob sees none of alice's todos (ownedTable), then clear goes back to alice.
    expect((await call(url, 'query', 'todos.list', {})).result).toEqual([]);
    expect(codes(await cli(root, 'auth', 'as', 'mallory'))).toEqual(['DG5000']);
    expect(codes(await cli(root, 'auth', 'clear'))).toEqual([]);
    expect((await call(url, 'query', 'todos.list', {})).result).toHaveLength(1);
  });

  it('platform inspect and logs without a target read the running dev server: its manifest, state and calls, a failure with its error', async () => {
    const refused = await call(url, 'mutation', 'todos.add', { title: '   ' });
    expect(refused.error.code).toBe('operation_failed');
    // The dev stream reports the failed call as it happens (the page never sees the report).
    const reported = await dev.kind('server.call');
    expect(reported).toMatchObject({ mode: 'dev', call: { path: '/_platform/v0/mutation/todos.add', status: 400, error: { code: 'operation_failed', errorId: refused.error.errorId } } });
    const manifest = await cli(root, 'inspect');
    expect(manifest.json.result).toMatchObject({ local: true, mode: 'dev', url, view: 'manifest', manifest: { name: 'todo' } });
    const state = await cli(root, 'inspect', '--view', 'state', '--table', 'todos');
    expect(state.json.result.tables[0]).toMatchObject({ name: 'todos', declared: true });
    expect(state.json.result.rows.columns).toContain('title');
    const logs = await cli(root, 'logs');
    const failed = (logs.json.result.calls as Array<{ status: number; error?: { errorId: string } }>).find((c) => c.status === 400);
    expect(failed?.error?.errorId).toBe(refused.error.errorId);
    const after = await cli(root, 'logs', '--after', logs.json.result.cursor);
    expect(after.json.result.calls).toEqual([]);
  });

  it('platform db reads the running database, and refuses writing SQL', async () => {
    const tables = await cli(root, 'db', 'tables');
    expect(tables.json.result.tables[0]).toEqual({ name: 'todos', declared: true, rows: 1 });
    const schema = await cli(root, 'db', 'schema', 'todos');
    expect(schema.json.result.tables[0].columns.map((c: { name: string }) => c.name)).toEqual(expect.arrayContaining(['id', 'ownerId', 'title', 'done']));
    const rows = await cli(root, 'db', 'exec', 'SELECT title FROM todos');
    expect(rows.json.result).toMatchObject({ columns: ['title'], rows: [['milk']] });
    const write = await cli(root, 'db', 'exec', 'DELETE FROM todos');
    expect(codes(write)).toEqual(['DG1840']);
    const hidden = await cli(root, 'db', 'exec', 'WITH x AS (SELECT 1) DELETE FROM todos');
    expect(codes(hidden)).toEqual(['DG1840']);
    // A reading statement followed by a writing one, in one string: the write is refused and rolled back.
    const behind = await cli(root, 'db', 'exec', 'SELECT 1; DELETE FROM todos');
    expect(codes(behind)).toEqual(['DG1840']);
    expect((await cli(root, 'db', 'exec', 'SELECT count(*) AS n FROM todos')).json.result.rows).toEqual([[1]]);
  });

  it('exports and imports the dev state with the Data panel\'s format and checks', async () => {
    const out = join(root, 'saved.json');
    const exported = await cli(root, 'export', '--state', 'dev', '--out', 'saved.json');
    expect(exported.json.result).toMatchObject({ state: 'dev', tables: { todos: 1 } });
    const document = JSON.parse(readFileSync(out, 'utf8'));
    expect(document.protocol).toBe('platform.state-export.v0');
    await call(url, 'mutation', 'todos.add', { title: 'bread' });
    expect((await cli(root, 'import', 'saved.json', '--state', 'dev')).json.result).toMatchObject({ counts: { todos: 1 } });
    expect((await call(url, 'query', 'todos.list', {})).result.map((t: { title: string }) => t.title)).toEqual(['milk']);
    // Another app's export: the runtime refuses it (DG1824 with its detail code).
    writeFileSync(join(root, 'other.json'), JSON.stringify({ ...document, app: 'someone-else' }));
    const other = await cli(root, 'import', 'other.json', '--state', 'dev');
    expect(other.json.diagnostics[0]).toMatchObject({ code: 'DG1824', detail: { code: 'state_import_application_mismatch' } });
    writeFileSync(join(root, 'wrong.json'), JSON.stringify({ protocol: 'platform.state-export.v9' }));
    expect(codes(await cli(root, 'import', 'wrong.json', '--state', 'dev'))).toEqual(['DG1822']);
    expect(codes(await cli(root, 'import', 'saved.json', '--state', 'dev', '--environment', 'production'))).toEqual(['DG1823']);
    expect(codes(await cli(root, 'import', 'missing.json', '--state', 'dev'))).toEqual(['DG1825']);
    expect(codes(await cli(root, 'import', 'src', '--state', 'dev'))).toEqual(['DG1821']);
    expect(codes(await cli(root, 'import', 'saved.json'))).toEqual(['DG1825']);
    expect(codes(await cli(root, 'export', '--state', 'test', '--out', 'x.json'))).toEqual(['DG1825']);
    expect(codes(await cli(root, 'export', '--state', 'dev', '--out', 'src'))).toEqual(['DG1821']);
    // No preview runs: nothing owns the preview state.
    expect(codes(await cli(root, 'export', '--state', 'preview', '--out', 'p.json'))).toEqual(['DG1820']);
  });

  it('holds the dev state: a second dev and a reset are refused DG1812', async () => {
    const second = new DevProcess(['dev', '--json', '--port', '0'], root);
    expect(await second.exited).toBe(1);
    expect(second.events[0]).toMatchObject({ protocol: 'platform.command.v0', diagnostics: [{ code: 'DG1812' }] });
    expect(codes(await cli(root, 'state', 'reset', '--state', 'dev', '--confirm', 'todo'))).toEqual(['DG1812']);
  });

  it('a broken rebuild keeps the last good generation serving (DG1602); the fix takes over', async () => {
    const server = join(root, 'src/server/index.ts');
    const good = readFileSync(server, 'utf8');
    let from = dev.events.length;
    writeFileSync(server, `${good}\nexport const broken: number = 'text';\n`);
    const failed = await dev.kind('compile.diagnostic', from);
    expect(failed).toMatchObject({ code: 'DG1602', diagnostics: [expect.objectContaining({ code: 'DG1205' })] });
    expect((await call(url, 'query', 'todos.list', {})).result).toHaveLength(1);
    // The engine launched from the bundle while the types were checked is ended: one engine runs.
    expect(engines(root)).toHaveLength(1);
    from = dev.events.length;
    writeFileSync(server, good.replace("title: row.title,", "title: `${row.title}!`,"));
    await dev.kind('server.restarted', from);
    await dev.kind('compile.ready', from);
    expect((await call(url, 'query', 'todos.list', {})).result.map((t: { title: string }) => t.title)).toEqual(['milk!']);
    expect(engines(root)).toHaveLength(1);
  });

  it('a server side that fails as it loads is DG1603 while the last good generation keeps serving, never stopped', async () => {
    const server = join(root, 'src/server/index.ts');
    const good = readFileSync(server, 'utf8');
    let from = dev.events.length;
    // It type-checks and bundles; the engine refuses it as it loads the module.
    writeFileSync(server, `${good}\nthrow new Error('fails as it loads');\n`);
    const refused = await dev.next((e) => e.kind === 'compile.diagnostic' || e.kind === 'compile.ready', from);
    expect(refused).toMatchObject({ kind: 'compile.diagnostic', code: 'DG1603', message: expect.stringContaining('The last good generation still serves.') });
    expect(String(refused.message)).toContain('fails as it loads');
    expect(dev.events.slice(from).some((e) => e.kind === 'server.restarted')).toBe(false);
    expect((await call(url, 'query', 'todos.list', {})).result).toHaveLength(1);
    expect(engines(root)).toHaveLength(1);
    from = dev.events.length;
    writeFileSync(server, good);
    await dev.kind('compile.ready', from);
    expect((await call(url, 'query', 'todos.list', {})).result).toHaveLength(1);
  });

  it('an incompatible schema change cannot take over (DG1603): the last good generation serves again', async () => {
    const manifestPath = join(root, 'app.manifest.json');
    const manifest = readFileSync(manifestPath, 'utf8');
    const from = dev.events.length;
    // A row holds a title: narrowing what titles may be is refused by the runtime (the types still check).
    writeFileSync(manifestPath, manifest.replace('"maxLength": 200', '"maxLength": 100'));
    const refused = await dev.next((e) => e.kind === 'compile.diagnostic' || e.kind === 'compile.ready', from);
    expect(refused).toMatchObject({ kind: 'compile.diagnostic', code: 'DG1603' });
    expect(dev.events.slice(from).some((e) => e.kind === 'server.restarted')).toBe(true);
    expect((await call(url, 'query', 'todos.list', {})).result).toHaveLength(1);
    const back = dev.events.length;
    writeFileSync(manifestPath, manifest);
    await dev.kind('compile.ready', back);
  });

  it('a changed client.runtime needs a restart (DG1605)', async () => {
    const manifestPath = join(root, 'app.manifest.json');
    const manifest = readFileSync(manifestPath, 'utf8');
    const from = dev.events.length;
    writeFileSync(manifestPath, manifest.replace('"capabilities"', '"client": { "runtime": { "provider": "preact", "source": "platform" } },\n  "capabilities"'));
    expect(await dev.next((e) => e.kind === 'compile.diagnostic' || e.kind === 'compile.ready', from)).toMatchObject({ kind: 'compile.diagnostic', code: 'DG1605' });
    const back = dev.events.length;
    writeFileSync(manifestPath, manifest);
    await dev.kind('compile.ready', back);
  });

  it('.platform/env.dev.local.json feeds ctx.env', async () => {
    const server = join(root, 'src/server/index.ts');
    const source = readFileSync(server, 'utf8');
    let from = dev.events.length;
    writeFileSync(server, source.replace("queries: {", "queries: {\n    'env.greeting': query({ input: {}, handler: async (ctx) => ctx.env.GREETING ?? null }),"));
    await dev.kind('compile.ready', from);
    expect((await call(url, 'query', 'env.greeting', {})).result).toBeNull();
    from = dev.events.length;
    writeFileSync(join(root, '.platform/env.dev.local.json'), JSON.stringify({ format: 'platform.env-local.v0', values: { GREETING: 'hello' } }));
    await dev.kind('server.restarted', from);
    await dev.kind('compile.ready', from);
    expect((await call(url, 'query', 'env.greeting', {})).result).toBe('hello');
  });

  it('a clean stop removes the discovery record; then nothing owns the state', async () => {
    expect(existsSync(join(root, '.platform/servers/dev.json'))).toBe(true);
    expect(await dev.stop()).toBe(0);
    expect(existsSync(join(root, '.platform/servers/dev.json'))).toBe(false);
    expect(codes(await cli(root, 'db', 'tables'))).toEqual(['DG1840']);
    expect(codes(await cli(root, 'export', '--state', 'dev', '--out', 'x.json'))).toEqual(['DG1820']);
  });
});

describe('platform dev whose first build fails', () => {
  it('serves nothing and leaves no engine running (the one started while the types were checked is ended); the fix serves', { timeout: 180_000 }, async () => {
    const root = copyTemplate('todo');
    const server = join(root, 'src/server/index.ts');
    const good = readFileSync(server, 'utf8');
    writeFileSync(server, `${good}\nexport const broken: number = 'text';\n`);
    const dev = new DevProcess(['dev', '--json', '--port', '0'], root);
    try {
      expect(await dev.kind('compile.diagnostic')).toMatchObject({ code: 'DG1602', message: expect.stringContaining('nothing serves') });
      expect(engines(root)).toEqual([]);
      const from = dev.events.length;
      writeFileSync(server, good);
      const ready = await dev.kind('preview.ready', from);
      expect((await call(String(ready.url), 'query', 'todos.list', {})).result).toEqual([]);
      expect(engines(root)).toHaveLength(1);
    } finally {
      expect(await dev.stop()).toBe(0);
    }
  });
});

describe('local state without a server', () => {
  it('state reset: DG1801, DG1810, DG1811; a recovery copy first; DG1813 for a link; DG1814 for a filesystem failure', async () => {
    const root = copyTemplate('todo');
    mkdirSync(join(root, '.platform/state/dev/sub'), { recursive: true });
    writeFileSync(join(root, '.platform/state/dev/sub/data.sqlite'), 'rows');
    expect(codes(await cli(root, 'state', 'reset', '--confirm', 'todo'))).toEqual(['DG1801']);
    expect(codes(await cli(root, 'state', 'reset', '--state', 'prod', '--confirm', 'todo'))).toEqual(['DG1801']);
    expect(codes(await cli(root, 'state', 'reset', '--state', 'dev'))).toEqual(['DG1810']);
    expect(codes(await cli(root, 'state', 'reset', '--state', 'dev', '--confirm', 'Todo'))).toEqual(['DG1811']);
    const reset = await cli(root, 'state', 'reset', '--state', 'dev', '--confirm', 'todo');
    expect(reset.json.ok).toBe(true);
    const recovery = reset.json.result.recovery as string;
    expect(readFileSync(join(root, recovery, 'sub/data.sqlite'), 'utf8')).toBe('rows');
    expect(existsSync(join(root, '.platform/state/dev'))).toBe(false);
    // The state directory is a link out of .platform/.
    const outside = mkdtempSync(join(tmpdir(), 'platform-outside-'));
    roots.push(outside);
    symlinkSync(outside, join(root, '.platform/state/preview'));
    expect(codes(await cli(root, 'state', 'reset', '--state', 'preview', '--confirm', 'todo'))).toEqual(['DG1813']);
    // The recovery folder cannot be made: a file stands where it goes.
    mkdirSync(join(root, '.platform/state/test'), { recursive: true });
    writeFileSync(join(root, '.platform/state/test/x'), '1');
    rmSync(join(root, '.platform/recovery'), { recursive: true });
    writeFileSync(join(root, '.platform/recovery'), 'not a folder');
    expect(codes(await cli(root, 'state', 'reset', '--state', 'test', '--confirm', 'todo'))).toEqual(['DG1814']);
  });

  it('db: DG1841 when the running server published no admin secret, DG1842 when it answers another protocol', async () => {
    const root = copyTemplate('todo');
    const junk = createServer((_request, response) => response.end('{"hello":"world"}'));
    await new Promise<void>((done) => junk.listen(0, '127.0.0.1', done));
    try {
      const port = (junk.address() as AddressInfo).port;
      mkdirSync(join(root, '.platform/servers'), { recursive: true });
      const record = { format: 'platform.local-server.v0', mode: 'dev', url: `http://127.0.0.1:${port}/`, pid: process.pid, startedAt: new Date().toISOString() };
      writeFileSync(join(root, '.platform/servers/dev.json'), JSON.stringify(record));
      expect(codes(await cli(root, 'db', 'tables'))).toEqual(['DG1841']);
      writeFileSync(join(root, '.platform/servers/dev.json'), JSON.stringify({ ...record, adminSecret: 'x' }));
      expect(codes(await cli(root, 'db', 'tables'))).toEqual(['DG1842']);
      // A record whose process is gone is stale: no server runs.
      writeFileSync(join(root, '.platform/servers/dev.json'), JSON.stringify({ ...record, pid: 2 ** 22 + 1 }));
      expect(codes(await cli(root, 'db', 'tables'))).toEqual(['DG1840']);
    } finally {
      junk.close();
    }
  });

  it('preview: DG1704 without a verified artifact; after a build it serves the artifact with the preview state', async () => {
    const root = copyTemplate('todo');
    const refused = new DevProcess(['preview', '--json', '--port', '0'], root);
    expect(await refused.exited).toBe(1);
    expect(refused.events[0]).toMatchObject({ diagnostics: [{ code: 'DG1704' }, { code: 'DG1700' }] });
    expect(codes(await cli(root, 'build'))).toEqual([]);
    const preview = new DevProcess(['preview', '--json', '--port', '0'], root);
    try {
      const ready = await preview.kind('preview.ready');
      expect(ready).toMatchObject({ mode: 'preview', artifactId: expect.stringMatching(/^sha256:/) });
      await call(String(ready.url), 'mutation', 'todos.add', { title: 'previewed' });
      expect((await cli(root, 'db', 'exec', 'SELECT title FROM todos', '--state', 'preview')).json.result.rows).toEqual([['previewed']]);
    } finally {
      expect(await preview.stop()).toBe(0);
    }
    expect(existsSync(join(root, '.platform/state/preview'))).toBe(true);
  });

  it('DG1604 when the manifest is a link the watcher cannot follow', async () => {
    const root = copyTemplate('endpoints');
    mkdirSync(join(root, 'config'));
    renameSync(join(root, 'app.manifest.json'), join(root, 'config/app.manifest.json'));
    symlinkSync('config/app.manifest.json', join(root, 'app.manifest.json'));
    const dev = new DevProcess(['dev', '--json', '--port', '0'], root);
    try {
      expect(await dev.kind('compile.diagnostic')).toMatchObject({ code: 'DG1604', file: 'app.manifest.json' });
      await dev.kind('preview.ready');
    } finally {
      await dev.stop();
    }
  });
});
