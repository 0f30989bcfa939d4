/**
 * `platform export`, `platform import` and `inspect --view export --out` against a real `platform dev`
 * (workerd, loopback HTTP) with more rows than the old cap of 200,000: streamed in pages and batches,
 * a byte-identical round trip, a failure late in the file leaving the state as it was, and `--out`
 * printing no document.
 */
import { closeSync, cpSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from './main';
import { DevProcess } from './dev-process';
import { stateSchemaIdentity } from '../core/state';
import { validateManifestText } from '../core/manifest';

const TEMPLATE = join(import.meta.dirname, '../../templates/todo');
const ROWS = 210_000;

async function cli(cwd: string, ...args: string[]): Promise<{ code: number; stdout: string; json: { ok: boolean; diagnostics: Array<{ code: string; detail?: { code?: string } }>; result?: any } }> {
  let stdout = '';
  const code = await main([...args, '--json'], { cwd, stdout: { write: (t: string) => (stdout += t) }, stderr: { write: () => undefined } });
  return { code, stdout, json: JSON.parse(stdout) };
}

/** The todo app's export document with `rows` rows, written as `platform export` writes one, a piece at a time. */
function writeDocument(path: string, root: string, rows: number, exportedAt: string, bad?: number): void {
  const manifest = validateManifestText(readFileSync(join(root, 'app.manifest.json'), 'utf8')).manifest!;
  const head = JSON.stringify({ protocol: 'platform.state-export.v0', app: manifest.name, schema: stateSchemaIdentity(manifest), database: manifest.database, exportedAt }, null, 2);
  const fd = openSync(path, 'w');
  writeSync(fd, `${head.slice(0, -2)},\n  "tables": {\n    "todos": [`);
  const base = Date.UTC(2026, 0, 1);
  for (let i = 0; i < rows; i += 10_000) {
    let text = '';
    for (let j = i; j < Math.min(rows, i + 10_000); j++) {
      const at = new Date(base + j).toISOString();
      const row = { id: `t${String(j).padStart(7, '0')}`, createdAt: { $date: at }, updatedAt: { $date: at }, ownerId: `user-${j % 7}`, title: j === bad ? 'x'.repeat(300) : `todo ${j}`, done: j % 2 === 0 };
      text += `${j === 0 ? '' : ','}\n      ${JSON.stringify(row, null, 2).replace(/\n/g, '\n      ')}`;
    }
    writeSync(fd, text);
  }
  writeSync(fd, '\n    ]\n  }\n}\n');
  closeSync(fd);
}

const withoutExportedAt = (text: string) => text.replace(/\n {2}"exportedAt": "[^"]*",\n/, '\n');

describe(`platform export and import of ${ROWS} rows against platform dev`, () => {
  let root: string;
  let dev: DevProcess;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'platform-transfer-'));
    cpSync(TEMPLATE, root, { recursive: true });
    dev = new DevProcess(['dev', '--json', '--port', '0'], root);
    await dev.kind('preview.ready');
  }, 180_000);

  afterAll(async () => {
    await dev?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('imports, exports byte for byte, and refuses a bad record late in the file leaving the state as it was', { timeout: 600_000 }, async () => {
    writeDocument(join(root, 'big.json'), root, ROWS, '2026-01-02T00:00:00.000Z');
    const imported = await cli(root, 'import', 'big.json', '--state', 'dev');
    expect(imported.json.diagnostics).toEqual([]);
    expect(imported.json.result).toMatchObject({ counts: { todos: ROWS } });

    const exported = await cli(root, 'export', '--state', 'dev', '--out', 'out.json');
    expect(exported.json.result).toMatchObject({ state: 'dev', tables: { todos: ROWS } });
    const original = readFileSync(join(root, 'big.json'), 'utf8');
    const again = readFileSync(join(root, 'out.json'), 'utf8');
    expect(again.length).toBe(original.length + (again.length - original.length));
    expect(withoutExportedAt(again) === withoutExportedAt(original)).toBe(true);

    // --out streams the document to the file and prints only a summary.
    const inspected = await cli(root, 'inspect', '--view', 'export', '--out', 'inspected.json');
    expect(inspected.json.result).toMatchObject({ view: 'export', out: 'inspected.json', tables: { todos: ROWS } });
    expect(inspected.stdout).not.toContain('"protocol"');
    expect(inspected.stdout.length).toBeLessThan(2000);
    expect(withoutExportedAt(readFileSync(join(root, 'inspected.json'), 'utf8')) === withoutExportedAt(original)).toBe(true);
    let text = '';
    expect(await main(['inspect', '--view', 'export', '--out', 'text.json'], { cwd: root, stdout: { write: (t: string) => (text += t) }, stderr: { write: () => undefined } })).toBe(0);
    expect(text).not.toContain('"protocol"');
    expect(text).toContain('text.json');

    // A record the table refuses, 200,000 rows in: nothing of the import is written.
    writeDocument(join(root, 'bad.json'), root, ROWS + 5, '2026-01-03T00:00:00.000Z', 200_000);
    const refused = await cli(root, 'import', 'bad.json', '--state', 'dev');
    expect(refused.json.diagnostics).toMatchObject([{ code: 'DG1824', detail: { code: 'state_import_record_invalid' } }]);
    expect((await cli(root, 'db', 'exec', 'SELECT count(*) AS n FROM todos')).json.result.rows).toEqual([[ROWS]]);
    expect((await cli(root, 'db', 'exec', "SELECT name FROM sqlite_master WHERE name LIKE '__platform_import%'")).json.result.rows).toEqual([]);
    const after = await cli(root, 'export', '--state', 'dev', '--out', 'after.json');
    expect(after.json.ok).toBe(true);
    expect(withoutExportedAt(readFileSync(join(root, 'after.json'), 'utf8')) === withoutExportedAt(original)).toBe(true);
  });

  it('exports through many small pages when asked to (PLATFORM_STATE_PAGE_ROWS)', { timeout: 300_000 }, async () => {
    writeDocument(join(root, 'small.json'), root, 100, '2026-01-02T00:00:00.000Z');
    process.env.PLATFORM_STATE_PAGE_ROWS = '7';
    try {
      expect((await cli(root, 'import', 'small.json', '--state', 'dev')).json.result).toMatchObject({ counts: { todos: 100 } });
      expect((await cli(root, 'export', '--state', 'dev', '--out', 'small-out.json')).json.result).toMatchObject({ tables: { todos: 100 } });
    } finally {
      delete process.env.PLATFORM_STATE_PAGE_ROWS;
    }
    expect(withoutExportedAt(readFileSync(join(root, 'small-out.json'), 'utf8'))).toBe(withoutExportedAt(readFileSync(join(root, 'small.json'), 'utf8')));
    writeFileSync(join(root, 'noop'), '');
  });
});
