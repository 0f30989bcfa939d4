/**
 * `platform import` and `platform export` of the todo app's state with 10k and 1M rows against a real
 * `platform dev` (`npx tsx bench/run.ts transfer`): time, and the peak resident memory of the CLI
 * process and of the engine (workerd) during each, read from /proc. Memory must stay flat: the
 * 1M/10k ratio near 1. Baseline in the same run: copying the same file with Node's streams (`cp`-like).
 * BENCH_TRANSFER_ROWS=10000,100000 runs other sizes while developing.
 */
import { spawn } from 'node:child_process';
import { cpSync, createReadStream, createWriteStream, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { DevProcess } from '../src/testing/dev-process';
import { writeStateDocument } from '../src/cli/generated-state';
import type { Row } from './stats';

const TEMPLATE = join(import.meta.dirname, '../templates/todo');
const CLI = join(import.meta.dirname, '../bin/platform.mjs');

/** VmHWM (peak resident set) of a process, in bytes; 0 once it is gone. */
function peak(pid: number): number {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/**
 * Anonymous resident memory (RssAnon): what a process holds itself. VmRSS would also count the
 * database file's pages the engine's SQLite has read, which the kernel reclaims at will.
 */
function rss(pid: number): number {
  try {
    const match = /RssAnon:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** The workerd processes of a project's dev server. */
function engines(root: string): number[] {
  const out: number[] = [];
  for (const entry of readdirNumbers('/proc')) {
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(join(root, '.platform/engines/dev'))) out.push(entry);
    } catch {
      // Gone meanwhile.
    }
  }
  return out;
}

function readdirNumbers(path: string): number[] {
  return readdirSync(path).filter((name) => /^\d+$/.test(name)).map(Number);
}

/** Runs the CLI as a process; its time, and the peak RSS of it and of the engine while it ran (polled every 20 ms). */
async function run(root: string, cwd: string, args: string[]): Promise<{ ms: number; cli: number; engine: number }> {
  const started = performance.now();
  const child = spawn(process.execPath, [CLI, ...args, '--dir', root, '--json'], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  let cliPeak = 0;
  let enginePeak = 0;
  const poll = setInterval(() => {
    cliPeak = Math.max(cliPeak, peak(child.pid!));
    for (const pid of engines(root)) enginePeak = Math.max(enginePeak, rss(pid));
  }, 20);
  const code = await new Promise<number>((done) => child.on('exit', (c) => done(c ?? 1)));
  clearInterval(poll);
  const ms = performance.now() - started;
  if (code !== 0) throw new Error(`platform ${args.join(' ')} failed: ${out.slice(0, 2000)}`);
  return { ms, cli: cliPeak, engine: enginePeak };
}

export async function transferRows(): Promise<Row[]> {
  const sizes = (process.env.BENCH_TRANSFER_ROWS ?? '10000,1000000').split(',').map(Number);
  const rows: Row[] = [];
  const measured: Record<number, { importMs: number; exportMs: number; copyMs: number; cli: number; engine: number }> = {};
  for (const size of sizes) {
    const root = mkdtempSync(join(tmpdir(), 'platform-bench-transfer-'));
    // The files go beside the project, not in it: the dev server watches the project's files.
    const files = mkdtempSync(join(tmpdir(), 'platform-bench-transfer-files-'));
    cpSync(TEMPLATE, root, { recursive: true });
    const dev = new DevProcess(['dev', '--json', '--port', '0'], root);
    try {
      await dev.kind('preview.ready');
      const bytes = writeStateDocument(join(files, 'in.json'), root, { rows: size, exportedAt: new Date().toISOString() });
      // Baseline: the same bytes copied with Node's streams.
      const copyStart = performance.now();
      await pipeline(createReadStream(join(files, 'in.json')), createWriteStream(join(files, 'copy.json')));
      const copyMs = performance.now() - copyStart;
      const imported = await run(root, files, ['import', 'in.json', '--state', 'dev']);
      const exported = await run(root, files, ['export', '--state', 'dev', '--out', 'out.json']);
      const reimported = await run(root, files, ['import', 'out.json', '--state', 'dev']);
      measured[size] = { importMs: reimported.ms, exportMs: exported.ms, copyMs, cli: Math.max(imported.cli, exported.cli, reimported.cli), engine: Math.max(imported.engine, exported.engine, reimported.engine) };
      const label = size >= 1_000_000 ? `${size / 1_000_000}M` : `${size / 1000}k`;
      rows.push(
        { name: `${label} rows (${(bytes / 1e6).toFixed(0)} MB file): platform import`, value: imported.ms, unit: 'ms' },
        { name: `${label} rows: platform export --out`, value: exported.ms, unit: 'ms' },
        { name: `${label} rows: platform import of the export (re-import)`, value: reimported.ms, unit: 'ms' },
        { name: `${label} rows: baseline, a stream copy of the file`, value: copyMs, unit: 'ms' },
        { name: `${label} rows: export / stream copy`, value: exported.ms / copyMs, unit: 'x' },
        { name: `${label} rows: peak RSS of the CLI (import, export, re-import)`, value: measured[size]!.cli, unit: 'bytes' },
        { name: `${label} rows: peak anonymous RSS of the engine (workerd)`, value: measured[size]!.engine, unit: 'bytes' },
        { name: `${label} rows:   the engine during the import`, value: imported.engine, unit: 'bytes' },
        { name: `${label} rows:   the engine during the export`, value: exported.engine, unit: 'bytes' },
        { name: `${label} rows:   the engine during the re-import`, value: reimported.engine, unit: 'bytes' },
        { name: `${label} rows:   the CLI during the import`, value: imported.cli, unit: 'bytes' },
        { name: `${label} rows:   the CLI during the export`, value: exported.cli, unit: 'bytes' },
        { name: `${label} rows:   the CLI during the re-import`, value: reimported.cli, unit: 'bytes' },
      );
    } finally {
      await dev.stop();
      rmSync(root, { recursive: true, force: true });
      rmSync(files, { recursive: true, force: true });
    }
  }
  if (sizes.length >= 2) {
    const small = measured[sizes[0]!]!;
    const large = measured[sizes.at(-1)!]!;
    rows.push(
      { name: `CLI peak RSS ${sizes.at(-1)}/${sizes[0]} rows (goal: flat, near 1)`, value: large.cli / small.cli, unit: 'x' },
      { name: `engine peak anonymous RSS ${sizes.at(-1)}/${sizes[0]} rows (goal: flat, near 1)`, value: large.engine / small.engine, unit: 'x' },
      { name: `export time per row ${sizes.at(-1)}/${sizes[0]} (goal: linear, near 1)`, value: large.exportMs / sizes.at(-1)! / (small.exportMs / sizes[0]!), unit: 'x' },
    );
  }
  return rows;
}
