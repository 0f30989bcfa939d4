/**
 * A project's own npm packages through the CLI: fixture projects on disk with real package folders
 * in node_modules, checked, built and tested (the tests run the bundled server in workerd).
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeCompiler } from '../adapters/node/compiler';
import type { Compiler } from '../core/build';
import { NODE_DIGEST, packageApp, UNTYPED_PAD, type PackageAppOptions } from '../core/build/__fixtures__/package-app';
import type { Diagnostic } from '../core/diagnostics';
import { runInProcess } from '../testing/cli';

let work: string;
let shared: Compiler | undefined;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'platform-packages-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

function project(name: string, options: PackageAppOptions = {}): string {
  const dir = join(work, name);
  for (const [path, text] of Object.entries(packageApp(options))) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

async function run(args: string[]) {
  const { code, stdout } = await runInProcess(args, { cwd: work, compiler: async () => (shared ??= nodeCompiler()) });
  return { code, stdout };
}

async function envelope(args: string[]) {
  const { code, stdout } = await run([...args, '--json']);
  return { code, envelope: JSON.parse(stdout) as { ok: boolean; diagnostics: Diagnostic[]; result?: Record<string, unknown> } };
}

/** The finish event of `platform test --json`. */
async function testRun(dir: string) {
  const { code, stdout } = await run(['test', dir, '--json']);
  const events = stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
  return { code, events, finish: events.at(-1) as { ok: boolean; passed: number; failed: number; diagnostics: Diagnostic[] } };
}

describe('packages typed by `types` and by `exports` conditions', () => {
  let dir: string;
  beforeAll(() => {
    dir = project('typed');
  });

  it('check finds their declarations (no TS2307)', async () => {
    const { code, envelope: result } = await envelope(['check', dir]);
    expect(result.diagnostics).toEqual([]);
    expect(code).toBe(0);
  });

  it('check still types calls into them', async () => {
    const broken = project('typed-misuse');
    writeFileSync(join(broken, 'src/client/main.tsx'), `import { slug } from 'tiny-slug';\nimport { label } from '@acme/fmt';\nconsole.log(slug(42), label('x', { prefix: 1 }));\n`);
    const { code, envelope: result } = await envelope(['check', broken]);
    expect(code).toBe(1);
    expect(result.diagnostics).toEqual([
      expect.objectContaining({ code: 'DG1205', file: 'src/client/main.tsx', span: expect.objectContaining({ line: 3, column: 18 }), message: expect.stringMatching(/^TS2345 .*'number'.*'string'/) }),
      expect.objectContaining({ code: 'DG1205', file: 'src/client/main.tsx', span: expect.objectContaining({ line: 3, column: 36 }), message: expect.stringMatching(/^TS2322 /) }),
    ]);
  });

  it('build bundles them into a verified artifact', async () => {
    const { code, envelope: result } = await envelope(['build', dir]);
    expect(result.diagnostics).toEqual([]);
    expect(code).toBe(0);
    expect(result.result?.artifactId).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect((await envelope(['build', dir, '--verify'])).envelope.ok).toBe(true);
  });

  it('test runs the server with them in workerd', async () => {
    const { code, finish } = await testRun(dir);
    expect(finish).toMatchObject({ ok: true, passed: 1, failed: 0, diagnostics: [] });
    expect(code).toBe(0);
  }, 60_000);
});

describe('a package without types', () => {
  const imports = "import pad from 'untyped-pad';\nconsole.log(pad('x', 3));\n";

  it('is a DG1205 at the import in check, build and test, telling how to acknowledge it', async () => {
    const dir = project('untyped', { extra: [UNTYPED_PAD], serverImports: imports });
    for (const command of ['check', 'build']) {
      const { code, envelope: result } = await envelope([command, dir]);
      expect(code, command).toBe(1);
      expect(result.diagnostics, command).toEqual([
        expect.objectContaining({ code: 'DG1205', file: 'src/server/index.ts', span: expect.objectContaining({ line: 6, column: 17 }), message: expect.stringMatching(/^TS7016 Could not find a declaration file for module 'untyped-pad'. 'node_modules\/untyped-pad\/index.js' implicitly/), hint: expect.stringContaining('untypedDependencies') }),
      ]);
    }
    const { code, finish } = await testRun(dir);
    expect(code).toBe(1);
    expect(finish.diagnostics.map((d) => d.code)).toContain('DG1205');
  }, 60_000);

  it('is typed as any once acknowledged in untypedDependencies (DG1214), and bundles and runs', async () => {
    const dir = project('untyped-acknowledged', { extra: [UNTYPED_PAD], serverImports: imports, untyped: ['untyped-pad'] });
    const checked = await envelope(['check', dir]);
    expect(checked.envelope.diagnostics.map((d) => d.code)).toEqual(['DG1214']);
    expect(checked.code).toBe(0);
    expect((await envelope(['build', dir])).code).toBe(0);
    const { code, finish } = await testRun(dir);
    expect(finish).toMatchObject({ ok: true, passed: 1 });
    expect(code).toBe(0);
  }, 60_000);
});

describe('a package that imports a Node built-in, used by the server', () => {
  let dir: string;
  beforeAll(() => {
    dir = project('builtin', { extra: [NODE_DIGEST], serverImports: "import { digest } from 'node-digest';\nconsole.log(digest('x'));\n" });
  });

  it('type-checks (check does not bundle)', async () => {
    const { code, envelope: result } = await envelope(['check', dir]);
    expect(result.diagnostics).toEqual([]);
    expect(code).toBe(0);
  });

  it('is DG1502 in build, which writes no artifact', async () => {
    const { code, envelope: result } = await envelope(['build', dir]);
    expect(code).toBe(1);
    expect(result.diagnostics).toEqual([expect.objectContaining({ code: 'DG1502', message: expect.stringContaining('node_modules/node-digest/index.js imports the server-runtime built-in "node:crypto"') })]);
    expect(existsSync(join(dir, '.platform/latest.json'))).toBe(false);
  });

  it('is DG1502 in test, which runs nothing', async () => {
    const { code, finish } = await testRun(dir);
    expect(code).toBe(1);
    expect(finish).toMatchObject({ ok: false, passed: 0 });
    expect(finish.diagnostics.map((d) => d.code)).toContain('DG1502');
  }, 60_000);
});
