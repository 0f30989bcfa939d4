/**
 * The control plane's records (issue 32): one write (a session row, as a sign-in makes) when the records
 * hold 1,000 rows against 1 million (BENCH_RECORDS_SIZES), each a p50 of single autocommitted writes,
 * durable when they return (WAL, synchronous FULL), printed with their ratio. The file is on the same
 * disk as the control plane's data directory would be (the system's temporary folder).
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Records } from '../src/control-plane/records';
import { median, type Row } from './stats';

const SIZES = (process.env.BENCH_RECORDS_SIZES ?? '1000,1000000').split(',').map(Number);
const WRITES = 200;
const FILL_BATCH = 10_000;

async function writeP50(size: number): Promise<{ p50: number; bytes: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'platform-bench-records-'));
  try {
    const file = join(dir, 'records.sqlite');
    const records = await Records.open(file);
    for (let from = 0; from < size; from += FILL_BATCH) {
      records.transaction(() => {
        for (let i = from; i < Math.min(size, from + FILL_BATCH); i++) records.run('INSERT INTO sessions (tokenHash, builderId, createdAt) VALUES (?, ?, ?)', [`fill-${i.toString(16).padStart(12, '0')}-${'x'.repeat(40)}`, `bld_${i % 500}`, i]);
      });
    }
    for (let i = 0; i < 20; i++) records.run('INSERT INTO sessions (tokenHash, builderId, createdAt) VALUES (?, ?, ?)', [`warm-${i}`, 'bld_bench', Date.now()]);
    const times: number[] = [];
    for (let i = 0; i < WRITES; i++) {
      const start = performance.now();
      records.run('INSERT INTO sessions (tokenHash, builderId, createdAt) VALUES (?, ?, ?)', [`bench-${i}-${'y'.repeat(40)}`, 'bld_bench', Date.now()]);
      times.push(performance.now() - start);
    }
    records.close();
    return { p50: median(times), bytes: statSync(file).size };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function recordsRows(): Promise<Row[]> {
  const rows: Row[] = [];
  const results: number[] = [];
  for (const size of SIZES) {
    const { p50, bytes } = await writeP50(size);
    results.push(p50);
    rows.push({ name: `records write with ${size.toLocaleString('en-US')} records (${(bytes / 1e6).toFixed(1)} MB file): p50 of ${WRITES}`, value: p50, unit: 'ms' });
  }
  if (results.length > 1) rows.push({ name: `records write, ${SIZES.at(-1)!.toLocaleString('en-US')} against ${SIZES[0]!.toLocaleString('en-US')} records (goal < 1.5)`, value: results.at(-1)! / results[0]!, unit: 'x' });
  return rows;
}
