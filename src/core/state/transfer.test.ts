import { beforeAll, describe, expect, it } from 'vitest';
import { nodeSqlDriverFactory } from '../../adapters/node/sqljs';
import type { JsonValue } from '../../modules/types';
import type { Manifest } from '../manifest';
import type { SqlDriver, SqlDriverFactory } from '../runtime';
import { fingerprint, RICH } from './__fixtures__/rich';
import { sampleStateExport } from './__fixtures__/sample';
import { chunksOf, driverImportTarget, EXPORT_PAGE_BYTES, EXPORT_PAGE_ROWS, EXPORT_RECORD_BYTES, exportPage, exportState, IMPORT_BATCH_BYTES, IMPORT_BATCH_ROWS, importState, stateSchemaIdentity, STATE_EXPORT_PROTOCOL, streamExport, streamImport } from '.';

let factory: SqlDriverFactory;
beforeAll(async () => {
  factory = await nodeSqlDriverFactory();
});

const NOW = new Date(Date.UTC(2026, 0, 2));

/** The streamed export's text, `rows` per page. */
async function exportText(driver: SqlDriver, manifest: Manifest, rows: number, maxBytes?: number): Promise<string> {
  const pieces: string[] = [];
  const result = await streamExport(async (cursor) => exportPage(driver, manifest, cursor, { now: NOW, maxRows: rows, ...(maxBytes ? { maxBytes } : {}) }), async (text) => void pieces.push(text));
  if (!result.ok) throw new Error(result.diagnostic.message);
  return pieces.join('');
}

function seeded(rows: number): SqlDriver {
  const driver = factory();
  const result = importState(driver, RICH, sampleStateExport(RICH, rows));
  if (!result.ok) throw new Error(result.diagnostic.message);
  return driver;
}

describe('streamed export', () => {
  it('writes exactly the text of the whole document, whatever the page size', async () => {
    const driver = seeded(120);
    const whole = exportState(driver, RICH, { now: NOW });
    if (!whole.ok) throw new Error(whole.diagnostic.message);
    const expected = `${JSON.stringify(whole.document, null, 2)}\n`;
    for (const rows of [1, 7, 120, 5000]) expect(await exportText(driver, RICH, rows)).toBe(expected);
    // Pages ended by their bytes instead of their rows.
    expect(await exportText(driver, RICH, 5000, 1000)).toBe(expected);
  });

  it('writes empty tables and an uninitialised database as the document does', async () => {
    const empty = exportState(factory(), RICH, { now: NOW });
    if (!empty.ok) throw new Error(empty.diagnostic.message);
    expect(await exportText(factory(), RICH, 3)).toBe(`${JSON.stringify(empty.document, null, 2)}\n`);
    const none: Manifest = { ...RICH, database: undefined };
    const bare = exportState(factory(), none, { now: NOW });
    if (!bare.ok) throw new Error(bare.diagnostic.message);
    expect(await exportText(factory(), none, 3)).toBe(`${JSON.stringify(bare.document, null, 2)}\n`);
  });

  it('keeps each page small (the engine holds one page at a time), and gives a record larger than a page a page of its own', () => {
    // Default pages stay well under the largest record a page may carry.
    expect(EXPORT_PAGE_BYTES * 4).toBeLessThanOrEqual(EXPORT_RECORD_BYTES);
    const driver = seeded(3000);
    const first = exportPage(driver, RICH, undefined, { now: NOW });
    if (!first.ok) throw new Error(first.diagnostic.message);
    const rows = first.page.rows.flatMap((group) => group.rows);
    expect(rows.length).toBeLessThanOrEqual(EXPORT_PAGE_ROWS);
    expect(JSON.stringify(rows).length).toBeLessThan(EXPORT_PAGE_BYTES + 2000);

    // A note whose meta is bigger than a page but smaller than a record's limit: alone on its page, not refused.
    const big = factory();
    const document = sampleStateExport(RICH, 3);
    (document.tables.notes![1] as Record<string, JsonValue>).meta = { text: 'm'.repeat(3000) };
    expect(importState(big, RICH, document)).toMatchObject({ ok: true });
    const pages: number[] = [];
    let cursor: string | undefined;
    do {
      const page = exportPage(big, RICH, cursor, { now: NOW, maxBytes: 1000, maxRecordBytes: 10_000 });
      if (!page.ok) throw new Error(page.diagnostic.message);
      pages.push(page.page.rows.reduce((sum, group) => sum + group.rows.length, 0));
      cursor = page.page.next ?? undefined;
    } while (cursor);
    expect(pages.reduce((a, b) => a + b, 0)).toBe(6);
    expect(pages).toContain(1);
    // Over a record's limit: refused, naming the record.
    let refusal: unknown;
    cursor = undefined;
    do {
      const page = exportPage(big, RICH, cursor, { now: NOW, maxBytes: 1000, maxRecordBytes: 2000 });
      if (!page.ok) {
        refusal = page.diagnostic;
        break;
      }
      cursor = page.page.next ?? undefined;
    } while (cursor);
    expect(refusal).toMatchObject({ code: 'DG1824', detail: { code: 'state_export_too_large', table: 'notes' } });
  });

  it('refuses a cursor it did not make, and one from before a schema change', () => {
    const driver = seeded(5);
    expect(exportPage(driver, RICH, 'not a cursor')).toMatchObject({ ok: false, diagnostic: { code: 'DG1840' } });
    const first = exportPage(driver, RICH, undefined, { maxRows: 2 });
    if (!first.ok || !first.page.next) throw new Error('expected a second page');
    const other = { ...RICH, database: { ...RICH.database!, version: 2 } };
    expect(exportPage(driver, other, first.page.next)).toMatchObject({ ok: false, diagnostic: { code: 'DG1824', detail: { code: 'state_import_schema_mismatch' } } });
  });
});

describe('streamed import', () => {
  it('round-trips byte for byte through small batches and small chunks', async () => {
    const source = seeded(150);
    const text = await exportText(source, RICH, 11);
    const target = factory();
    const result = await streamImport(() => chunksOf(text, 97), driverImportTarget(target, RICH), { batchRows: 7 });
    expect(result).toEqual({ ok: true, counts: { folders: 150, notes: 150 } });
    expect(await exportText(target, RICH, 13)).toBe(text);
    // Nothing of the import is left behind.
    expect(target.all("SELECT name FROM sqlite_master WHERE name LIKE '__platform_import%'")).toEqual([]);
  });

  it('sends small batches by default (the engine holds one batch at a time): at most IMPORT_BATCH_ROWS rows, ending once past IMPORT_BATCH_BYTES of JSON', async () => {
    const document = sampleStateExport(RICH, 2500);
    // Ten notes of about 100 KB each: more than one batch's bytes, far fewer than its rows.
    for (const note of document.tables.notes!.slice(0, 10)) (note as Record<string, JsonValue>).meta = { text: 'm'.repeat(100_000) };
    const text = JSON.stringify(document, null, 2);
    const target = factory();
    const inner = driverImportTarget(target, RICH);
    const batches: Array<{ table: string; rows: number; bytesBeforeLast: number }> = [];
    const recording = {
      ...inner,
      begin: (head: unknown) => inner.begin(head),
      commit: () => inner.commit(),
      abort: () => inner.abort(),
      rows: (table: string, first: number, rows: JsonValue[]) => {
        batches.push({ table, rows: rows.length, bytesBeforeLast: rows.slice(0, -1).reduce<number>((sum, row) => sum + JSON.stringify(row, null, 2).length, 0) });
        return inner.rows(table, first, rows);
      },
    };
    expect(await streamImport(() => chunksOf(text, 64 * 1024), recording)).toEqual({ ok: true, counts: { folders: 2500, notes: 2500 } });
    expect(IMPORT_BATCH_BYTES * 8).toBeLessThanOrEqual(EXPORT_RECORD_BYTES);
    for (const batch of batches) {
      expect(batch.rows).toBeLessThanOrEqual(IMPORT_BATCH_ROWS);
      expect(batch.bytesBeforeLast).toBeLessThan(IMPORT_BATCH_BYTES);
    }
    // The big notes went in more than one batch; the small folders in batches of IMPORT_BATCH_ROWS.
    expect(batches.filter((batch) => batch.table === 'notes').length).toBeGreaterThan(Math.ceil(2500 / IMPORT_BATCH_ROWS));
    expect(batches.filter((batch) => batch.table === 'folders').map((batch) => batch.rows)).toEqual([1000, 1000, 500]);
  });

  it('reads a document whose "tables" comes before its other keys', async () => {
    const document = sampleStateExport(RICH, 20);
    const { tables, ...head } = document;
    const text = JSON.stringify({ tables, ...head });
    const target = factory();
    expect(await streamImport(() => chunksOf(text, 50), driverImportTarget(target, RICH), { batchRows: 3 })).toEqual({ ok: true, counts: { folders: 20, notes: 20 } });
  });

  const failures: Array<[string, (text: string) => string, string, string?]> = [
    // A row late in the document that the table refuses: earlier batches were staged, none written.
    ['a record refused in a late batch', (text) => text.replace('"name": "name-140"', '"name": 7'), 'DG1824', 'state_import_record_invalid'],
    ['an id held twice in different batches', (text) => text.replace('"id": "folders-0140"', '"id": "folders-0003"'), 'DG1822'],
    ['a reference to a missing row (found at commit)', (text) => text.replace(/"folder": "folders-0145"/g, '"folder": "folders-9999"'), 'DG1824', 'state_import_record_invalid'],
    ['a unique field repeated (found at commit)', (text) => text.replace('"name": "name-140"', '"name": "name-3"'), 'DG1824', 'state_import_record_invalid'],
    ['text cut short', (text) => text.slice(0, Math.floor(text.length * 0.8)), 'DG1822'],
    ['text after the document', (text) => `${text}{}`, 'DG1822'],
    ['a row that is not JSON', (text) => text.replace('"name": "name-120",', '"name": "name-120",,'), 'DG1822'],
    ['another application', (text) => text.replace('"app": "rich-app"', '"app": "other-app"'), 'DG1824', 'state_import_application_mismatch'],
    ['another protocol', (text) => text.replace(STATE_EXPORT_PROTOCOL, 'platform.state-export.v9'), 'DG1822'],
  ];
  for (const [name, change, code, detail] of failures) {
    it(`${name}: ${code}${detail ? ` ${detail}` : ''}, and the state is as it was`, async () => {
      const text = await exportText(seeded(150), RICH, 5000);
      const target = seeded(4);
      const before = fingerprint(target);
      const changed = change(text);
      expect(changed).not.toBe(text);
      const result = await streamImport(() => chunksOf(changed, 1000), driverImportTarget(target, RICH), { batchRows: 10 });
      expect(result).toMatchObject({ ok: false, diagnostic: { code } });
      if (!result.ok && detail) expect(result.diagnostic.detail?.code).toBe(detail);
      expect(fingerprint(target)).toBe(before);
    });
  }

  // More than the old cap of 200,000 goes through the real CLI against platform dev (src/cli/state-transfer.test.ts).
  it('takes a generated document of 20,001 rows in 41 batches, and exports it back byte for byte', { timeout: 300_000 }, async () => {
    const manifest: Manifest = { ...RICH, name: 'many-rows', database: { tables: { items: { fields: { n: { type: 'number' } } } } } };
    const count = 20_001;
    const head = `{\n  "protocol": "${STATE_EXPORT_PROTOCOL}",\n  "app": "many-rows",\n  "schema": "${stateSchemaIdentity(manifest)}",\n  "database": ${JSON.stringify(manifest.database, null, 2).replace(/\n/g, '\n  ')},\n  "exportedAt": "${NOW.toISOString()}",\n  "tables": {\n    "items": [`;
    async function* document(): AsyncIterable<string> {
      yield head;
      for (let i = 0; i < count; i += 1000) {
        let text = '';
        for (let j = i; j < Math.min(count, i + 1000); j++) {
          const at = new Date(NOW.getTime() + j).toISOString();
          // The key order an export writes: id, the declared fields, then the timestamps.
          text += `${j === 0 ? '' : ','}\n      {\n        "id": "i${String(j).padStart(7, '0')}",\n        "n": ${j},\n        "createdAt": {\n          "$date": "${at}"\n        },\n        "updatedAt": {\n          "$date": "${at}"\n        }\n      }`;
        }
        yield text;
      }
      yield '\n    ]\n  }\n}\n';
    }
    const driver = factory();
    expect(await streamImport(document, driverImportTarget(driver, manifest), { batchRows: 500 })).toEqual({ ok: true, counts: { items: count } });
    let expected = '';
    for await (const piece of document()) expected += piece;
    // Compared as a boolean: a diff of two 2 MB texts would take minutes to print.
    const exported = await exportText(driver, manifest, 777);
    expect(exported.length).toBe(expected.length);
    expect(exported === expected).toBe(true);
  });
});
