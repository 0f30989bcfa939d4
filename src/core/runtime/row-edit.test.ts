/**
 * An owner's edit of one row as a persona (AppRuntime.updateRow, the Data panel's write): the table
 * API a mutation's handler gets, with the table's policy for that persona, values checked by their
 * declarations, all or nothing, and live connections refreshed as after a mutation.
 */
import { describe, expect, it } from 'vitest';
import { nodeSqlDriverFactory } from '../../adapters/node/sqljs';
import type { Manifest } from '../manifest';
import { defineServer, mutation, ownedTable, query, workspaceTable } from '../../modules/server';
import { LIVE_CONNECTION_HEADER, LIVE_PATH, parseLiveEvent } from '../../modules/wire';
import { testClock } from './clock';
import { personaAuth, type PersonaName } from './personas';
import { AppRuntime } from './runtime';

const factory = await nodeSqlDriverFactory();

const MANIFEST: Manifest = {
  format: 'platform.application-source.v0',
  name: 'edit-app',
  entrypoints: { client: 'src/client/main.tsx', server: 'src/server/index.ts' },
  capabilities: ['database'],
  database: {
    tables: {
      todos: { fields: { ownerId: { type: 'string' }, title: { type: 'string', maxLength: 20 }, done: { type: 'boolean' }, points: { type: 'number', optional: true }, due: { type: 'datetime', optional: true } } },
      cards: { fields: { workspaceId: { type: 'string' }, title: { type: 'string' } }, indexes: { byWorkspace: ['workspaceId'] } },
    },
  },
  budgets: { liveConnections: 2 },
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Ctx = any;
const definition = defineServer({
  queries: {
    'todos.list': query({ input: {}, handler: async (ctx: Ctx) => (await ctx.db.table('todos').all()).map((t: { title: string }) => t.title) }),
  },
  mutations: {
    'todos.add': mutation({ input: { title: 'string' }, handler: async (ctx: Ctx, input: { title: string }) => (await ctx.db.table('todos').insert({ title: input.title, done: false })).id }),
    'cards.add': mutation({ input: { workspaceId: 'string', title: 'string' }, handler: async (ctx: Ctx, input: { workspaceId: string; title: string }) => (await ctx.db.table('cards').insert(input)).id }),
  },
  authPolicies: { todos: ownedTable(), cards: workspaceTable() },
} as never);

const as = (persona: PersonaName) => personaAuth(MANIFEST.name, persona, `session-${persona}`);

async function app() {
  const rt = new AppRuntime({ manifest: MANIFEST, definition, driver: factory(), clock: testClock() });
  const added = await rt.call(as('alice'), 'mutation', 'todos.add', { title: 'milk' });
  expect(added.status).toBe(200);
  return { rt, id: added.result as string };
}

const rowsOf = async (rt: AppRuntime, persona: PersonaName = 'alice') => (await rt.call(as(persona), 'query', 'todos.list', {})).result;

describe('an owner edits a row as a persona', () => {
  it('the row’s owner changes it: the fields given, typed values, updatedAt moves, and it says what it wrote', async () => {
    const { rt, id } = await app();
    const due = new Date('2026-12-01T10:00:00Z');
    const outcome = await rt.updateRow(as('alice'), 'todos', id, { title: 'oat milk', done: true, points: 3, due });
    expect(outcome.status).toBe(200);
    expect(outcome.wrote).toEqual({ tables: ['todos'], storage: false });
    expect(outcome.result).toMatchObject({ id, title: 'oat milk', done: true, points: 3, due });
    expect(await rowsOf(rt)).toEqual(['oat milk']);
    // null takes an optional field's value away.
    expect((await rt.updateRow(as('alice'), 'todos', id, { points: null })).result).not.toHaveProperty('points');
  });

  it('another persona cannot reach the row through the ownedTable policy: Record not found, nothing changes', async () => {
    const { rt, id } = await app();
    for (const persona of ['bob', 'guest'] as const) {
      const outcome = await rt.updateRow(as(persona), 'todos', id, { title: 'stolen' });
      expect(outcome.status).toBe(400);
      expect(outcome.error).toMatchObject({ code: 'operation_failed', message: `Record not found: todos/${id}` });
      expect(outcome.error?.errorId).toMatch(/\S/);
      expect(outcome.wrote).toEqual({ tables: [], storage: false });
    }
    expect(await rowsOf(rt)).toEqual(['milk']);
  });

  it('values the declaration refuses are refused by the table API, and the whole patch with them', async () => {
    const { rt, id } = await app();
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ title: 'fine', points: 'abc' }, /points/],
      [{ title: 'x'.repeat(21) }, /title/],
      [{ done: 'yes' }, /done/],
      [{ ownerId: 'local:bob:000000000000' }, /ownerId is managed by the ownedTable policy/],
      [{ nope: 1 }, /nope/],
      [{ id: 'other' }, /id/],
    ];
    for (const [patch, message] of cases) {
      const outcome = await rt.updateRow(as('alice'), 'todos', id, patch);
      expect(outcome.status, JSON.stringify(patch)).toBe(400);
      expect(outcome.error?.code).toBe('operation_failed');
      expect(outcome.error?.message).toMatch(message);
    }
    expect(await rowsOf(rt)).toEqual(['milk']);
  });

  it('the workspaceTable policy holds: a row of a workspace the persona is not in is not found, and no row moves into one', async () => {
    const { rt } = await app();
    const team = (await rt.call(as('alice'), 'mutation', 'cards.add', { workspaceId: 'ws-team', title: 'plan' })).result as string;
    const own = (await rt.call(as('alice'), 'mutation', 'cards.add', { workspaceId: 'ws-alice', title: 'mine' })).result as string;
    expect((await rt.updateRow(as('bob'), 'cards', team, { title: 'plan b' })).status).toBe(200);
    const hidden = await rt.updateRow(as('bob'), 'cards', own, { title: 'seen' });
    expect(hidden.error).toMatchObject({ code: 'operation_failed', message: `Record not found: cards/${own}` });
    const moved = await rt.updateRow(as('bob'), 'cards', team, { workspaceId: 'ws-alice' });
    expect([moved.status, moved.error?.code]).toEqual([400, 'operation_failed']);
    const stillInTeam = await rt.updateRow(as('bob'), 'cards', team, { title: 'plan c' });
    expect(stillInTeam.result).toMatchObject({ workspaceId: 'ws-team', title: 'plan c' });
  });

  it('a table the manifest does not declare (the runtime’s own) is refused', async () => {
    const { rt, id } = await app();
    const outcome = await rt.updateRow(as('alice'), '__platform_meta', id, { title: 'x' });
    expect(outcome.error).toMatchObject({ code: 'operation_failed', message: 'There is no table "__platform_meta" in the manifest.' });
  });

  it('a committed edit refreshes live connections holding a query that read the table; a refused one sends nothing', async () => {
    const { rt, id } = await app();
    const response = await rt.fetch(as('alice'), new Request(`http://app.test${LIVE_PATH}`));
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    const next = async () => {
      for (;;) {
        const newline = buffer.indexOf('\n');
        if (newline >= 0) {
          const event = parseLiveEvent(buffer.slice(0, newline));
          buffer = buffer.slice(newline + 1);
          if (event?.kind !== 'ping') return event;
          continue;
        }
        const { done, value } = await reader.read();
        if (done) return undefined;
        buffer += decoder.decode(value, { stream: true });
      }
    };
    const open = await next();
    if (open?.kind !== 'open') throw new Error(JSON.stringify(open));
    const listed = await rt.fetch(as('alice'), new Request('http://app.test/_platform/v0/query/todos.list', { method: 'POST', headers: { [LIVE_CONNECTION_HEADER]: open.connection }, body: '{"input":{}}' }));
    expect(listed.status).toBe(200);
    // Refused (bob cannot see the row): no event. Then alice's edit: the list is invalidated.
    expect((await rt.updateRow(as('bob'), 'todos', id, { title: 'x' })).status).toBe(400);
    expect((await rt.updateRow(as('alice'), 'todos', id, { title: 'bread' })).status).toBe(200);
    expect(await next()).toMatchObject({ kind: 'invalidate', queries: ['todos.list'], tables: ['todos'] });
    await reader.cancel();
  });
});
