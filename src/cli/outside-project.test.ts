/** The CLI writes nothing outside the project: a `.platform` that links elsewhere is refused before anything is made there. */
import { cpSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { nodeCompiler } from '../adapters/node/compiler';
import type { Compiler } from '../core/build/build';
import { main } from './main';

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
  let stderr = '';
  // The refusal is an error of the file system, reported as DG0000 (a crash before a result).
  const code = await main(['build', project, '--json'], { cwd: work, compiler, stdout: { write: () => {} }, stderr: { write: (t: string) => (stderr += t) } });
  expect(code).not.toBe(0);
  expect(stderr).toContain('outside the project');
  // No types/, artifacts/, blobs/ or latest.json appeared where the link points.
  expect(readdirSync(work).sort()).toEqual(before);
}, 60_000);
