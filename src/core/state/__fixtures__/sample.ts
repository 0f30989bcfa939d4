/** Sample `platform.state-export.v0` documents for any manifest: tests, fuzzing and the share-link bench. */
import type { FieldDeclaration, Manifest } from '../../manifest';
import { encodeValue } from '../../../modules/wire';
import type { JsonValue } from '../../../modules/types';
import { tableOrder } from '../../runtime';
import { STATE_EXPORT_PROTOCOL, stateSchemaIdentity, type StateExportDocument } from '../document';

/** A small deterministic PRNG (mulberry32), so a failing seed reproduces. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function sampleValue(field: FieldDeclaration, index: number, random: () => number, ids: Record<string, string[]>): unknown {
  switch (field.type) {
    case 'string': {
      if (field.enum) return field.enum[index % field.enum.length];
      const text = `value ${index} ${Math.floor(random() * 1e6)} ünï ✓`;
      return field.maxLength !== undefined ? text.slice(0, field.maxLength) : text;
    }
    case 'number':
      return Math.round(random() * 1e6) / 100;
    case 'boolean':
      return random() < 0.5;
    case 'datetime':
      return new Date(Date.UTC(2026, 0, 1) + Math.floor(random() * 1e10));
    case 'bytes':
      return Uint8Array.from({ length: 1 + (index % 5) }, () => Math.floor(random() * 256));
    case 'json':
      return { n: index, list: [1, 'two', null], nested: { $date: 'not a date, escaped' } };
    case 'ref': {
      const targets = ids[field.table ?? ''] ?? [];
      return targets.length > 0 ? targets[index % targets.length] : undefined;
    }
  }
}

/** A document with `rows` rows per table whose values satisfy the declared types, enums, lengths and refs. */
export function sampleStateExport(manifest: Pick<Manifest, 'name' | 'database'>, rows: number, seed = 1): StateExportDocument {
  const random = prng(seed);
  const tables: Record<string, JsonValue[]> = {};
  const ids: Record<string, string[]> = {};
  const database = manifest.database;
  for (const table of database ? tableOrder(database) : []) {
    const fields = database!.tables[table]!.fields;
    const out: JsonValue[] = [];
    ids[table] = [];
    for (let i = 0; i < rows; i++) {
      const id = `${table}-${String(i).padStart(4, '0')}`;
      const at = new Date(Date.UTC(2026, 0, 1) + i * 1000);
      const row: Record<string, unknown> = { id, createdAt: at, updatedAt: new Date(at.getTime() + 500) };
      for (const [name, field] of Object.entries(fields)) {
        if (field.generated) continue;
        if (field.optional && i % 3 === 0) continue;
        const value = field.unique && field.type === 'string' ? `${name}-${i}` : sampleValue(field, i, random, ids);
        if (value !== undefined) row[name] = value;
      }
      ids[table].push(id);
      out.push(encodeValue(row) as JsonValue);
    }
    tables[table] = out;
  }
  return {
    protocol: STATE_EXPORT_PROTOCOL,
    app: manifest.name,
    schema: stateSchemaIdentity(manifest),
    database: (database ?? null) as unknown as JsonValue,
    exportedAt: new Date(Date.UTC(2026, 0, 2)).toISOString(),
    tables,
  };
}
