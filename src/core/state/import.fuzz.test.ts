import { beforeAll, describe, expect, it } from 'vitest';
import { nodeSqlDriverFactory } from '../../adapters/node/sqljs';
import type { SqlDriver } from '../runtime';
import { fingerprint, RICH } from './__fixtures__/rich';
import { prng, sampleStateExport } from './__fixtures__/sample';
import { exportState, importState, importStateText, parseStateExport, type StateImportResult } from '.';

const SEED = 20260601;
const CASES = 2500;
const REFUSALS = ['state_import_schema_mismatch', 'state_import_application_mismatch', 'state_import_record_invalid', 'state_export_too_large'];

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function randomValue(random: () => number, depth = 0): Json {
  const pick = Math.floor(random() * (depth > 2 ? 7 : 10));
  const strings = ['', 'x', '$date', '$bytes', '$escape', 'id', '2026-01-01T00:00:00.000Z', 'plain', 'todo', 'a'.repeat(50), '__proto__', '\u0000', 'é✓'];
  switch (pick) {
    case 0: return null;
    case 1: return random() < 0.5;
    case 2: return [0, -1, 1e308, 0.5, -0, 2 ** 53, Math.floor(random() * 1000)][Math.floor(random() * 7)]!;
    case 3: case 4: return strings[Math.floor(random() * strings.length)]!;
    case 5: return { $date: random() < 0.5 ? '2026-01-01T00:00:00.000Z' : 'nope' };
    case 6: return { $bytes: random() < 0.5 ? 'AQID' : '***' };
    case 7: return [randomValue(random, depth + 1), randomValue(random, depth + 1)];
    case 8: return { [strings[Math.floor(random() * strings.length)]!]: randomValue(random, depth + 1) };
    default: return { $escape: randomValue(random, depth + 1) };
  }
}

/** Every (container, key) in a JSON tree. */
function places(root: Json): Array<[Json[] | { [key: string]: Json }, string | number]> {
  const out: Array<[Json[] | { [key: string]: Json }, string | number]> = [];
  const walk = (node: Json) => {
    if (node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) node.forEach((child, i) => { out.push([node, i]); walk(child); });
    else for (const key of Object.keys(node)) { out.push([node, key]); walk(node[key]!); }
  };
  walk(root);
  return out;
}

function mutate(doc: Json, random: () => number): Json {
  const copy = JSON.parse(JSON.stringify(doc)) as Json;
  const steps = 1 + Math.floor(random() * 3);
  for (let s = 0; s < steps; s++) {
    const all = places(copy);
    // Mostly inside rows, where the deepest checks are.
    const rows = all.filter(([container]) => all.indexOf([container, 0] as never) === -1 && JSON.stringify(container).includes('"createdAt"'));
    const pool = rows.length > 0 && random() < 0.7 ? rows : all;
    const [container, key] = pool[Math.floor(random() * pool.length)]!;
    const action = Math.floor(random() * 6);
    const target = container as Record<string | number, Json>;
    if (action === 0) {
      if (Array.isArray(container)) container.splice(key as number, 1);
      else delete target[key];
    } else if (action === 1) {
      target[key] = randomValue(random);
    } else if (action === 2 && Array.isArray(container)) {
      container.push(JSON.parse(JSON.stringify(container[key as number] ?? null)) as Json);
    } else if (action === 3 && !Array.isArray(container)) {
      target[['extra', 'id', 'title', 'name', 'createdAt', 'meta', 'folder', 'titleLength'][Math.floor(random() * 8)]!] = randomValue(random);
    } else if (action === 4 && typeof target[key] === 'string') {
      const text = target[key] as string;
      const at = Math.floor(random() * (text.length + 1));
      target[key] = text.slice(0, at) + String.fromCharCode(Math.floor(random() * 0x3000)) + text.slice(at + 1);
    } else {
      target[key] = Array.isArray(target[key]) ? {} : [];
    }
  }
  return copy;
}

function mutateText(text: string, random: () => number): string {
  const at = Math.floor(random() * text.length);
  const choice = Math.floor(random() * 3);
  if (choice === 0) return text.slice(0, at);
  if (choice === 1) return text.slice(0, at) + '{}[]",:0ae\\'[Math.floor(random() * 11)] + text.slice(at + 1);
  return text.slice(0, at) + text.slice(at + 1 + Math.floor(random() * 20));
}

let driver: SqlDriver;
beforeAll(async () => {
  driver = (await nodeSqlDriverFactory())();
});

describe('state import fuzz (seeded)', () => {
  it(`${CASES} random and mutated documents: never throws; a refusal writes nothing; an acceptance writes exactly the document`, () => {
    const random = prng(SEED);
    const base = sampleStateExport(RICH, 4, 11) as unknown as Json;
    expect(importState(driver, RICH, base).ok).toBe(true);
    let before = fingerprint(driver);
    const tally: Record<string, number> = {};
    for (let n = 0; n < CASES; n++) {
      const kind = random();
      let result: StateImportResult;
      let input: unknown;
      try {
        if (kind < 0.1) {
          input = randomValue(random);
          result = importState(driver, RICH, input);
        } else if (kind < 0.25) {
          input = mutateText(JSON.stringify(base), random);
          result = importStateText(driver, RICH, input as string);
        } else {
          input = mutate(base, random);
          result = importState(driver, RICH, input);
        }
      } catch (error) {
        throw new Error(`case ${n} (seed ${SEED}) threw: ${String(error)}\n${JSON.stringify(input)?.slice(0, 2000)}`);
      }
      const key = result.ok ? 'ok' : `${result.diagnostic.code}${result.diagnostic.detail?.code ? `:${String(result.diagnostic.detail.code)}` : ''}`;
      tally[key] = (tally[key] ?? 0) + 1;
      if (result.ok) {
        // Accepted: the database now holds exactly what the document says.
        const parsed = parseStateExport(typeof input === 'string' ? JSON.parse(input) : input);
        expect(parsed.ok).toBe(true);
        const exported = exportState(driver, RICH);
        expect(exported.ok).toBe(true);
        if (exported.ok && parsed.ok) for (const [table, rows] of Object.entries(exported.document.tables)) expect(rows.length).toBe(parsed.state.rows[table]?.length ?? 0);
        before = fingerprint(driver);
      } else {
        expect(['DG1822', 'DG1824'], `case ${n}`).toContain(result.diagnostic.code);
        if (result.diagnostic.code === 'DG1824') expect(REFUSALS).toContain(result.diagnostic.detail?.code);
        expect(typeof result.diagnostic.message).toBe('string');
        expect(fingerprint(driver), `case ${n} (seed ${SEED}) wrote on refusal: ${result.diagnostic.message}`).toBe(before);
      }
    }
    expect(driver.all('PRAGMA foreign_keys')[0]).toEqual({ foreign_keys: 1 });
    // The mutations reach every layer: unusable documents, refused records, and some accepted.
    expect(tally['DG1822']).toBeGreaterThan(100);
    expect(tally['DG1824:state_import_record_invalid']).toBeGreaterThan(100);
    expect(tally['ok']).toBeGreaterThan(10);
  });
});
