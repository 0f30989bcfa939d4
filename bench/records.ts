/**
 * The control plane's records (issue 32): one write (a session row, as a sign-in makes) when the records
 * hold 1,000 rows against 1 million (BENCH_RECORDS_SIZES), each a p50 of single autocommitted writes,
 * durable when they return, printed with their ratio. In both engines: SQLite (WAL, synchronous FULL; the
 * file on the same disk as the control plane's data directory would be, the system's temporary folder)
 * and PostgreSQL (`PLATFORM_TEST_DATABASE_URL`, or a server started from the machine's binaries, as the
 * tests do; skipped, and said so, without one).
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openRecords, type Records } from '../src/control-plane/records';
import { testDatabase } from '../src/testing/postgres';
import { median, type Row } from './stats';

const SIZES = (process.env.BENCH_RECORDS_SIZES ?? '1000,1000000').split(',').map(Number);
const WRITES = 200;
/** Rows a fill statement inserts at once (3 parameters each). */
const FILL_ROWS = 1000;

async function writeP50(records: Records, size: number): Promise<number> {
  for (let from = 0; from < size; from += FILL_ROWS) {
    const rows = Math.min(size, from + FILL_ROWS) - from;
    const params = Array.from({ length: rows }, (_, k) => [`fill-${(from + k).toString(16).padStart(12, '0')}-${'x'.repeat(40)}`, `bld_${(from + k) % 500}`, from + k]).flat();
    await records.run(`INSERT INTO sessions (tokenHash, builderId, createdAt) VALUES ${Array.from({ length: rows }, () => '(?, ?, ?)').join(', ')}`, params);
  }
  for (let i = 0; i < 20; i++) await records.run('INSERT INTO sessions (tokenHash, builderId, createdAt) VALUES (?, ?, ?)', [`warm-${i}`, 'bld_bench', Date.now()]);
  const times: number[] = [];
  for (let i = 0; i < WRITES; i++) {
    const start = performance.now();
    await records.run('INSERT INTO sessions (tokenHash, builderId, createdAt) VALUES (?, ?, ?)', [`bench-${i}-${'y'.repeat(40)}`, 'bld_bench', Date.now()]);
    times.push(performance.now() - start);
  }
  return median(times);
}

async function engineRows(engine: string, open: () => Promise<{ records: Records; size: () => Promise<string>; done: () => void }>): Promise<Row[]> {
  const rows: Row[] = [];
  const results: number[] = [];
  for (const count of SIZES) {
    const { records, size, done } = await open();
    try {
      const p50 = await writeP50(records, count);
      results.push(p50);
      rows.push({ name: `records write (${engine}) with ${count.toLocaleString('en-US')} records (${await size()}): p50 of ${WRITES}`, value: p50, unit: 'ms' });
    } finally {
      await records.close();
      done();
    }
  }
  if (results.length > 1) rows.push({ name: `records write (${engine}), ${SIZES.at(-1)!.toLocaleString('en-US')} against ${SIZES[0]!.toLocaleString('en-US')} records (goal < 1.5)`, value: results.at(-1)! / results[0]!, unit: 'x' });
  return rows;
}

export async function recordsRows(): Promise<Row[]> {
  const rows = await engineRows('SQLite', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'platform-bench-records-'));
    const file = join(dir, 'records.sqlite');
    return { records: await openRecords({ file }), size: async () => `${(statSync(file).size / 1e6).toFixed(1)} MB file`, done: () => rmSync(dir, { recursive: true, force: true }) };
  });
  const probe = await testDatabase();
  if ('skip' in probe) {
    console.log(`records write (PostgreSQL): skipped, ${probe.skip}`);
    return rows;
  }
  return [
    ...rows,
    ...(await engineRows('PostgreSQL', async () => {
      const database = await testDatabase();
      if ('skip' in database) throw new Error(database.skip);
      const records = await openRecords({ databaseUrl: database.url });
      const size = async () => `${(Number((await records.get('SELECT pg_database_size(current_database()) AS n'))?.n ?? 0) / 1e6).toFixed(1)} MB database`;
      return { records, size, done: () => {} };
    })),
  ];
}
