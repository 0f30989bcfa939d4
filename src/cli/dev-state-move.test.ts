/**
 * A dev state from before the pool moves into it: `platform dev` used to run its engine as a workerd
 * process of its own, its data in `.platform/state/dev/platform-app-store/<id>.sqlite`; now the engine is
 * an isolate of a pooled process (pool.ts) whose data is a facet's. The first start after the change
 * serves every row of the old file, keeps the old folder under `.platform/recovery/`, and moves nothing
 * twice. Real CLI processes, real workerd.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { DevProcess } from '../testing/dev-process';

const root = mkdtempSync(join(tmpdir(), 'platform-dev-state-move-'));

afterAll(() => rmSync(root, { recursive: true, force: true }));

async function call(url: string, kind: 'query' | 'mutation', name: string, input: unknown): Promise<any> {
  const response = await fetch(new URL(`/_platform/v0/${kind}/${name}`, url), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ input }) });
  return response.json();
}

/** Every SQLite file under a folder, relative to it. */
const databases = (dir: string): string[] =>
  existsSync(dir) ? readdirSync(dir, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile() && entry.name.endsWith('.sqlite')).map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1)) : [];

/** Runs `platform dev` in the project until it serves; `use` gets its URL; the server is stopped after. */
async function withDev(use: (url: string) => Promise<void>): Promise<void> {
  const dev = new DevProcess(['dev', '--json', '--port', '0'], root);
  try {
    await use(String((await dev.kind('preview.ready')).url));
  } finally {
    expect(await dev.stop()).toBe(0);
  }
}

it('the old layout\'s rows are served after the first start, the old folder is kept in .platform/recovery, and nothing moves twice', async () => {
  cpSync(join(import.meta.dirname, '../../templates/todo'), root, { recursive: true });
  await withDev(async (url) => {
    for (const title of ['milk', 'bread']) expect((await call(url, 'mutation', 'todos.add', { title })).result.id).toBeTruthy();
  });
  // The state as an engine of its own left it: the app's SQLite file alone, in its namespace's folder.
  const state = join(root, '.platform/state/dev');
  const facet = databases(state).filter((path) => path.endsWith('.1.sqlite'));
  expect(facet).toHaveLength(1);
  const old = join(root, 'old-state');
  mkdirSync(join(old, 'platform-app-store'), { recursive: true });
  // With its write-ahead log, if the stop left one: the same name with -wal (and -shm).
  for (const suffix of ['', '-wal', '-shm']) {
    if (existsSync(join(state, `${facet[0]!}${suffix}`))) renameSync(join(state, `${facet[0]!}${suffix}`), join(old, 'platform-app-store', `${'ab'.repeat(32)}.sqlite${suffix}`));
  }
  rmSync(state, { recursive: true });
  renameSync(old, state);

  await withDev(async (url) => {
    expect((await call(url, 'query', 'todos.list', {})).result.map((todo: { title: string }) => todo.title)).toEqual(['milk', 'bread']);
    expect((await call(url, 'mutation', 'todos.add', { title: 'eggs' })).result.id).toBeTruthy();
  });
  expect(existsSync(join(state, 'platform-app-store'))).toBe(false);
  const recovery = readdirSync(join(root, '.platform/recovery'));
  expect(recovery).toEqual([expect.stringMatching(/^dev-before-pool-/)]);
  expect(databases(join(root, '.platform/recovery', recovery[0]!))).toEqual([`${'ab'.repeat(32)}.sqlite`]);

  await withDev(async (url) => {
    expect((await call(url, 'query', 'todos.list', {})).result.map((todo: { title: string }) => todo.title)).toEqual(['milk', 'bread', 'eggs']);
  });
  expect(readdirSync(join(root, '.platform/recovery'))).toEqual(recovery);
}, 120_000);
