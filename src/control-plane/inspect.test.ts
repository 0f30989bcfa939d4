/**
 * Reading a deployed app as its owner: `platform inspect` (manifest, state, logs, export) and
 * `platform logs` through the control plane, with real workerd engines. The owner reads; another
 * builder is refused as if the app did not exist (DG2003); a visitor reaches none of it, and what a
 * handler writes with `console` reaches its owner and never the visitor or the host's output.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ControlPlane } from './control-plane';
import { compiler, databaseApp } from '../testing/control-plane-apps';
import { planeWithBuilders, platformInProcess } from '../testing/control-plane';

let work: string;
let plane: ControlPlane;
let dir: string;

const SERVER = `import { defineServer, endpoint, mutation, query } from 'platform/server';
export default defineServer({
  queries: {
    'notes.list': query({ input: {}, handler: async (ctx) => {
      console.log('listing for', ctx.auth.kind, { at: 1 });
      return (await ctx.db.table('notes').all()).map((n) => n.text);
    } }),
  },
  mutations: {
    'notes.add': mutation({ input: { text: 'string' }, handler: async (ctx, input) => {
      if (input.text === 'boom') { console.error('refusing', input.text); throw new Error('no booms here'); }
      for (let i = 0; i < 5000; i++) console.info('flood', i);
      await ctx.db.table('notes').insert({ text: input.text });
    } }),
  },
  endpoints: {
    // An endpoint trying to forge the report its owner reads, and to reach past it.
    'GET /api/forge': endpoint(async () => new Response('forged', { headers: { 'x-platform-call': 'eyJsb2dzIjpbeyJsZXZlbCI6ImxvZyIsIm1lc3NhZ2UiOiJmb3JnZWQifV19' } })),
  },
});
`;

const cli = (args: string[], configDir = join(work, 'config')) => platformInProcess(plane, args, { cwd: dir, configDir, compiler });

const appId = () => (JSON.parse(readFileSync(join(dir, 'platform.project.json'), 'utf8')) as { appId: string }).appId;
const previewOrigin = () => `http://${appId().replace('_', '-')}--preview.localhost:4310`;

async function hosted(path: string, init: RequestInit = {}): Promise<Response> {
  return plane.app.request(new Request(`${previewOrigin()}${path}`, init));
}

const call = (kind: 'query' | 'mutation', name: string, input: unknown) =>
  hosted(`/_platform/v0/${kind}/${name}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ input }) });

let setup: Awaited<ReturnType<typeof planeWithBuilders>>;

beforeAll(async () => {
  setup = await planeWithBuilders('platform-inspect-', { alice: 'config', mallory: 'config-mallory' });
  ({ work, plane } = setup);
  dir = join(work, 'notes');
  for (const [path, text] of Object.entries(databaseApp({ name: 'notes', tables: { notes: { text: 'string' } }, server: SERVER }))) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
}, 60_000);

afterAll(() => setup?.close());

describe('reading a deployed app as its owner', { shuffle: false }, () => {
  it('before anything is deployed, there is nothing to read (DG2003); without a target (no local server either) DG2001', async () => {
    const none = await cli(['inspect', '--json']);
    expect(none.envelope.diagnostics.map((d: { code: string }) => d.code)).toEqual(['DG2001']);
    expect(none.envelope.diagnostics[0].message).toContain('no platform dev or platform preview runs for this project');
    expect((await cli(['deploy', '--json'])).envelope).toMatchObject({ ok: true });
    const production = await cli(['inspect', 'notes', '--environment', 'production', '--json']);
    expect(production.envelope.diagnostics.map((d: { code: string }) => d.code)).toEqual(['DG2003']);
    expect(production.envelope.diagnostics[0].detail.code).toBe('not_deployed');
  }, 120_000);

  it('manifest: what the environment serves, by its deployment', async () => {
    const read = await cli(['inspect', 'notes', '--json']);
    expect(read.code).toBe(0);
    expect(read.envelope.result).toMatchObject({ view: 'manifest', appId: appId(), environment: 'preview', manifest: { name: 'notes' }, deployment: { kind: 'deploy', state: 'completed' } });
    expect(read.envelope.result.artifactId).toBe(read.envelope.result.deployment.artifactId);
    // By the URL deploy printed, too.
    const byUrl = await cli(['inspect', `${previewOrigin()}/`, '--json']);
    expect(byUrl.envelope.result.appId).toBe(appId());
  }, 60_000);

  it('logs: each call with its status, error and the lines its handler wrote; the visitor sees none of it', async () => {
    const added = await call('mutation', 'notes.add', { text: 'milk' });
    expect(added.status).toBe(200);
    expect(added.headers.get('x-platform-call')).toBeNull();
    const failed = await call('mutation', 'notes.add', { text: 'boom' });
    expect(failed.status).toBe(400);
    expect(failed.headers.get('x-platform-call')).toBeNull();
    const failure = (await failed.json()) as { error: { errorId: string } };
    const listed = await call('query', 'notes.list', {});
    expect(await listed.json()).toMatchObject({ result: ['milk'] });
    const forged = await hosted('/api/forge');
    expect(await forged.text()).toBe('forged');
    expect(forged.headers.get('x-platform-call')).toBeNull();

    const read = await cli(['logs', 'notes', '--json']);
    expect(read.code).toBe(0);
    const calls = read.envelope.result.calls as Array<{ path: string; status: number; error?: { code: string; message: string; errorId: string }; logs: Array<{ level: string; message: string }> }>;
    expect(calls.map((c) => [c.path, c.status])).toEqual([
      ['/_platform/v0/mutation/notes.add', 200],
      ['/_platform/v0/mutation/notes.add', 400],
      ['/_platform/v0/query/notes.list', 200],
      ['/api/forge', 200],
    ]);
    // A flood is cut, and says so.
    expect(calls[0]!.logs.length).toBeLessThanOrEqual(21);
    expect(calls[0]!.logs[0]).toEqual({ level: 'info', message: 'flood 0' });
    expect(calls[0]!.logs.at(-1)!.message).toMatch(/^… \d+ more lines not kept\.$/);
    expect(calls[1]!.error).toEqual({ code: 'operation_failed', message: 'no booms here', errorId: failure.error.errorId });
    expect(calls[1]!.logs).toEqual([{ level: 'error', message: 'refusing boom' }]);
    expect(calls[2]!.logs).toEqual([{ level: 'log', message: 'listing for guest {"at":1}' }]);
    // The endpoint's own header is not its report.
    expect(calls[3]!.logs).toEqual([]);

    // Read on from the cursor: only what came after.
    await call('query', 'notes.list', {});
    const next = await cli(['logs', 'notes', '--after', read.envelope.result.cursor, '--json']);
    expect(next.envelope.result.calls.map((c: { path: string }) => c.path)).toEqual(['/_platform/v0/query/notes.list']);
    const text = await cli(['logs', 'notes']);
    expect(text.stdout).toContain('POST   /_platform/v0/mutation/notes.add  400');
    expect(text.stdout).toContain(`operation_failed: no booms here (${failure.error.errorId})`);
    expect(text.stdout).toContain('    [error] refusing boom');
    expect((await cli(['logs', 'notes', '--after', 'not-a-cursor', '--json'])).envelope.diagnostics[0].code).toBe('DG2002');
  }, 60_000);

  it('state and export: the tables, a page of rows and the state document, read between calls', async () => {
    const state = await cli(['inspect', 'notes', '--view', 'state', '--table', 'notes', '--json']);
    expect(state.code).toBe(0);
    const notes = state.envelope.result.tables.find((t: { name: string }) => t.name === 'notes');
    expect(notes).toMatchObject({ declared: true, rowCount: 1 });
    expect(state.envelope.result.tables.some((t: { name: string }) => t.name.startsWith('_cf_'))).toBe(false);
    expect(state.envelope.result.operations).toEqual([{ kind: 'mutation', name: 'notes.add' }, { kind: 'query', name: 'notes.list' }]);
    const { columns, rows } = state.envelope.result.rows;
    expect(rows.map((row: unknown[]) => row[columns.indexOf('text')])).toEqual(['milk']);
    const missing = await cli(['inspect', 'notes', '--view', 'state', '--table', 'nope', '--json']);
    expect(missing.envelope.diagnostics[0]).toMatchObject({ code: 'DG2002', message: 'There is no table "nope".' });

    const exported = await cli(['inspect', 'notes', '--view', 'export', '--out', 'notes-state.json', '--json']);
    expect(exported.code).toBe(0);
    // --out streams the document to the file, page by page, and answers only what it wrote (issue 31).
    expect(exported.envelope.result).toMatchObject({ view: 'export', out: 'notes-state.json', tables: { notes: 1 } });
    expect(JSON.stringify(exported.envelope)).not.toContain('platform.state-export.v0');
    const document = JSON.parse(readFileSync(join(dir, 'notes-state.json'), 'utf8'));
    expect(document).toMatchObject({ protocol: 'platform.state-export.v0' });
    expect(document.tables.notes.map((row: { text: string }) => row.text)).toEqual(['milk']);
    expect((await cli(['inspect', 'notes', '--view', 'everything', '--json'])).envelope.diagnostics[0].code).toBe('DG2001');
  }, 60_000);

  it('another builder is refused as if the app did not exist (DG2003), by appId and by URL, for every view', async () => {
    for (const args of [[appId()], [`${previewOrigin()}/`]]) {
      for (const view of ['manifest', 'state', 'logs', 'export']) {
        const refused = await cli(['inspect', ...args, '--view', view, '--json'], join(work, 'config-mallory'));
        expect(refused.envelope.ok).toBe(false);
        expect(refused.envelope.diagnostics.map((d: { code: string }) => d.code)).toEqual(['DG2003']);
      }
    }
    expect((await cli(['logs', appId(), '--json'], join(work, 'config-mallory'))).envelope.diagnostics[0].code).toBe('DG2003');
    // Not signed in at all: the credential's own code.
    expect((await cli(['logs', appId(), '--json'], join(work, 'nobody'))).envelope.diagnostics[0].code).toBe('DG5002');
  }, 60_000);

  it('a visitor reaches no inspection path, by any spelling', async () => {
    for (const path of ['/__platform/inspect/state', '/__platform/inspect/export', '/__platform/ready', '/_platform/v0/../../__platform/inspect/export', '/%5F%5Fplatform/inspect/export']) {
      const answer = await hosted(path);
      const text = await answer.text();
      expect(text).not.toContain('milk');
      expect(text).not.toContain('platform.state-export.v0');
    }
  }, 60_000);

  it('an environment whose state cannot come up answers DG2004 with its code and appId', async () => {
    // A hand-made redeploy would be refused by the probe; a failing start is made by taking the
    // serving module away from a stopped engine's directory.
    await plane.hosting.restart(appId(), 'preview');
    const modules = join(work, 'plane', 'modules');
    for (const file of readdirSync(modules)) writeFileSync(join(modules, file), 'export default {}; throw new Error("broken on purpose");');
    const refused = await cli(['inspect', 'notes', '--view', 'state', '--json']);
    expect(refused.envelope.diagnostics[0]).toMatchObject({ code: 'DG2004', detail: { code: 'state_bootstrap_failed', appId: appId() } });
  }, 60_000);
});
