/**
 * `platform export`, `platform import` and `inspect --view export --out` against a real `platform dev`
 * (workerd, loopback HTTP) with more rows than the old cap of 200,000: streamed in pages and batches,
 * a byte-identical round trip, a failure late in the file leaving the state as it was, and `--out`
 * printing no document.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../testing/cli';
import { DevProcess } from '../testing/dev-process';
import { writeStateDocument } from './generated-state';

const TEMPLATE = join(import.meta.dirname, '../../templates/todo');
const ROWS = 210_000;

async function cli(cwd: string, ...args: string[]): Promise<{ code: number; stdout: string; json: { ok: boolean; diagnostics: Array<{ code: string; detail?: { code?: string } }>; result?: any } }> {
  const { code, stdout } = await runInProcess([...args, '--json'], { cwd });
  return { code, stdout, json: JSON.parse(stdout) };
}

const withoutExportedAt = (text: string) => text.replace(/\n {2}"exportedAt": "[^"]*",\n/, '\n');

describe(`platform export and import of ${ROWS} rows against platform dev`, () => {
  let root: string;
  /** The files go beside the project, not in it (the dev server watches the project's files); commands name it with --dir. */
  let files: string;
  let dev: DevProcess;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'platform-transfer-'));
    files = mkdtempSync(join(tmpdir(), 'platform-transfer-files-'));
    cpSync(TEMPLATE, root, { recursive: true });
    dev = new DevProcess(['dev', '--json', '--port', '0'], root);
    await dev.kind('preview.ready');
  }, 180_000);

  afterAll(async () => {
    await dev?.stop();
    rmSync(root, { recursive: true, force: true });
    rmSync(files, { recursive: true, force: true });
  }, 60_000);

  /** The CLI run from the files' folder on the project. */
  const run = (...args: string[]) => cli(files, ...args, '--dir', root);

  it('imports, exports byte for byte, and refuses a bad record late in the file leaving the state as it was', { timeout: 600_000 }, async () => {
    writeStateDocument(join(files, 'big.json'), root, { rows: ROWS, exportedAt: '2026-01-02T00:00:00.000Z' });
    const imported = await run('import', 'big.json', '--state', 'dev');
    expect(imported.json.diagnostics).toEqual([]);
    expect(imported.json.result).toMatchObject({ counts: { todos: ROWS } });

    const exported = await run('export', '--state', 'dev', '--out', 'out.json');
    expect(exported.json.result).toMatchObject({ state: 'dev', tables: { todos: ROWS } });
    const original = readFileSync(join(files, 'big.json'), 'utf8');
    const again = readFileSync(join(files, 'out.json'), 'utf8');
    expect(withoutExportedAt(again) === withoutExportedAt(original)).toBe(true);
    // (The export is the imported document but for exportedAt, so importing it again would repeat the
    // import above: the suite's time is spent once.)

    // --out streams the document to the file and prints only a summary.
    const inspected = await run('inspect', '--view', 'export', '--out', 'inspected.json');
    expect(inspected.json.result).toMatchObject({ view: 'export', out: 'inspected.json', tables: { todos: ROWS } });
    expect(inspected.stdout).not.toContain('platform.state-export.v0');
    expect(inspected.stdout.length).toBeLessThan(2000);
    expect(withoutExportedAt(readFileSync(join(files, 'inspected.json'), 'utf8')) === withoutExportedAt(original)).toBe(true);

    // A record the table refuses, 200,000 rows in: nothing of the import is written.
    writeStateDocument(join(files, 'bad.json'), root, { rows: ROWS + 5, exportedAt: '2026-01-03T00:00:00.000Z', bad: 200_000 });
    const refused = await run('import', 'bad.json', '--state', 'dev');
    expect(refused.json.diagnostics).toMatchObject([{ code: 'DG1824', detail: { code: 'state_import_record_invalid' } }]);
    expect((await run('db', 'exec', 'SELECT count(*) AS n FROM todos')).json.result.rows).toEqual([[ROWS]]);
    expect((await run('db', 'exec', "SELECT name FROM sqlite_master WHERE name LIKE '__platform_import%'")).json.result.rows).toEqual([]);
    const after = await run('export', '--state', 'dev', '--out', 'after.json');
    expect(after.json.ok).toBe(true);
    expect(withoutExportedAt(readFileSync(join(files, 'after.json'), 'utf8')) === withoutExportedAt(original)).toBe(true);
  });

  it('exports through many small pages when asked to (PLATFORM_STATE_PAGE_ROWS), and --out without --json prints no document', { timeout: 300_000 }, async () => {
    writeStateDocument(join(files, 'small.json'), root, { rows: 100, exportedAt: '2026-01-02T00:00:00.000Z' });
    process.env.PLATFORM_STATE_PAGE_ROWS = '7';
    try {
      expect((await run('import', 'small.json', '--state', 'dev')).json.result).toMatchObject({ counts: { todos: 100 } });
      expect((await run('export', '--state', 'dev', '--out', 'small-out.json')).json.result).toMatchObject({ tables: { todos: 100 } });
    } finally {
      delete process.env.PLATFORM_STATE_PAGE_ROWS;
    }
    expect(withoutExportedAt(readFileSync(join(files, 'small-out.json'), 'utf8'))).toBe(withoutExportedAt(readFileSync(join(files, 'small.json'), 'utf8')));
    // Without --json too, --out prints a line naming the file, not the document.
    const { code: inspectCode, stdout: text } = await runInProcess(['inspect', '--dir', root, '--view', 'export', '--out', 'text.json'], { cwd: files });
    expect(inspectCode).toBe(0);
    expect(text).not.toContain('platform.state-export.v0');
    expect(text).toContain('text.json');
  });
});

describe('an engine failing a transfer request', () => {
  it('is DG1840 with the runtime\'s code, not DG1842 "another version" (a page past the handler deadline)', async () => {
    const root = mkdtempSync(join(tmpdir(), 'platform-transfer-deadline-'));
    cpSync(TEMPLATE, root, { recursive: true });
    // What the local server passes on when the engine's watchdog answers for a request past its deadline.
    const body = { protocol: 'platform.runtime.v0', error: { code: 'handler_deadline_exceeded', message: 'The handler did not finish within its deadline of 10000 ms.', errorId: 'err_x' } };
    const engine = createServer((_request, response) => {
      response.writeHead(504, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    });
    await new Promise<void>((done) => engine.listen(0, '127.0.0.1', done));
    try {
      const port = (engine.address() as AddressInfo).port;
      mkdirSync(join(root, '.platform/servers'), { recursive: true });
      writeFileSync(join(root, '.platform/servers/dev.json'), JSON.stringify({ format: 'platform.local-server.v0', mode: 'dev', url: `http://127.0.0.1:${port}/`, pid: process.pid, startedAt: new Date().toISOString(), adminSecret: 'x' }));
      for (const args of [['export', '--state', 'dev', '--out', 'x.json'], ['db', 'tables']]) {
        const answer = await cli(root, ...args);
        expect(answer.json.diagnostics).toMatchObject([{ code: 'DG1840', detail: { code: 'handler_deadline_exceeded' } }]);
        expect(JSON.stringify(answer.json.diagnostics)).not.toContain('another version');
      }
      expect(existsSync(join(root, 'x.json'))).toBe(false);
    } finally {
      engine.close();
      rmSync(root, { recursive: true, force: true });
    }
  });
});
