/**
 * The control plane's records on disk: SQLite in write-ahead-log mode through better-sqlite3. A records
 * file written by the control plane before (a whole database exported by sql.js) opens as it is, with
 * every record; a change is on disk when it returns (another connection sees it without a close); a
 * transaction that throws leaves nothing; and a second process opening the same file reads the same
 * records.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeSqlDriverFactory } from '../adapters/node/sqljs';
import { Records } from './records';

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

    const records = await Records.open(file);
    expect(records.get('SELECT name FROM builders WHERE id = ?', ['bld_1'])).toEqual({ name: 'alice' });
    expect(records.all('SELECT id, state FROM apps')).toEqual([{ id: 'app_1', state: 'active' }]);
    // The tables added since exist too (the schema is applied over the old file).
    expect(records.all('SELECT count(*) AS n FROM workspaces')).toEqual([{ n: 0 }]);
    expect(records.get('PRAGMA journal_mode')).toEqual({ journal_mode: 'wal' });
    records.close();
  });

  it('has a change on disk when it returns: another connection reads it while the first is still open', async () => {
    const file = join(workDir(), 'records.sqlite');
    const records = await Records.open(file);
    records.run('INSERT INTO builders VALUES (?, ?, ?)', ['bld_2', 'bob', 1]);
    const other = new Database(file, { readonly: true });
    expect(other.prepare('SELECT name FROM builders').all()).toEqual([{ name: 'bob' }]);
    other.close();
    records.close();
  });

  it('keeps nothing of a transaction that throws, and all of one that returns', async () => {
    const records = await Records.open(join(workDir(), 'records.sqlite'));
    expect(() =>
      records.transaction(() => {
        records.run('INSERT INTO builders VALUES (?, ?, ?)', ['bld_3', 'carol', 1]);
        records.transaction(() => records.run('INSERT INTO builders VALUES (?, ?, ?)', ['bld_4', 'dave', 1]));
        throw new Error('stop');
      }),
    ).toThrow('stop');
    expect(records.all('SELECT id FROM builders')).toEqual([]);
    records.transaction(() => {
      records.run('INSERT INTO builders VALUES (?, ?, ?)', ['bld_3', 'carol', 1]);
      records.run('INSERT INTO builders VALUES (?, ?, ?)', ['bld_4', 'dave', 1]);
    });
    expect(records.all('SELECT id FROM builders ORDER BY id')).toEqual([{ id: 'bld_3' }, { id: 'bld_4' }]);
    records.close();
  });

  it('is read by another process while this one holds it open', async () => {
    const file = join(workDir(), 'records.sqlite');
    const records = await Records.open(file);
    records.run('INSERT INTO builders VALUES (?, ?, ?)', ['bld_5', 'erin', 1]);
    const read = spawnSync(process.execPath, ['-e', `const D = require('better-sqlite3'); const d = new D(${JSON.stringify(file)}); process.stdout.write(JSON.stringify(d.prepare('SELECT name FROM builders').all()));`], { encoding: 'utf8' });
    expect(read.status).toBe(0);
    expect(JSON.parse(read.stdout)).toEqual([{ name: 'erin' }]);
    records.close();
  });
});
