/**
 * `platform check`'s kept answer (check-cache.ts): used only while nothing the check read changed and
 * only when this CLI signed it; any edit (a source, the manifest, an installed package's declarations)
 * is checked again, and a kept answer that is corrupt, forged or not a file is ignored, never trusted.
 */
import { execFile } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeCompiler } from '../adapters/node/compiler';
import type { Compiler } from '../core/build';
import { packageApp } from '../core/build/__fixtures__/package-app';
import { baseApp } from '../core/analyze/__fixtures__/base-app';
import { prebuiltEntry } from '../../bin/prebuilt.mjs';
import { CHECK_CACHE_FILE, checkDirectory } from './check-cache';
import { PLATFORM_LAUNCHER, ROOT, runCli, runInProcess, succeeded } from '../testing/cli';

let work: string;
/**
 * How many times a check asked for the compiler: a kept answer asks for none. Each check gets a new one,
 * as each process of the CLI has (a warm session reuses installed packages it read already, unread by a
 * later check).
 */
let compilations = 0;
/** The project files the last compiler's type checker typed (TypeCheckSession.check), in order. */
let typed: string[] = [];
const compiler = async (): Promise<Compiler> => {
  compilations++;
  const made = nodeCompiler();
  const check = made.typecheck.check.bind(made.typecheck);
  typed = [];
  made.typecheck.check = (paths) => (typed.push(...paths), check(paths));
  return made;
};
const KEY = { key: randomBytes(32), identity: 'this build' };

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'platform-check-cache-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

function project(name: string, files: Record<string, string>): string {
  const dir = join(work, name);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

async function check(dir: string, { json = true, signing = KEY }: { json?: boolean; signing?: typeof KEY } = {}) {
  const before = compilations;
  const args = json ? ['check', '--json', dir] : ['check', dir];
  const { code, stdout } = await runInProcess(args, { cwd: work, compiler, checkCache: signing });
  return { code, stdout, checked: compilations > before };
}

/** Rewrites a file of the project as an editor would save it. */
const edit = (path: string, change: (text: string) => string) => writeFileSync(path, change(readFileSync(path, 'utf8')));
const codes = (stdout: string) => (JSON.parse(stdout) as { diagnostics: Array<{ code: string }> }).diagnostics.map((d) => d.code);

describe('a kept check answer', () => {
  it('answers a project nothing changed in, byte for byte, without checking it again', async () => {
    const dir = project('unchanged', baseApp());
    const first = await check(dir);
    expect(first.checked).toBe(true);
    expect(first.code).toBe(0);
    expect(existsSync(join(dir, CHECK_CACHE_FILE))).toBe(true);
    const second = await check(dir);
    expect(second).toEqual({ ...first, checked: false });
    // The text form is another answer, kept on its own.
    const text = await check(dir, { json: false });
    expect(text.checked).toBe(true);
    expect(text.stdout).toMatch(/^✓ todo-app: /);
  }, 60_000);

  it('is not used after an edit of a source: the new error appears', async () => {
    const dir = project('edited', baseApp());
    expect((await check(dir)).code).toBe(0);
    const server = join(dir, 'src/server/index.ts');
    edit(server, (text) => `${text}\nexport const broken: number = 'not a number';\n`);
    const after = await check(dir);
    expect(after.checked).toBe(true);
    expect(after.code).toBe(1);
    expect(codes(after.stdout)).toContain('DG1205');
    // And the broken answer is not kept past the fix either.
    edit(server, (text) => text.replace("export const broken: number = 'not a number';\n", ''));
    expect(await check(dir)).toMatchObject({ code: 0, checked: true });
  }, 60_000);

  it('is not used after an edit of the manifest, a new file, or an installed package’s declarations', async () => {
    const dir = project('packages', packageApp());
    expect(await check(dir)).toMatchObject({ code: 0, checked: true });
    expect(await check(dir)).toMatchObject({ code: 0, checked: false });

    // An edit of `file` is checked again and refused with `code`; undone, it is checked again and passes.
    const editedThenUndone = async (file: string, edit: (text: string) => string, code: string) => {
      const path = join(dir, file);
      const text = readFileSync(path, 'utf8');
      writeFileSync(path, edit(text));
      const after = await check(dir);
      expect(after).toMatchObject({ code: 1, checked: true });
      expect(codes(after.stdout)).toContain(code);
      writeFileSync(path, text);
      expect(await check(dir)).toMatchObject({ code: 0, checked: true });
    };
    await editedThenUndone('node_modules/tiny-slug/lib/index.d.ts', (typed) => typed.replace('slug(text: string)', 'slug(text: number)'), 'DG1205');
    await editedThenUndone('app.manifest.json', (manifest) => manifest.replace('"name"', '"nmae"'), 'DG1003');

    // A file no import reaches is still in every file's scope (a global declaration).
    writeFileSync(join(dir, 'src/shared/globals.d.ts'), 'declare const slug: number;\n');
    expect(await check(dir)).toMatchObject({ checked: true });
  }, 120_000);

  it('is not used by another build of the CLI, nor for another TypeScript or library', async () => {
    const dir = project('other-build', baseApp());
    await check(dir);
    expect((await check(dir, { signing: { key: randomBytes(32), identity: KEY.identity } })).checked).toBe(true);
    expect((await check(dir, { signing: { key: KEY.key, identity: 'another TypeScript' } })).checked).toBe(true);
  }, 60_000);
});

describe('a kept answer a stranger wrote', () => {
  /** A project whose kept answer claims no errors, and a file that has one. */
  async function brokenProject(name: string): Promise<{ dir: string; server: string }> {
    const dir = project(name, baseApp());
    const server = join(dir, 'src/server/index.ts');
    edit(server, (text) => `${text}\nexport const broken: number = 'not a number';\n`);
    return { dir, server };
  }

  it('is ignored when corrupt, and replaced by a good one', async () => {
    const { dir } = await brokenProject('corrupt');
    for (const garbage of ['', '{', 'null', '[]', '{"format":"platform.check-cache.v0","reads":[["text"]],"output":1}', randomBytes(4096).toString('latin1')]) {
      mkdirSync(join(dir, '.platform'), { recursive: true });
      writeFileSync(join(dir, CHECK_CACHE_FILE), garbage);
      const answer = await check(dir);
      expect(answer).toMatchObject({ code: 1, checked: true });
      expect(codes(answer.stdout)).toContain('DG1205');
    }
    expect(await check(dir)).toMatchObject({ code: 1, checked: false });
  }, 60_000);

  it('is not trusted when it is well formed, its reads match the project, and it is signed by another key or altered', async () => {
    const { dir, server } = await brokenProject('forged');
    const broken = readFileSync(server, 'utf8');
    writeFileSync(server, broken.replace("\nexport const broken: number = 'not a number';\n", ''));
    const clean = await check(dir);
    expect(clean.code).toBe(0);
    writeFileSync(server, broken);
    expect((await check(dir)).code).toBe(1);
    const file = join(dir, CHECK_CACHE_FILE);
    const kept = JSON.parse(readFileSync(file, 'utf8')) as { format: string; args: string[]; reads: unknown[]; output: string; exitCode: number; results: unknown; signature: string };

    // Our own answer altered to say ok: its signature no longer holds.
    writeFileSync(file, JSON.stringify({ ...kept, output: clean.stdout.trimEnd(), exitCode: 0 }));
    const altered = await check(dir);
    expect(altered).toMatchObject({ code: 1, checked: true });
    expect(codes(altered.stdout)).toContain('DG1205');

    // A stranger's whole answer (their own key, the project's reads exactly) saying ok.
    const stranger = { key: randomBytes(32), identity: KEY.identity };
    const forged = { ...kept, output: clean.stdout.trimEnd(), exitCode: 0 };
    const signature = createHmac('sha256', stranger.key).update(JSON.stringify([forged.format, stranger.identity, forged.args, forged.reads, forged.output, forged.exitCode, forged.results])).digest('hex');
    writeFileSync(file, JSON.stringify({ ...forged, signature }));
    // Well formed and matching: under the stranger's key it would be the answer.
    expect(await check(dir, { signing: stranger })).toMatchObject({ code: 0, checked: false });
    writeFileSync(file, JSON.stringify({ ...forged, signature }));
    const answer = await check(dir);
    expect(answer).toMatchObject({ code: 1, checked: true });
    expect(codes(answer.stdout)).toContain('DG1205');
  }, 60_000);

  it('is not read through a link, nor from a pipe; the link is replaced, not written through', async () => {
    const { dir } = await brokenProject('link');
    const elsewhere = join(work, 'elsewhere.json');
    writeFileSync(elsewhere, 'not the cache');
    mkdirSync(join(dir, '.platform'), { recursive: true });
    symlinkSync(elsewhere, join(dir, CHECK_CACHE_FILE));
    expect(await check(dir)).toMatchObject({ code: 1, checked: true });
    expect(readFileSync(elsewhere, 'utf8')).toBe('not the cache');
    expect(statSync(join(dir, CHECK_CACHE_FILE)).isFile()).toBe(true);

    const piped = (await brokenProject('pipe')).dir;
    mkdirSync(join(piped, '.platform'), { recursive: true });
    await promisify(execFile)('mkfifo', [join(piped, CHECK_CACHE_FILE)]);
    expect(await check(piped)).toMatchObject({ code: 1, checked: true });
  }, 60_000);
});

/** The answer of a check of the same files with nothing kept: a copy of the project without `.platform/`. */
async function freshAnswer(dir: string, name: string): Promise<string> {
  const copy = join(work, name);
  cpSync(dir, copy, { recursive: true, filter: (source) => !source.endsWith('/.platform') });
  const fresh = await check(copy);
  expect(fresh.checked).toBe(true);
  // The copy's own path is in no answer (the project is named by its manifest).
  return fresh.stdout;
}

type KeptFile = { results: { checked: Record<string, { key: string; diagnostics: unknown[] }> }; signature: string };

describe('per-file results kept with the answer', () => {
  it('a check after an edit types only what the edit can reach, and answers as a check with nothing kept', async () => {
    const dir = project('one-edit', baseApp());
    const all = ['src/server/index.ts', 'src/shared/text.ts', 'src/client/main.tsx', 'tests/todos.test.ts'];
    expect(await check(dir)).toMatchObject({ code: 0, checked: true });
    expect(typed.sort()).toEqual(all.filter((path) => existsSync(join(dir, path))).sort());

    // A body-only edit of the shared file (its declarations unchanged): that file alone is typed again.
    const shared = join(dir, 'src/shared/text.ts');
    edit(shared, (text) => text.replace('return text.trim();', 'return text.trim().toString();'));
    const body = await check(dir);
    expect(body).toMatchObject({ code: 0, checked: true });
    expect(typed).toEqual(['src/shared/text.ts']);
    expect(body.stdout).toBe(await freshAnswer(dir, 'one-edit-fresh-1'));

    // An edit of the client: the client alone.
    const client = join(dir, 'src/client/main.tsx');
    edit(client, (text) => text.replace('<main>', '<main class="todos">'));
    expect(await check(dir)).toMatchObject({ code: 0, checked: true });
    expect(typed).toEqual(['src/client/main.tsx']);

    // An edit of the server's endpoint body that keeps its declarations: the server alone.
    const server = join(dir, 'src/server/index.ts');
    edit(server, (text) => text.replace("new Response('ok')", "new Response('fine')"));
    const serverEdit = await check(dir);
    expect(serverEdit).toMatchObject({ code: 0, checked: true });
    expect(typed).toEqual(['src/server/index.ts']);
    expect(serverEdit.stdout).toBe(await freshAnswer(dir, 'one-edit-fresh-2'));

    // A change of the shared file's exported type: it and every file importing it are typed again, and the error found.
    edit(shared, (text) => text.replace('clean(text: string): string', 'clean(text: number): string').replace('text.trim()', 'String(text).trim()'));
    const typeChange = await check(dir);
    expect(typeChange).toMatchObject({ code: 1, checked: true });
    expect(typed).toEqual(expect.arrayContaining(['src/shared/text.ts', 'src/server/index.ts', 'src/client/main.tsx']));
    expect(codes(typeChange.stdout)).toContain('DG1205');
    expect(typeChange.stdout).toBe(await freshAnswer(dir, 'one-edit-fresh-3'));
  }, 120_000);

  it('altered or signed by another key, are not used: the edited project is typed whole', async () => {
    const dir = project('forged-results', baseApp());
    const server = join(dir, 'src/server/index.ts');
    const good = readFileSync(server, 'utf8');
    writeFileSync(server, `${good}\nexport const broken: number = 'not a number';\n`);
    expect((await check(dir)).code).toBe(1);
    const file = join(dir, CHECK_CACHE_FILE);
    const kept = JSON.parse(readFileSync(file, 'utf8')) as KeptFile;
    // The server's kept result altered to hold no error, and the source edited (a comment) so the answer is not used.
    const entry = kept.results.checked['src/server/index.ts']!;
    const altered = { ...kept, results: { ...kept.results, checked: { ...kept.results.checked, 'src/server/index.ts': { ...entry, diagnostics: [] } } } };
    writeFileSync(file, JSON.stringify(altered));
    edit(server, (text) => `${text}// edited\n`);
    const answer = await check(dir);
    expect(answer).toMatchObject({ code: 1, checked: true });
    expect(codes(answer.stdout)).toContain('DG1205');
    expect(typed.sort()).toEqual(['src/client/main.tsx', 'src/server/index.ts', 'src/shared/text.ts', 'tests/todos.test.ts'].filter((path) => existsSync(join(dir, path))).sort());

    // Kept by another build (another key): typed whole again.
    const other = { key: randomBytes(32), identity: KEY.identity };
    edit(server, (text) => `${text}// edited again\n`);
    expect(await check(dir, { signing: other })).toMatchObject({ code: 1, checked: true });
    expect(typed.length).toBeGreaterThan(1);
  }, 120_000);
});

describe('which invocations keep an answer', () => {
  it('check with at most a directory and --json', () => {
    expect(checkDirectory(['check'])).toBe('.');
    expect(checkDirectory(['--json', 'check', 'app'])).toBe('app');
    expect(checkDirectory(['check', 'app', '--json'])).toBe('app');
    expect(checkDirectory(['check', '--help'])).toBeUndefined();
    expect(checkDirectory(['check', 'a', 'b'])).toBeUndefined();
    expect(checkDirectory(['build', 'app'])).toBeUndefined();
  });

  it('the checkout’s own templates get no .platform/ (tests and `platform new` copy them whole)', async () => {
    const dir = join(ROOT, 'templates/todo');
    const made = !existsSync(join(dir, '.platform'));
    try {
      expect((await check(dir)).code).toBe(0);
      expect(existsSync(join(dir, CHECK_CACHE_FILE))).toBe(false);
    } finally {
      if (made) rmSync(join(dir, '.platform'), { recursive: true, force: true });
    }
  }, 60_000);

  it('a directory without a manifest gets no .platform/', async () => {
    const dir = project('no-manifest', { 'README.md': 'nothing here\n' });
    expect((await check(dir)).code).toBe(1);
    expect(existsSync(join(dir, '.platform'))).toBe(false);
  });
});

describe('platform check as installed', () => {
  it('answers the same from its kept answer as when it checked, and keeps it unchanged', async () => {
    // The test setup builds the CLI; the sources keep no answer (their build is not current).
    expect(prebuiltEntry(new URL(`file://${ROOT}/`))).toBeDefined();
    const dir = join(work, 'installed');
    cpSync(join(ROOT, 'templates/todo'), dir, { recursive: true });
    const run = async () => succeeded(await runCli(['check', '--json', dir], { bin: PLATFORM_LAUNCHER, env: { PLATFORM_CLI_SOURCES: '' } }));
    const first = await run();
    const kept = statSync(join(dir, CHECK_CACHE_FILE)).mtimeMs;
    const second = await run();
    expect(second.stdout).toBe(first.stdout);
    expect(statSync(join(dir, CHECK_CACHE_FILE)).mtimeMs).toBe(kept);
    expect(JSON.parse(second.stdout)).toMatchObject({ command: 'check', ok: true });
  }, 60_000);
});
