/**
 * The CLI bundle a WebContainer runs, checked the one way possible without network: laid out as it is
 * mounted (toolchain folder, npm's node_modules beside it) and run by Node's `node`, its output is the
 * CLI's own for the same project. The WebContainer's Node itself is not exercised here (docs/terminal.md).
 */
import { builtinModules } from 'node:module';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, runInProcess } from '../../testing/cli';
import { buildToolchain } from './toolchain-bundle';
import { CLI_ENTRY, TOOLCHAIN_DIR } from './toolchain';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

let workdir: string;
let files: Record<string, string>;

/** `platform <args>` through the real CLI in this process, as text and exit status. */
async function cli(args: string[], cwd: string): Promise<{ stdout: string; code: number }> {
  const { stdout, code } = await runInProcess(args, { cwd });
  return { stdout, code };
}

/** `node .platform-toolchain/cli.mjs <args>` in the mounted project, as in the container. */
async function bundled(args: string[]): Promise<{ stdout: string; code: number | null }> {
  const { stdout, code } = await runCli(args, { bin: join(workdir, TOOLCHAIN_DIR, CLI_ENTRY), cwd: workdir });
  return { stdout, code };
}

beforeAll(async () => {
  files = await buildToolchain(ROOT);
  // The container's working directory: the project at its root, the toolchain in its dot-folder.
  workdir = mkdtempSync(join(tmpdir(), 'platform-webcontainer-'));
  cpSync(join(ROOT, 'templates/todo'), workdir, { recursive: true });
  for (const [path, text] of Object.entries(files)) {
    const target = join(workdir, TOOLCHAIN_DIR, path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, text);
  }
  // What `npm install` in the toolchain folder gives (same versions: package.json pins this checkout's).
  symlinkSync(join(ROOT, 'node_modules'), join(workdir, TOOLCHAIN_DIR, 'node_modules'));
}, 60_000);

afterAll(() => rmSync(workdir, { recursive: true, force: true }));

describe('the toolchain', { timeout: 60_000 }, () => {
  it('pins the packages npm installs to this checkout\'s versions and bundles everything else', () => {
    const pkg = JSON.parse(files['package.json']!) as { type: string; dependencies: Record<string, string> };
    expect(pkg.type).toBe('module');
    expect(Object.keys(pkg.dependencies).sort()).toEqual(['esbuild', 'preact', 'sql.js', 'typescript']);
    expect(pkg.dependencies.typescript).toMatch(/^\d+\.\d+\.\d+$/);
    expect(Object.keys(files)).toEqual(expect.arrayContaining(['cli.mjs', 'worker/workerd-test.ts', 'src/modules/server.ts', 'templates/todo/app.manifest.json']));
    // No import of a package that npm does not install (ajv, jsonc-parser, hashes are inside the bundle).
    const imports = [...files['cli.mjs']!.matchAll(/^import .* from "([^"]+)";$/gm)].map((m) => m[1]);
    // Node's own modules may be named without `node:` (fflate's Node build imports "module").
    for (const specifier of imports) expect(builtinModules.includes(specifier!) || /^(node:|typescript|esbuild|sql\.js|preact)/.test(specifier!), specifier).toBe(true);
  });

  it('runs `platform check` with the same output as the CLI', async () => {
    const expected = await cli(['check', 'templates/todo'], ROOT);
    const actual = await bundled(['check']);
    expect(actual).toEqual(expected);
    expect(actual.stdout).toMatch(/^✓ todo: /);
  });

  it('runs `platform test` in workerd, as the CLI does', async () => {
    const actual = await bundled(['test']);
    expect(actual.code).toBe(0);
    expect(actual.stdout.trim().split('\n').at(-1)).toBe('6 passed, 0 failed');
  });

  it('reports a broken project with the CLI\'s diagnostics and exit status', async () => {
    writeFileSync(join(workdir, 'app.manifest.json'), '{ "nmae": 1 }');
    const actual = await bundled(['check', '--json']);
    cpSync(join(ROOT, 'templates/todo/app.manifest.json'), join(workdir, 'app.manifest.json'));
    const broken = mkdtempSync(join(tmpdir(), 'platform-broken-'));
    writeFileSync(join(broken, 'app.manifest.json'), '{ "nmae": 1 }');
    const expected = await cli(['check', '--json'], broken);
    rmSync(broken, { recursive: true, force: true });
    expect(actual.code).toBe(1);
    expect(actual).toEqual(expected);
  });

  it('knows its version and the templates of `platform new`', async () => {
    expect((await bundled(['--version'])).stdout.trim()).toBe((await cli(['--version'], ROOT)).stdout.trim());
    const created = await bundled(['new', 'made', '--template', 'files']);
    expect(created.code).toBe(0);
    expect(created.stdout).toContain('from the files template');
  });
});
