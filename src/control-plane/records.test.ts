/**
 * The control plane's records, in both engines. On disk: SQLite in write-ahead-log mode through
 * better-sqlite3. A records file written by the control plane before (a whole database exported by
 * sql.js) opens as it is, with every record; a change is on disk when it returns (another connection
 * sees it without a close); a transaction that throws leaves nothing; and a second process opening the
 * same file reads the same records. In PostgreSQL (a real server, src/testing/postgres.ts): the same SQL
 * gives the same rows, transactions run one at a time across connections, another process's change is
 * told, and a SQLite records file is copied in on the first start only.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeSqlDriverFactory } from '../adapters/node/sqljs';
import { appRecords } from './app-records';
import { copyRecords, openRecords, type Records } from './records';
import { testDatabase } from '../testing/postgres';

const dirs: string[] = [];
function workDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'platform-records-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('the records file', () => {
  it('opens a file the sql.js records wrote before, keeping every record, and turns it to WAL mode', async () => {
    const file = join(workDir(), 'records.sqlite');
    const old = (await nodeSqlDriverFactory())();
    old.exec('CREATE TABLE builders (id TEXT PRIMARY KEY, name TEXT NOT NULL UNIQUE, createdAt INTEGER NOT NULL)');
    old.exec('CREATE TABLE apps (id TEXT PRIMARY KEY, name TEXT NOT NULL, ownerId TEXT NOT NULL, state TEXT NOT NULL, createdAt INTEGER NOT NULL, deletedAt INTEGER, teardown TEXT)');
    old.exec('INSERT INTO builders VALUES (?, ?, ?)', ['bld_1', 'alice', 1700000000000]);
    old.exec('INSERT INTO apps (id, name, ownerId, state, createdAt) VALUES (?, ?, ?, ?, ?)', ['app_1', 'notes', 'bld_1', 'active', 1700000000001]);
    writeFileSync(file, old.export());
    old.close();

    const records = await openRecords({ file });
    expect(await records.get('SELECT name FROM builders WHERE id = ?', ['bld_1'])).toEqual({ name: 'alice' });
    expect(await records.all('SELECT id, state FROM apps')).toEqual([{ id: 'app_1', state: 'active' }]);
    // The tables added since exist too (the schema is applied over the old file).
    expect(await records.all('SELECT count(*) AS n FROM workspaces')).toEqual([{ n: 0 }]);
    expect(await records.get('PRAGMA journal_mode')).toEqual({ journal_mode: 'wal' });
    // Columns added since are added to its tables as the control plane starts (the app's hosting node).
    expect(await records.columns('apps')).not.toContain('node');
    await appRecords(records).apps.ensureColumns();
    expect(await records.get('SELECT id, node FROM apps')).toEqual({ id: 'app_1', node: null });
    await records.close();
  });

  it('has a change on disk when it returns: another connection reads it while the first is still open', async () => {
    const file = join(workDir(), 'records.sqlite');
    const records = await openRecords({ file });
    await records.run('INSERT INTO builders (id, name, createdAt) VALUES (?, ?, ?)', ['bld_2', 'bob', 1]);
    const other = new Database(file, { readonly: true });
    expect(other.prepare('SELECT name FROM builders').all()).toEqual([{ name: 'bob' }]);
    other.close();
    await records.close();
  });

  it('is read by another process while this one holds it open', async () => {
    const file = join(workDir(), 'records.sqlite');
    const records = await openRecords({ file });
    await records.run('INSERT INTO builders (id, name, createdAt) VALUES (?, ?, ?)', ['bld_5', 'erin', 1]);
    const read = spawnSync(process.execPath, ['-e', `const D = require('better-sqlite3'); const d = new D(${JSON.stringify(file)}); process.stdout.write(JSON.stringify(d.prepare('SELECT name FROM builders').all()));`], { encoding: 'utf8' });
    expect(read.status).toBe(0);
    expect(JSON.parse(read.stdout)).toEqual([{ name: 'erin' }]);
    await records.close();
  });
});

const database = await testDatabase();
/** Each engine opens new records, and a second connection to the last ones (SQLite: the same records). */
let lastUrl = '';
const engines: { name: string; open: () => Promise<Records>; another?: () => Promise<Records>; skip?: string }[] = [
  { name: 'SQLite', open: () => openRecords({ file: join(workDir(), 'records.sqlite') }) },
  {
    name: 'PostgreSQL',
    ...('skip' in database ? { skip: database.skip } : {}),
    // Each test its own database: a fresh schema, nothing left from another test.
    open: async () => {
      const fresh = await testDatabase();
      if ('skip' in fresh) throw new Error(fresh.skip);
      lastUrl = fresh.url;
      return openRecords({ databaseUrl: fresh.url });
    },
    another: () => openRecords({ databaseUrl: lastUrl }),
  },
];

for (const engine of engines) {
  describe.skipIf(engine.skip !== undefined)(`the records in ${engine.name}${engine.skip ? ` (skipped: ${engine.skip})` : ''}`, () => {
    const opened: Records[] = [];
    const open = async () => {
      const records = await engine.open();
      opened.push(records);
      return records;
    };
    afterEach(async () => {
      for (const records of opened.splice(0)) await records.close().catch(() => {});
    });

    it('gives rows with their columns named as written, counts as numbers, and rows in the order they were made', async () => {
      const records = await open();
      for (const [id, name] of [['bld_b', 'bea'], ['bld_a', 'ann'], ['bld_c', 'cy']]) await records.run('INSERT INTO builders (id, name, createdAt) VALUES (?, ?, ?)', [id!, name!, 1_700_000_000_000]);
      expect(await records.get('SELECT id, name, createdAt FROM builders WHERE id = ?', ['bld_a'])).toEqual({ id: 'bld_a', name: 'ann', createdAt: 1_700_000_000_000 });
      expect(await records.all('SELECT * FROM builders WHERE name = ?', ['cy'])).toEqual([{ id: 'bld_c', name: 'cy', createdAt: 1_700_000_000_000 }]);
      expect(await records.get('SELECT count(*) AS n FROM builders')).toEqual({ n: 3 });
      expect((await records.all('SELECT id FROM builders ORDER BY createdAt, rowid')).map((row) => row.id)).toEqual(['bld_b', 'bld_a', 'bld_c']);
      expect(await records.get('SELECT id FROM builders WHERE id = ?', ['nobody'])).toBeUndefined();
      expect(await records.columns('builders')).toEqual(['id', 'name', 'createdAt']);
    });

    it('takes the shared dialect: ON CONFLICT, IS NOT DISTINCT FROM, a quoted question mark', async () => {
      const records = await open();
      await records.run('INSERT INTO blob_owners (builderId, sha256) VALUES (?, ?) ON CONFLICT DO NOTHING', ['bld_1', 'aa']);
      await records.run('INSERT INTO blob_owners (builderId, sha256) VALUES (?, ?) ON CONFLICT DO NOTHING', ['bld_1', 'aa']);
      expect(await records.get('SELECT count(*) AS n FROM blob_owners')).toEqual({ n: 1 });
      await records.run("INSERT INTO env_values (appId, scope, name, sealed, updatedAt) VALUES (?, ?, ?, ?, ?) ON CONFLICT (appId, scope, name) DO UPDATE SET sealed = excluded.sealed", ['app_1', 'preview', 'KEY', 'one', 1]);
      await records.run("INSERT INTO env_values (appId, scope, name, sealed, updatedAt) VALUES (?, ?, ?, ?, ?) ON CONFLICT (appId, scope, name) DO UPDATE SET sealed = excluded.sealed", ['app_1', 'preview', 'KEY', 'two?', 2]);
      expect(await records.get("SELECT sealed FROM env_values WHERE name = 'KEY' AND sealed != 'why?'")).toEqual({ sealed: 'two?' });
      await records.run('INSERT INTO devices (deviceHash, userCode, createdAt, expiresAt, state) VALUES (?, ?, ?, ?, ?)', ['d1', 'ABCD-EFGH', 1, 2, 'pending']);
      expect(await records.get('SELECT deviceHash FROM devices WHERE builderId IS NOT DISTINCT FROM ?', [null])).toEqual({ deviceHash: 'd1' });
    });

    it('keeps nothing of a transaction that throws, and all of one that returns; one inside another joins it', async () => {
      const records = await open();
      await expect(
        records.transaction(async () => {
          await records.run('INSERT INTO builders (id, name, createdAt) VALUES (?, ?, ?)', ['bld_3', 'carol', 1]);
          await records.transaction(() => records.run('INSERT INTO builders (id, name, createdAt) VALUES (?, ?, ?)', ['bld_4', 'dave', 1]));
          throw new Error('stop');
        }),
      ).rejects.toThrow('stop');
      expect(await records.all('SELECT id FROM builders')).toEqual([]);
      await records.transaction(async () => {
        await records.run('INSERT INTO builders (id, name, createdAt) VALUES (?, ?, ?)', ['bld_3', 'carol', 1]);
        await records.run('INSERT INTO builders (id, name, createdAt) VALUES (?, ?, ?)', ['bld_4', 'dave', 1]);
      });
      expect(await records.all('SELECT id FROM builders ORDER BY id')).toEqual([{ id: 'bld_3' }, { id: 'bld_4' }]);
    });

    it('runs transactions one at a time: reads and the writes they decide are not raced, and a write from outside waits', async () => {
      const records = await open();
      const second = engine.another ? await engine.another() : records;
      if (second !== records) opened.push(second);
      // Twenty read-then-write increments at once, over two connections (PostgreSQL) or one: none lost.
      await records.run("INSERT INTO stores (appId, environment, state) VALUES ('app_n', 'preview', '0')");
      const increment = (target: Records) =>
        target.transaction(async () => {
          const now = Number((await target.get("SELECT state FROM stores WHERE appId = 'app_n'"))!.state);
          await new Promise((resolve) => setTimeout(resolve, 2));
          await target.run("UPDATE stores SET state = ? WHERE appId = 'app_n'", [String(now + 1)]);
        });
      await Promise.all(Array.from({ length: 20 }, (_, i) => increment(i % 2 ? records : second)));
      expect(await records.get("SELECT state FROM stores WHERE appId = 'app_n'")).toEqual({ state: '20' });
      // A write from outside an open transaction is not part of it: the rollback keeps it.
      let release!: () => void;
      const held = records.transaction(async () => {
        await records.run('INSERT INTO builders (id, name, createdAt) VALUES (?, ?, ?)', ['bld_in', 'inside', 1]);
        await new Promise<void>((resolve) => (release = resolve));
        throw new Error('rolled back');
      });
      await new Promise((resolve) => setTimeout(resolve, 20));
      const outside = records.run('INSERT INTO builders (id, name, createdAt) VALUES (?, ?, ?)', ['bld_out', 'outside', 1]);
      release();
      await expect(held).rejects.toThrow('rolled back');
      await outside;
      expect(await records.all('SELECT id FROM builders')).toEqual([{ id: 'bld_out' }]);
    });

    it('tells of every change: a run, a transaction (also one that failed), and a statement that failed', async () => {
      const records = await open();
      let told = 0;
      records.onChange(() => told++);
      await records.run("INSERT INTO apps (id, name, ownerId, state, createdAt) VALUES ('app_a', 'a', 'bld_x', 'active', 0)");
      expect(told).toBeGreaterThanOrEqual(1);
      told = 0;
      await records.transaction(() => records.run("UPDATE apps SET state = 'disabled'"));
      expect(told).toBeGreaterThanOrEqual(1);
      told = 0;
      await expect(records.run('INSERT INTO nowhere VALUES (1)')).rejects.toThrow();
      expect(told).toBeGreaterThanOrEqual(1);
    });
  });
}

describe.skipIf('skip' in database)(`the records shared in PostgreSQL${'skip' in database ? ` (skipped: ${database.skip})` : ''}`, () => {
  it("tells one control plane's records of another's change", async () => {
    const fresh = await testDatabase();
    if ('skip' in fresh) return;
    const [one, two] = [await openRecords({ databaseUrl: fresh.url }), await openRecords({ databaseUrl: fresh.url })];
    try {
      let told = 0;
      two.onChange(() => told++);
      await one.run("INSERT INTO apps (id, name, ownerId, state, createdAt) VALUES ('app_a', 'a', 'bld_x', 'active', 0)");
      for (let i = 0; i < 100 && told === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(told).toBeGreaterThan(0);
      expect(await two.get("SELECT state FROM apps WHERE id = 'app_a'")).toEqual({ state: 'active' });
      // The listening connection ended by the server: it is made again, and then told of changes again.
      await one.run("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = 'LISTEN platform_records_changed' AND datname = current_database()");
      await new Promise((resolve) => setTimeout(resolve, 1500));
      for (let i = 0; i < 100; i++) {
        told = 0;
        await one.run("UPDATE apps SET state = 'disabled' WHERE id = 'app_a'");
        await new Promise((resolve) => setTimeout(resolve, 50));
        if (told > 0) break;
      }
      expect(told).toBeGreaterThan(0);
    } finally {
      await one.close();
      await two.close();
    }
  });

  it('copies a SQLite records file in on the first start, and never again', async () => {
    const fresh = await testDatabase();
    if ('skip' in fresh) return;
    const file = join(workDir(), 'records.sqlite');
    const old = await openRecords({ file });
    await old.run('INSERT INTO builders (id, name, createdAt) VALUES (?, ?, ?)', ['bld_1', 'alice', 1_700_000_000_000]);
    await old.run("INSERT INTO apps (id, name, ownerId, state, createdAt) VALUES ('app_1', 'notes', 'bld_1', 'active', 1700000000001)");
    await old.run('INSERT INTO deployments (id, appId, builderId, environment, artifactId, kind, state, createdAt) VALUES (?, ?, ?, ?, ?, ?, ?, ?)', ['dep_2', 'app_1', 'bld_1', 'preview', 'sha256:x', 'deploy', 'completed', 5]);
    await old.run('INSERT INTO deployments (id, appId, builderId, environment, artifactId, kind, state, createdAt) VALUES (?, ?, ?, ?, ?, ?, ?, ?)', ['dep_1', 'app_1', 'bld_1', 'preview', 'sha256:y', 'deploy', 'completed', 5]);
    await old.close();
    const moved = await openRecords({ file, databaseUrl: fresh.url });
    expect(await moved.get('SELECT name, createdAt FROM builders WHERE id = ?', ['bld_1'])).toEqual({ name: 'alice', createdAt: 1_700_000_000_000 });
    expect(await moved.all('SELECT id, state FROM apps')).toEqual([{ id: 'app_1', state: 'active' }]);
    // Made in the same millisecond, the deployments keep the order they were made in.
    expect((await moved.all('SELECT id FROM deployments ORDER BY createdAt DESC, rowid DESC')).map((row) => row.id)).toEqual(['dep_1', 'dep_2']);
    await moved.run("UPDATE apps SET state = 'disabled'");
    await moved.close();
    // A second start does not copy the file again over what changed since.
    const again = await openRecords({ file, databaseUrl: fresh.url });
    expect(await again.all('SELECT id, state FROM apps')).toEqual([{ id: 'app_1', state: 'disabled' }]);
    expect(await again.get('SELECT count(*) AS n FROM deployments')).toEqual({ n: 2 });
    await again.close();
    expect(await copyRecords(await openRecords({ file }), await openRecords({}))).toBe(4);
  });
});
