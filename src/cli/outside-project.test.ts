/** The CLI writes nothing outside the project: a `.platform` that links elsewhere is refused before anything is made there. */
import { cpSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { nodeCompiler } from '../adapters/node/compiler';
import type { Compiler } from '../core/build';
import { runInProcess } from '../testing/cli';

const ROOT = join(import.meta.dirname, '../..');
let work: string;
let shared: Compiler | undefined;
const compiler = async () => (shared ??= nodeCompiler());

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'platform-outside-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

it('platform build on a project whose .platform links elsewhere fails and creates nothing there', async () => {
  const project = join(work, 'todo');
  cpSync(join(ROOT, 'templates/todo'), project, { recursive: true });
  symlinkSync(work, join(project, '.platform'), 'dir');
  const before = readdirSync(work).sort();
  // The file system refuses the write (a link on its path): the command answers DG1813, it does not crash.
  const { code, stdout } = await runInProcess(['build', project, '--json'], { cwd: work, compiler });
  expect(code).not.toBe(0);
  expect(JSON.parse(stdout)).toMatchObject({ command: 'build', ok: false, diagnostics: [{ code: 'DG1813', message: expect.stringContaining('.platform is a symbolic link') }] });
  // No types/, artifacts/, blobs/ or latest.json appeared where the link points.
  expect(readdirSync(work).sort()).toEqual(before);
}, 60_000);
