/**
 * The done-when of the local loop, per bundled template: the real `platform dev --json` (a child
 * process, workerd, loopback HTTP) and the page in Chromium. A server edit restarts the runtime and a
 * client edit rebuilds the bundle; the page shows both; a broken file is a DG1602 while the old
 * generation keeps serving; the fix takes over.
 */
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from '@playwright/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DevProcess } from '../testing/dev-process';

const TEMPLATES = join(import.meta.dirname, '../../templates');
const templates = readdirSync(TEMPLATES, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
let browser: Browser;

/** The processes below `pid` (Linux /proc), with their command lines. */
function descendants(pid: number): string[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const parent = Number(readFileSync(`/proc/${entry}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ')[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  const out: string[] = [];
  const walk = (at: number) => {
    for (const child of children.get(at) ?? []) {
      try {
        out.push(readFileSync(`/proc/${child}/cmdline`, 'utf8').replaceAll('\0', ' '));
      } catch {
        continue;
      }
      walk(child);
    }
  };
  walk(pid);
  return out;
}

beforeAll(async () => {
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium' });
});

afterAll(async () => {
  await browser?.close();
});

describe.each(templates)('platform dev on a copy of the %s template, in Chromium', (template) => {
  it('serves, takes server and client edits, keeps serving through a broken save, and takes the fix', { timeout: 180_000 }, async () => {
    const root = mkdtempSync(join(tmpdir(), `platform-dev-${template}-`));
    cpSync(join(TEMPLATES, template), root, { recursive: true });
    const dev = new DevProcess(['dev', '--json', '--port', '0'], root);
    const page = await browser.newPage();
    try {
      const url = String((await dev.kind('preview.ready')).url);
      await page.goto(url);
      await page.locator('#app > *').first().waitFor();
      await expect(page.locator('#__platform_persona').textContent()).resolves.toContain('you are alice');
      // The files are quiet: the template's tests run on the generation that serves, and pass.
      expect(await dev.kind('test.run.finish')).toMatchObject({ ok: true, failed: 0, generation: 1 });
      // Rebuilds are bundled on a thread of their own once the first generation serves (its own esbuild
      // beside the command's): the process that runs the command started from the CLI's snapshot.
      await expect.poll(() => descendants(dev.child.pid!).filter((line) => line.includes('esbuild') && line.includes('--service')).length, { timeout: 10_000 }).toBe(2);

      // Server: a new query; the runtime restarts on the new server bundle.
      const server = join(root, 'src/server/index.ts');
      let from = dev.events.length;
      writeFileSync(server, readFileSync(server, 'utf8').replace('queries: {', "queries: {\n    'dev.ping': query({ input: {}, handler: async () => 'pong from the edit' }),"));
      await dev.kind('compile.start', from);
      await dev.kind('server.restarted', from);
      expect(await dev.kind('compile.ready', from)).toMatchObject({ restarted: true });

      // Client: the page asks the new query and shows the answer.
      const client = join(root, 'src/client/main.tsx');
      const original = readFileSync(client, 'utf8');
      const edited = `${original}\nimport { query as devPing } from 'platform/client';\nvoid devPing('dev.ping', {}).then((answer) => document.body.setAttribute('data-ping', answer));\n`;
      from = dev.events.length;
      writeFileSync(client, edited);
      expect(await dev.kind('compile.ready', from)).toMatchObject({ restarted: false });
      await page.reload();
      await page.locator('body[data-ping="pong from the edit"]').waitFor();

      // A broken save: DG1602, and the previous generation still serves.
      from = dev.events.length;
      writeFileSync(client, `${edited}\nconst broken: number = 'not a number';\n`);
      const failed = await dev.kind('compile.diagnostic', from);
      expect(failed).toMatchObject({ code: 'DG1602', diagnostics: [expect.objectContaining({ code: 'DG1205', file: 'src/client/main.tsx' })] });
      await page.reload();
      await page.locator('body[data-ping="pong from the edit"]').waitFor();

      // The fix takes over by itself.
      from = dev.events.length;
      writeFileSync(client, edited.replace("setAttribute('data-ping', answer)", "setAttribute('data-ping', `${answer}, fixed`)"));
      await dev.kind('compile.ready', from);
      await page.reload();
      await page.locator('body[data-ping="pong from the edit, fixed"]').waitFor();
    } finally {
      await page.close();
      expect(await dev.stop(), dev.stderr).toBe(0);
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('platform dev runs the tests', () => {
  it('on each generation that serves: a failing test is test.case.fail; a type error in a test file blocks the tests, not the app', { timeout: 180_000 }, async () => {
    const root = mkdtempSync(join(tmpdir(), 'platform-dev-tests-'));
    cpSync(join(TEMPLATES, 'todo'), root, { recursive: true });
    const dev = new DevProcess(['dev', '--json', '--port', '0'], root);
    try {
      await dev.kind('preview.ready');
      const first = await dev.kind('test.run.finish');
      expect(first).toMatchObject({ ok: true, failed: 0, generation: 1 });
      expect(Number(first.passed)).toBeGreaterThan(0);

      // An assertion broken in the test file: its run on the new generation fails that test.
      const tests = join(root, 'tests/todos.test.ts');
      const original = readFileSync(tests, 'utf8');
      let from = dev.events.length;
      writeFileSync(tests, original.replace("toMatchObject({ title: 'milk', done: false })", "toMatchObject({ title: 'bread', done: false })"));
      const ready = await dev.kind('compile.ready', from);
      const failed = await dev.kind('test.case.fail', from);
      expect(failed).toMatchObject({ code: 'DG1904', file: 'tests/todos.test.ts', name: 'a todo added is listed for its owner', generation: ready.generation });
      expect(await dev.kind('test.run.finish', from)).toMatchObject({ ok: false, failed: 1, generation: ready.generation });

      // A type error in the test file: the app's build is good (compile.ready, no DG1602); the tests say DG1901.
      from = dev.events.length;
      writeFileSync(tests, `${original}\nconst broken: number = 'not a number';\n`);
      expect(await dev.kind('compile.ready', from)).toBeDefined();
      const finish = await dev.kind('test.run.finish', from);
      expect(finish).toMatchObject({ ok: false, diagnostics: expect.arrayContaining([expect.objectContaining({ code: 'DG1205', file: 'tests/todos.test.ts' }), expect.objectContaining({ code: 'DG1901' })]) });
      expect(dev.events.slice(from).some((event) => event.kind === 'compile.diagnostic')).toBe(false);
    } finally {
      expect(await dev.stop(), dev.stderr).toBe(0);
      rmSync(root, { recursive: true, force: true });
    }
  });
});
