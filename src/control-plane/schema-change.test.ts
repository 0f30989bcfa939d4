/**
 * A schema change, deployed: a small app of its own (hosted visitors are guests, so its mutation takes
 * guests) is deployed with `platform deploy` against a control plane in process, guests add rows, and
 * the builder redeploys. An added optional field applies and keeps every row, readable with the new
 * field; retyping a field that holds rows is refused as DG5106 naming the field, and the version
 * before it keeps serving its rows.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ControlPlane } from './control-plane';
import { compiler } from '../testing/control-plane-apps';
import { guestCall, planeWithBuilders, platformInProcess } from '../testing/control-plane';

let work: string;
let plane: ControlPlane;
let dir: string;

type Fields = Record<string, Record<string, unknown>>;

/** The app's files: a `cards` table with `fields`; the server reads back every field it declares. */
function writeApp(fields: Fields): void {
  const manifest = {
    format: 'platform.application-source.v0',
    name: 'cards',
    entrypoints: { client: 'src/client/main.tsx', server: 'src/server/index.ts' },
    capabilities: ['database'],
    database: { tables: { cards: { fields } } },
  };
  const titleType = fields.title!.type === 'number' ? 'number' : 'string';
  const extra = Object.keys(fields).filter((name) => name !== 'title' && name !== 'done');
  const server = `import { defineServer, mutation, query } from 'platform/server';

export type Card = { id: string; title: ${titleType}; done: boolean${extra.map((name) => `; ${name}: number | null`).join('')} };

export default defineServer({
  queries: {
    'cards.list': query({
      input: {},
      handler: async (ctx): Promise<Card[]> =>
        (await ctx.db.table('cards').all()).map((row) => ({ id: row.id, title: row.title, done: row.done${extra.map((name) => `, ${name}: row.${name} ?? null`).join('')} })),
    }),
  },
  mutations: {
    // Guests may add: hosted visitors are guests.
    'cards.add': mutation({ input: { title: '${titleType}' }, handler: async (ctx, input) => ({ id: (await ctx.db.table('cards').insert({ title: input.title })).id }) }),
  },
});
`;
  mkdirSync(join(dir, 'src/server'), { recursive: true });
  mkdirSync(join(dir, 'src/client'), { recursive: true });
  writeFileSync(join(dir, 'app.manifest.json'), JSON.stringify(manifest, null, 2));
  writeFileSync(join(dir, 'src/server/index.ts'), server);
  writeFileSync(join(dir, 'src/client/main.tsx'), `document.body.textContent = 'cards';\n`);
}

const deploy = () => platformInProcess(plane, ['deploy', '--json'], { cwd: dir, configDir: join(work, 'config'), compiler });

const appId = () => (JSON.parse(readFileSync(join(dir, 'platform.project.json'), 'utf8')) as { appId: string }).appId;

/** A query or mutation from a hosted visitor (a guest) of the preview environment. */
const hostedCall = async (kind: 'query' | 'mutation', name: string, input: unknown) => {
  const { status, body } = await guestCall(plane, appId(), kind, name, input);
  return { status, body };
};

const TITLE = { type: 'string', maxLength: 200 };
const DONE = { type: 'boolean', default: false };

let setup: Awaited<ReturnType<typeof planeWithBuilders>>;

beforeAll(async () => {
  setup = await planeWithBuilders('platform-schema-');
  ({ work, plane } = setup);
  dir = join(work, 'cards');
}, 60_000);

afterAll(() => setup?.close());

describe('a schema change, deployed', { shuffle: false }, () => {
  let before: Array<{ id: string; title: string; done: boolean }>;

  it('deploys the first version and guests add rows', async () => {
    writeApp({ title: TITLE, done: DONE });
    expect((await deploy()).envelope).toMatchObject({ ok: true });
    for (const title of ['milk', 'eggs', 'bread']) expect((await hostedCall('mutation', 'cards.add', { title })).status).toBe(200);
    const listed = await hostedCall('query', 'cards.list', {});
    before = listed.body.result;
    expect(before.map((card) => card.title)).toEqual(['milk', 'eggs', 'bread']);
  }, 120_000);

  it('an added optional field applies on redeploy: every row kept, read with the new field at its default', async () => {
    writeApp({ title: TITLE, done: DONE, priority: { type: 'number', optional: true, default: 0 } });
    expect((await deploy()).envelope).toMatchObject({ ok: true, diagnostics: [] });
    const listed = await hostedCall('query', 'cards.list', {});
    expect(listed.body.result).toEqual(before.map((card) => ({ ...card, priority: 0 })));
    // The new version writes as usual.
    expect((await hostedCall('mutation', 'cards.add', { title: 'jam' })).status).toBe(200);
    expect((await hostedCall('query', 'cards.list', {})).body.result).toHaveLength(4);
  }, 120_000);

  it('retyping a field that holds rows is refused DG5106 naming the field; the previous version serves its rows', async () => {
    writeApp({ title: { type: 'number' }, done: DONE, priority: { type: 'number', optional: true, default: 0 } });
    const refused = await deploy();
    expect(refused.code).toBe(1);
    expect(refused.envelope.diagnostics.map((d: { code: string }) => d.code)).toEqual(['DG5106']);
    const [diagnostic] = refused.envelope.diagnostics;
    expect(diagnostic!.detail?.code).toBe('provision_failed');
    expect(diagnostic!.message).toContain('cards.title: is a string field holding values in 4 rows and would become a number field');
    expect(diagnostic!.message).toContain('previous version still serves');
    const listed = await hostedCall('query', 'cards.list', {});
    expect(listed.body.result.map((card: { title: string; priority: number }) => [card.title, card.priority])).toEqual([['milk', 0], ['eggs', 0], ['bread', 0], ['jam', 0]]);
  }, 120_000);
});
