import { describe, expect, it } from 'vitest';
import { nodeSqlDriverFactory } from '../../adapters/node/sqljs';
import { JournalingDriver, replayJournal, type JournalBatch, type SqlDriver } from '../../core/runtime';
import { DurableLog, MemoryCommitStore, journalEntry, loadCommitted, type CommitStore, type CommittedState } from './durable-log';

const factory = await nodeSqlDriverFactory();

/** A database whose every commit is journaled: `counter` is bumped, so a batch applied twice shows. */
function liveDatabase() {
  const inner = factory();
  const db = new JournalingDriver(inner);
  db.exec('CREATE TABLE items (id INTEGER PRIMARY KEY, label TEXT NOT NULL, data BLOB)');
  db.exec('CREATE TABLE counter (n INTEGER NOT NULL)');
  db.exec('INSERT INTO counter VALUES (0)');
  let i = 0;
  return {
    inner,
    schema: db.take(),
    /** One call's commit: an insert, an update of an earlier row, the counter bumped. */
    commit(): JournalBatch {
      const n = ++i;
      db.transactionSync(() => {
        db.exec('INSERT INTO items (label, data) VALUES (?, ?)', [`item ${n}`, new Uint8Array([n, n + 1])]);
        db.exec('UPDATE items SET label = label || ? WHERE id = ?', ['!', Math.max(1, n - 2)]);
        db.exec('UPDATE counter SET n = n + 1');
      });
      return db.take();
    },
  };
}

function contents(driver: SqlDriver) {
  return { items: driver.all('SELECT * FROM items ORDER BY id'), counter: driver.all('SELECT n FROM counter') };
}

/** What a reload opens from `store`: the checkpoint with the journal replayed. */
async function reload(store: CommitStore, schema: JournalBatch): Promise<{ db: SqlDriver; state: CommittedState & { through: number } }> {
  const state = await loadCommitted(store);
  const db = state.checkpoint ? factory(state.checkpoint) : factory();
  if (!state.checkpoint) replayJournal(db, [schema]);
  replayJournal(db, state.journal);
  return { db, state };
}

describe('DurableLog: a checkpoint and the journal after it', () => {
  it('replays the journal after the checkpoint, in order, to the database as it was', async () => {
    const live = liveDatabase();
    const store = new MemoryCommitStore();
    const log = new DurableLog(store);
    for (let i = 0; i < 5; i++) await log.append(live.commit());
    await log.checkpoint(live.inner.export!());
    for (let i = 0; i < 4; i++) await log.append(live.commit());
    const { db, state } = await reload(store, live.schema);
    expect(state.through).toBe(5);
    expect(state.journal).toHaveLength(4);
    expect([...store.entries.keys()]).toEqual([6, 7, 8, 9]);
    expect(contents(db)).toEqual(contents(live.inner));
    // A log opened on what was loaded goes on numbering after it.
    const again = new DurableLog(store, state);
    expect(again.lastSequence).toBe(9);
  });

  it('a crash while the checkpoint is being written (after appends) keeps every answered commit', async () => {
    const live = liveDatabase();
    const store = new MemoryCommitStore();
    const log = new DurableLog(store);
    for (let i = 0; i < 3; i++) await log.append(live.commit());
    let release!: () => void;
    store.hold = new Promise<void>((resolve) => (release = resolve));
    const checkpointing = log.checkpoint(live.inner.export!());
    // The page dies now: the checkpoint never landed.
    const crashed = store.snapshot();
    const { db, state } = await reload(crashed, live.schema);
    expect(state.checkpoint).toBeUndefined();
    expect(state.journal).toHaveLength(3);
    expect(contents(db)).toEqual(contents(live.inner));
    release();
    store.hold = undefined;
    await checkpointing;
    expect(store.entries.size).toBe(0);
  });

  it('a crash between the checkpoint and the truncation skips the entries the checkpoint holds (none applied twice)', async () => {
    const live = liveDatabase();
    const base = new MemoryCommitStore();
    let crashed: MemoryCommitStore | undefined;
    // The truncation never runs: the page dies just after the checkpoint landed.
    const store: CommitStore = {
      loadCheckpoint: () => base.loadCheckpoint(),
      saveCheckpoint: async (record) => {
        await base.saveCheckpoint(record);
        crashed = base.snapshot();
      },
      append: (entry) => base.append(entry),
      entriesAfter: (after) => base.entriesAfter(after),
      truncateThrough: () => new Promise<void>(() => undefined),
      dropFrom: (from) => base.dropFrom(from),
    };
    const log = new DurableLog(store);
    for (let i = 0; i < 4; i++) await log.append(live.commit());
    void log.checkpoint(live.inner.export!());
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(crashed).toBeDefined();
    expect(crashed!.entries.size).toBe(4);
    const { db, state } = await reload(crashed!, live.schema);
    expect(state.through).toBe(4);
    expect(state.journal).toHaveLength(0);
    expect(contents(db)).toEqual(contents(live.inner));
    expect(contents(db).counter).toEqual([{ n: 4 }]);
  });

  it('a torn last entry, and anything after a gap, is dropped: never answered, never replayed', async () => {
    const live = liveDatabase();
    const store = new MemoryCommitStore();
    const log = new DurableLog(store);
    for (let i = 0; i < 3; i++) await log.append(live.commit());
    const answered = contents(live.inner);
    // Entry 4 written in part: its statements cut short (the check no longer matches).
    const torn = journalEntry(4, live.commit());
    store.entries.set(4, { ...torn, batch: torn.batch.slice(0, 1) });
    // And an entry after it, which must not be replayed past the hole either.
    store.entries.set(5, journalEntry(5, live.commit()));
    const { db, state } = await reload(store, live.schema);
    expect(state.journal).toHaveLength(3);
    expect(contents(db)).toEqual(answered);
    expect([...store.entries.keys()].sort()).toEqual([1, 2, 3]);
    // A gap (entry 2 missing) stops the replay at 1.
    store.entries.delete(2);
    expect((await loadCommitted(store)).journal).toHaveLength(1);
    // An entry of the wrong shape stops it too.
    store.entries.set(1, { seq: 1, batch: 'nonsense', check: 'x' } as never);
    expect((await loadCommitted(store)).journal).toHaveLength(0);
  });

  it('at every moment of a run of appends and checkpoints, a reload holds exactly what was answered', async () => {
    const live = liveDatabase();
    const store = new MemoryCommitStore();
    /**
     * What a reload would read as each write landed, and how many commits were answered by then: an
     * append that landed is answered (its answer goes next), so that is the highest sequence stored
     * (entries are deleted only once a checkpoint holds them).
     */
    const moments: Array<{ store: MemoryCommitStore; answered: number }> = [];
    store.afterWrite = () => moments.push({ store: store.snapshot(), answered: Math.max(store.checkpoint?.through ?? 0, ...store.entries.keys()) });
    const expected: Array<ReturnType<typeof contents>> = [contents(live.inner)];
    const log = new DurableLog(store);
    const background: Promise<void>[] = [];
    for (let i = 1; i <= 24; i++) {
      await log.append(live.commit());
      expected.push(contents(live.inner));
      // Checkpoints now and then, not awaited (as the page does), several overlapping.
      if (i % 5 === 0 || i % 7 === 0) background.push(log.checkpoint(live.inner.export!()));
    }
    await Promise.all(background);
    await log.settled();
    expect(moments.length).toBeGreaterThan(30);
    for (const moment of moments) {
      const { db } = await reload(moment.store, live.schema);
      expect(contents(db)).toEqual(expected[moment.answered]);
    }
    // Once settled, the journal holds only what came after the last checkpoint.
    expect((await loadCommitted(store)).journal.length).toBeLessThan(5);
  });
});
