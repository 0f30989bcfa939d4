/** The runtime conformance suites over the Durable Object SQLite driver, inside a real workerd (one engine for the file). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runtimeConformance, storageConformance, tableConformance, queryPlanConformance } from '../../core/runtime/testing';
import { bundleWorkerEntry, WorkerdEngine } from './workerd-engine';

let work: string;
let engine: WorkerdEngine;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'do-conformance-'));
  const entry = await bundleWorkerEntry('workerd-conformance', join(work, 'entry'));
  engine = await WorkerdEngine.start({
    dir: join(work, 'engine'),
    modules: [{ name: 'entry.js', path: entry }],
    durableObject: { className: 'AppStore', storageDir: join(work, 'storage') },
    secrets: {},
    heapMb: 256,
    compatibilityDate: '2025-09-01',
    startTimeoutMs: 30_000,
  });
}, 60_000);

afterAll(async () => {
  await engine?.kill();
  rmSync(work, { recursive: true, force: true });
});

async function run(suite: string, name: string): Promise<void> {
  const answer = (await (await fetch(`http://127.0.0.1:${engine.port}/run?suite=${suite}&case=${encodeURIComponent(name)}`)).json()) as { ok: boolean; error?: string };
  if (!answer.ok) throw new Error(answer.error);
}

describe('runtime conformance over Durable Object SQLite in workerd', () => {
  it('runs the same cases as sql.js', async () => {
    const cases = (await (await fetch(`http://127.0.0.1:${engine.port}/cases`)).json()) as Record<string, string[]>;
    expect(cases.runtime).toEqual(runtimeConformance.map((c) => c.name));
    expect(cases.tables).toEqual(tableConformance.map((c) => c.name));
    expect(cases.plans).toEqual(queryPlanConformance.map((c) => c.name));
    expect(cases.storage).toEqual(storageConformance.map((c) => c.name));
  });
  for (const c of runtimeConformance) it(`runtime: ${c.name}`, () => run('runtime', c.name));
  for (const c of tableConformance) it(`tables: ${c.name}`, () => run('tables', c.name));
  for (const c of queryPlanConformance) it(`plans: ${c.name}`, () => run('plans', c.name));
  for (const c of storageConformance) it(`storage: ${c.name}`, () => run('storage', c.name));
});
