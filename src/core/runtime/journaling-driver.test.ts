import { describe, expect, it } from 'vitest';
import { nodeSqlDriverFactory } from '../../adapters/node/sqljs';
import type { Manifest } from '../manifest';
import { defineServer, mutation, query } from '../../modules/server';
import { JournalingDriver, isReadOnlyStatement, replayJournal, type JournalBatch } from './journaling-driver';
import { personaAuth } from './personas';
import { AppRuntime } from './runtime';
import type { SqlDriver } from './sql-driver';

const factory = await nodeSqlDriverFactory();

const MANIFEST: Manifest = {
  format: 'platform.application-source.v0',
  name: 'journal-app',
  entrypoints: { client: 'src/client/main.tsx', server: 'src/server/index.ts' },
  capabilities: ['database', 'storage'],
  database: { tables: { notes: { fields: { text: { type: 'string' }, done: { type: 'boolean' } }, indexes: { byText: ['text'] } } } },
  storage: {},
};

const definition = defineServer({
  queries: { 'notes.list': query({ input: {}, handler: async (ctx) => (await ctx.db.table('notes').all()).map((n) => n.text) }) },
  mutations: {
    'notes.add': mutation({ input: { text: 'string' }, handler: async (ctx, input) => ({ id: (await ctx.db.table('notes').insert({ text: input.text, done: false })).id }) }),
    'notes.done': mutation({ input: { id: 'string' }, handler: async (ctx, input) => void (await ctx.db.table('notes').update(input.id, { done: true })) }),
    'notes.remove': mutation({ input: { id: 'string' }, handler: async (ctx, input) => void (await ctx.db.table('notes').delete(input.id)) }),
    'notes.addThenThrow': mutation({
      input: { text: 'string' },
      handler: async (ctx, input) => {
        await ctx.db.table('notes').insert({ text: input.text, done: false });
        throw new Error('refused after writing');
      },
    }),
    'files.put': mutation({ input: { key: 'string', body: 'string' }, handler: async (ctx, input) => void (await ctx.storage.put(input.key, input.body)) }),
  },
});

const alice = personaAuth('journal-app', 'alice', 's1');

/** Every table's rows, in a fixed order: two databases hold the same data when these are equal. */
function contents(driver: SqlDriver): Record<string, unknown[]> {
  const tables = driver.all("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").map((r) => String(r.name));
  return Object.fromEntries(tables.map((t) => [t, driver.all(`SELECT * FROM "${t}" ORDER BY rowid`)]));
}

function runtimeOver(driver: SqlDriver): AppRuntime {
  return new AppRuntime({ manifest: MANIFEST, definition, driver });
}

describe('JournalingDriver: what a call committed, replayed on a checkpoint, is the database', () => {
  it('keeps writes, not reads, and only what committed (a call that threw keeps nothing)', async () => {
    const journal = new JournalingDriver(factory());
    const app = runtimeOver(journal);
    journal.discard();
    await app.call(alice, 'query', 'notes.list', {});
    expect(journal.take()).toEqual([]);
    const failed = await app.call(alice, 'mutation', 'notes.addThenThrow', { text: 'lost' });
    expect(failed.status).not.toBe(200);
    expect(journal.take()).toEqual([]);
    await app.call(alice, 'mutation', 'notes.add', { text: 'kept' });
    const taken = journal.take();
    expect(taken.length).toBeGreaterThan(0);
    expect(taken.every(([sql]) => !isReadOnlyStatement(sql))).toBe(true);
  });

  it('a checkpoint plus the batches after it, replayed in order, is the database row for row (rows and objects)', async () => {
    const live = factory();
    const journal = new JournalingDriver(live);
    const app = runtimeOver(journal);
    const batches: JournalBatch[] = [journal.take()]; // the schema it created
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      ids.push(((await app.call(alice, 'mutation', 'notes.add', { text: `n${i}` })).result as { id: string }).id);
      batches.push(journal.take());
    }
    const checkpoint = live.export!();
    const through = batches.length;
    await app.call(alice, 'mutation', 'notes.done', { id: ids[1]! });
    batches.push(journal.take());
    await app.call(alice, 'mutation', 'notes.remove', { id: ids[2]! });
    batches.push(journal.take());
    await app.call(alice, 'mutation', 'files.put', { key: 'a/b.txt', body: 'bytes' });
    batches.push(journal.take());
    await app.call(alice, 'mutation', 'notes.add', { text: 'after' });
    batches.push(journal.take());

    // From the checkpoint.
    const restored = factory(checkpoint);
    replayJournal(restored, batches.slice(through));
    expect(contents(restored)).toEqual(contents(live));
    // From nothing: the whole journal, the schema first.
    const fromEmpty = factory();
    replayJournal(fromEmpty, batches);
    expect(contents(fromEmpty)).toEqual(contents(live));
    // The runtime opens the replayed database as its own (same schema, same rows).
    const reopened = runtimeOver(fromEmpty);
    expect(reopened.schemaChange).toBe('unchanged');
    expect((await reopened.call(alice, 'query', 'notes.list', {})).result).toEqual(['n0', 'n1', 'n3', 'n4', 'n5', 'after']);
  });

  it('replayed out of order, the same batches give another database (order is the contract)', async () => {
    const live = factory();
    const journal = new JournalingDriver(live);
    const app = runtimeOver(journal);
    const schema = journal.take();
    const { id } = (await app.call(alice, 'mutation', 'notes.add', { text: 'x' })).result as { id: string };
    const add = journal.take();
    await app.call(alice, 'mutation', 'notes.remove', { id });
    const remove = journal.take();
    const swapped = factory();
    replayJournal(swapped, [schema, remove, add]);
    expect(contents(swapped)).not.toEqual(contents(live));
  });

  it('tells reads from writes', () => {
    expect(isReadOnlyStatement('SELECT 1')).toBe(true);
    expect(isReadOnlyStatement('  /* c */ select * from t')).toBe(true);
    expect(isReadOnlyStatement('PRAGMA table_info("t")')).toBe(true);
    expect(isReadOnlyStatement('PRAGMA user_version = 3')).toBe(false);
    expect(isReadOnlyStatement('INSERT INTO t VALUES (1)')).toBe(false);
    expect(isReadOnlyStatement('WITH x AS (SELECT 1) DELETE FROM t')).toBe(false);
  });
});
