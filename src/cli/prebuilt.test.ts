/**
 * The prebuilt CLI (scripts/build-cli.ts into build/cli/) and bin/platform.mjs's choice between it and
 * the sources: the prebuilt entry only while every input is older than the build, the sources otherwise.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prebuiltEntry } from '../../bin/prebuilt.mjs';
import { baseApp } from '../core/analyze/__fixtures__/base-app';
import { buildCli, CLI_DIR, CLI_INPUTS, CLI_MAIN, ROOT, type CliInputs } from '../../scripts/build-cli';
import { envelopeOf, PLATFORM_MJS, runCliSync, succeeded } from '../testing/cli';

describe('bin/platform.mjs picks the prebuilt CLI only while it is current', () => {
  // A checkout of its own: the real bin and node_modules, an entry of each kind that says which ran.
  let root: string;
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  const entry = (kind: string) =>
    `export async function main(args) { process.stdout.write(${JSON.stringify(kind)} + ' ' + args.join(' ')); return 0; }\nexport async function runProcess(args) { process.exitCode = await main(args); }\n`;
  const run = (env: Record<string, string> = {}) => succeeded(runCliSync(['check', '.'], { bin: join(root, 'bin/platform.mjs'), env: { PLATFORM_CLI_SOURCES: '', ...env } })).stdout;
  const built = (builtAt: number, inputs: string[]) => write(CLI_INPUTS, JSON.stringify({ builtAt, inputs }));

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'platform-prebuilt-'));
    mkdirSync(join(root, 'bin'));
    for (const name of ['platform.mjs', 'prebuilt.mjs', 'crash.mjs', 'check-server.mjs']) copyFileSync(join(ROOT, 'bin', name), join(root, 'bin', name));
    symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'), 'dir');
    write('package.json', JSON.stringify({ type: 'module' }));
    write('src/cli/main.ts', entry('sources'));
    write(CLI_MAIN, entry('prebuilt'));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('runs the prebuilt entry when no input changed after the build', () => {
    built(Date.now() + 60_000, ['src/cli/main.ts']);
    expect(run()).toBe('prebuilt check .');
  });

  it('runs the sources when an input is newer than the build', () => {
    const builtAt = Date.now() - 60_000;
    built(builtAt, ['src/cli/main.ts']);
    const now = new Date();
    utimesSync(join(root, 'src/cli/main.ts'), now, now);
    expect(run()).toBe('sources check .');
  });

  it('runs the sources when an input is gone', () => {
    built(Date.now() + 60_000, ['src/cli/main.ts', 'src/core/removed.ts']);
    expect(run()).toBe('sources check .');
  });

  it('runs the sources when there is no build, or when PLATFORM_CLI_SOURCES=1', () => {
    built(Date.now() + 60_000, ['src/cli/main.ts']);
    expect(run({ PLATFORM_CLI_SOURCES: '1' })).toBe('sources check .');
    rmSync(join(root, CLI_INPUTS));
    expect(run()).toBe('sources check .');
  });
});

/**
 * The checkout's build record, as the test setup's build (scripts/build-cli.ts) wrote it; built again
 * only when stale. Not rebuilt while current: a build gives the CLI a new identity (a new check server,
 * a new key for kept answers) under the feet of the tests running beside this one.
 */
async function currentBuild(): Promise<CliInputs> {
  if (prebuiltEntry(pathToFileURL(`${ROOT}/`))) return JSON.parse(readFileSync(join(ROOT, CLI_INPUTS), 'utf8')) as CliInputs;
  return buildCli();
}

describe('the prebuilt CLI', () => {
  it('lists the checkout files it was built from, and answers --help without loading TypeScript', async () => {
    const { builtAt, inputs } = await currentBuild();
    expect(builtAt).toBeLessThanOrEqual(Date.now());
    expect(inputs).toContain('src/cli/main.ts');
    expect(inputs).toContain('src/core/analyze/typecheck.ts');
    expect(inputs.every((path) => !path.includes('node_modules') && !path.startsWith('/'))).toBe(true);
    const probe = [
      `const { main } = await import(${JSON.stringify(join(ROOT, CLI_MAIN))});`,
      "let out = ''; const io = { cwd: process.cwd(), stdout: { write: (t) => (out += t) }, stderr: process.stderr };",
      "const code = await main(['--help'], io);",
      "const loaded = Object.keys((await import('node:module')).createRequire(import.meta.url).cache).filter((path) => path.includes('/typescript/'));",
      'process.stdout.write(JSON.stringify({ code, help: out.split("\\n")[0], loaded }));',
    ].join('\n');
    const result = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', probe], { encoding: 'utf8' }));
    expect(result).toEqual({ code: 0, help: expect.stringMatching(/^platform \d+\.\d+\.\d+: check, build, test and deploy/), loaded: [] });
  });

  // Started the ordinary way (the commands that type-check otherwise start from the snapshot, TypeScript loaded already).
  it('checks an app with TypeScript from V8\'s code cache once a run has written it, with the same result', async () => {
    await currentBuild();
    const cache = join(ROOT, CLI_DIR, 'typescript.cache');
    rmSync(cache, { force: true });
    const app = mkdtempSync(join(tmpdir(), 'platform-prebuilt-app-'));
    try {
      for (const [path, text] of Object.entries(baseApp())) {
        mkdirSync(dirname(join(app, path)), { recursive: true });
        writeFileSync(join(app, path), text);
      }
      const check = () => envelopeOf(succeeded(runCliSync(['check', '--json', app], { bin: PLATFORM_MJS, env: { PLATFORM_CLI_SOURCES: '', PLATFORM_CLI_SNAPSHOT: '0' } })));
      const first = check();
      expect(first).toMatchObject({ ok: true, command: 'check' });
      expect(existsSync(cache)).toBe(true);
      const written = statSync(cache).mtimeMs;
      expect(check()).toEqual(first);
      // Accepted, so not written again.
      expect(statSync(cache).mtimeMs).toBe(written);
    } finally {
      rmSync(app, { recursive: true, force: true });
    }
  });
});
