/**
 * The switch to a new version after its probe. The probe starts the artifact on a copy of the data;
 * visitors go on writing until the switch, so the live data may no longer fit. Here a row arrives in
 * exactly that gap (written as the probe finishes): the switch must refuse the new version (DG5106,
 * the deployment recorded failed) and the previous one must go on serving every row.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ControlPlane } from './control-plane';
import { compiler, databaseApp } from '../testing/control-plane-apps';
import { guestCall, planeWithBuilders, platformInProcess } from '../testing/control-plane';

let work: string;
let plane: ControlPlane;
let dir: string;

function writeApp(type: 'string' | 'number'): void {
  const server = `import { defineServer, mutation, query } from 'platform/server';
export default defineServer({
  queries: { 'marks.list': query({ input: {}, handler: async (ctx) => (await ctx.db.table('marks').all()).map((m) => m.value) }) },
  mutations: { 'marks.add': mutation({ input: { value: '${type}' }, handler: async (ctx, input) => { await ctx.db.table('marks').insert({ value: input.value }); } }) },
});
`;
  for (const [path, text] of Object.entries(databaseApp({ name: 'marks', tables: { marks: { value: type } }, server }))) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
}

const cli = (args: string[]) => platformInProcess(plane, [...args, '--json'], { cwd: dir, configDir: join(work, 'config'), compiler });
const appId = () => (JSON.parse(readFileSync(join(dir, 'platform.project.json'), 'utf8')) as { appId: string }).appId;
const call = async (kind: 'query' | 'mutation', name: string, input: unknown) => {
  const { status, body } = await guestCall(plane, appId(), kind, name, input);
  return { status, body };
};

let setup: Awaited<ReturnType<typeof planeWithBuilders>>;

beforeAll(async () => {
  setup = await planeWithBuilders('platform-switch-');
  ({ work, plane } = setup);
  dir = join(work, 'marks');
}, 60_000);

afterAll(() => setup?.close());

describe('the switch after the probe', () => {
  it('refuses a version the live data no longer fits, and the previous version serves every row', async () => {
    writeApp('string');
    expect((await cli(['deploy'])).envelope).toMatchObject({ ok: true });
    const first = (await cli(['inspect', 'marks'])).envelope.result.artifactId as string;

    // The table is empty, so retyping its field passes the probe; a visitor's row lands right after it.
    const hosting = plane.hosting;
    const probe = hosting.probe.bind(hosting);
    let wrote: { status: number } | undefined;
    hosting.probe = async (...args: Parameters<typeof probe>) => {
      const verdict = await probe(...args);
      wrote = await call('mutation', 'marks.add', { value: 'late' });
      return verdict;
    };
    writeApp('number');
    const refused = await cli(['deploy']);
    hosting.probe = probe;
    expect(wrote?.status).toBe(200);
    expect(refused.code).toBe(1);
    expect(refused.envelope.diagnostics.map((d: { code: string }) => d.code)).toEqual(['DG5106']);
    expect(refused.envelope.diagnostics[0].detail.code).toBe('provision_failed');
    expect(refused.envelope.diagnostics[0].message).toContain('marks.value');
    expect(refused.envelope.diagnostics[0].message).toContain('previous version still serves');

    // The previous version serves, with the row written in the gap; the records say so.
    expect(await call('query', 'marks.list', {})).toEqual({ status: 200, body: expect.objectContaining({ result: ['late'] }) });
    expect((await call('mutation', 'marks.add', { value: 'after' })).status).toBe(200);
    expect((await call('query', 'marks.list', {})).body.result).toEqual(['late', 'after']);
    expect((await cli(['inspect', 'marks'])).envelope.result.artifactId).toBe(first);
    const history = (await cli(['deployments'])).envelope.result.deployments as Array<{ state: string; artifactId: string }>;
    expect(history.map((d) => d.state)).toEqual(['failed', 'completed']);
    expect(history[1]!.artifactId).toBe(first);
  }, 180_000);
});
