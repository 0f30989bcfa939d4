/** platform init and new --framework through the CLI: a fixture Vite project whose build script is a small node script. */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeCompiler } from '../adapters/node/compiler';
import type { Compiler } from '../core/build';
import { runInProcess } from '../testing/cli';

let work: string;
let shared: Compiler | undefined;

async function run(args: string[]) {
  const { code, stdout } = await runInProcess([...args, '--json'], { cwd: work, compiler: async () => (shared ??= nodeCompiler()) });
  return { code, envelope: JSON.parse(stdout) as { ok: boolean; diagnostics: Array<{ code: string; message: string }>; result?: Record<string, unknown> } };
}

const BUILD = `import { mkdirSync, writeFileSync } from 'node:fs';
mkdirSync('dist/assets', { recursive: true });
writeFileSync('dist/index.html', '<!doctype html><title>Shop</title><script type="module" src="/assets/app.js"></script><div id="root"></div>');
writeFileSync('dist/assets/app.js', 'document.getElementById("root").textContent = "built by vite";');
`;

/** A Vite-shaped project: package.json with vite and a build script, its own files; `change` edits it. */
function viteProject(name: string, change: Record<string, string | null> = {}): string {
  const dir = join(work, name);
  const files: Record<string, string | null> = {
    'package.json': `${JSON.stringify({ name: 'shop-ui', private: true, type: 'module', scripts: { build: 'node build.mjs' }, devDependencies: { vite: '^8.3.8' } }, null, 2)}\n`,
    'build.mjs': BUILD,
    'index.html': '<!doctype html><div id="root"></div><script type="module" src="/src/main.ts"></script>\n',
    'src/main.ts': 'document.getElementById("root")!.textContent = "hello";\n',
    ...change,
  };
  for (const [path, text] of Object.entries(files)) {
    if (text === null) continue;
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'platform-init-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('platform init', () => {
  it('adds the platform files, leaves the project\'s own untouched, runs the build and makes its output the artifact\'s client', async () => {
    const dir = viteProject('ok');
    const before = ['package.json', 'index.html', 'src/main.ts', 'build.mjs'].map((p) => readFileSync(join(dir, p), 'utf8'));
    const { code, envelope } = await run(['init', dir]);
    expect(envelope.diagnostics).toEqual([]);
    expect(code).toBe(0);
    expect(envelope.result).toMatchObject({ framework: 'vite', wrote: ['app.manifest.json', 'platform/server/index.ts', 'platform/client/main.ts', '.platform/framework.json'] });
    expect(['package.json', 'index.html', 'src/main.ts', 'build.mjs'].map((p) => readFileSync(join(dir, p), 'utf8'))).toEqual(before);
    const id = String(envelope.result!.artifactId);
    const record = JSON.parse(readFileSync(join(dir, '.platform/artifacts', `${id.slice('sha256:'.length)}.json`), 'utf8')) as { files: Record<string, { sha256: string }> };
    const blob = (path: string) => readFileSync(join(dir, '.platform/blobs', record.files[path]!.sha256), 'utf8');
    expect(blob('client/index.html')).toContain('<title>Shop</title>');
    expect(blob('public/assets/app.js')).toContain('built by vite');
    expect(Object.keys(record.files).filter((p) => p.startsWith('client/'))).toEqual(['client/index.html']);
    // The server definition init wrote is the app's contract: check passes; init again keeps its files.
    expect((await run(['check', dir])).code).toBe(0);
    const again = await run(['init', dir]);
    expect(again.envelope.diagnostics).toEqual([]);
    // platform build takes the framework's output too.
    const built = await run(['build', dir]);
    expect(built.envelope.result).toMatchObject({ artifactId: id });
  });

  it.each<[string, Record<string, string | null>, string, string]>([
    ['DG3201 without a package.json', { 'package.json': null }, 'DG3201', 'no package.json'],
    ['DG3201 without a framework package', { 'package.json': '{ "name": "x", "dependencies": { "left-pad": "1.0.0" } }\n' }, 'DG3201', 'no supported framework'],
    ['DG3202 for a manifest init did not write', { 'app.manifest.json': '{ "mine": true }\n' }, 'DG3202', 'app.manifest.json already exists'],
    ['DG3203 for an unreadable package.json', { 'package.json': '{ "name": ' }, 'DG3203', 'cannot be read as JSON'],
    ['DG3204 without a build script', { 'package.json': '{ "name": "x", "devDependencies": { "vite": "^8.0.0" } }\n' }, 'DG3204', 'no "build" script'],
    ['DG3204 when the build script fails', { 'build.mjs': 'console.error("vite: boom"); process.exit(3);\n' }, 'DG3204', 'failed (exit 3)'],
    ['DG3205 for an outDir outside the project', { 'package.json': '{ "name": "x", "scripts": { "build": "node build.mjs" }, "devDependencies": { "vite": "^8.0.0" }, "platform": { "outDir": "../elsewhere" } }\n' }, 'DG3205', 'platform.outDir'],
    ['DG3205 for scripts that are not an object', { 'package.json': '{ "name": "x", "scripts": ["build"], "devDependencies": { "vite": "^8.0.0" } }\n' }, 'DG3205', '"scripts" is not an object'],
    ['DG3206 when the platform files cannot be written', { platform: 'a file where the platform/ folder goes\n' }, 'DG3206', 'Setting the project up'],
    ['DG3207 for a build that writes nothing deployable', { 'build.mjs': 'console.log("built nothing");\n' }, 'DG3207', 'dist/index.html is missing'],
  ])('%s', async (name, change, code, message) => {
    const dir = viteProject(name.replace(/\W+/g, '-'), change);
    const { code: status, envelope } = await run(['init', dir]);
    expect(status).toBe(1);
    expect(envelope.diagnostics[0]).toMatchObject({ code, message: expect.stringContaining(message) });
  });

  it('DG3202 writes nothing, and leaves the existing file as it was', async () => {
    const dir = viteProject('foreign', { 'platform/server/index.ts': 'export const mine = 1;\n' });
    await run(['init', dir]);
    expect(readFileSync(join(dir, 'platform/server/index.ts'), 'utf8')).toBe('export const mine = 1;\n');
    expect(existsSync(join(dir, 'app.manifest.json'))).toBe(false);
  });

  it('DG3208: a command that needs the application contract, in a framework project init has not set up', async () => {
    const dir = viteProject('bare');
    for (const command of ['check', 'test', 'build']) {
      const { envelope } = await run([command, dir]);
      expect(envelope.diagnostics.map((d) => d.code), command).toContain('DG3208');
    }
  });
});

describe('platform new --framework', () => {
  it('creates a Vite project with the platform files, which init then builds', async () => {
    const dir = join(work, 'made-vite');
    const { code, envelope } = await run(['new', dir, '--framework', 'vite']);
    expect(envelope.diagnostics).toEqual([]);
    expect(code).toBe(0);
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    expect(pkg).toMatchObject({ scripts: { build: 'vite build' }, devDependencies: { vite: expect.any(String) } });
    for (const path of ['index.html', 'src/main.ts', 'app.manifest.json', 'platform/server/index.ts', '.platform/framework.json']) expect(existsSync(join(dir, path)), path).toBe(true);
    // A real `vite build`: the project's node_modules are this checkout's (which has Vite), as `npm install` would give it.
    symlinkSync(join(import.meta.dirname, '../../node_modules'), join(dir, 'node_modules'), 'dir');
    const initialised = await run(['init', dir]);
    expect(initialised.envelope.diagnostics).toEqual([]);
    const id = String(initialised.envelope.result!.artifactId);
    expect(id).toMatch(/^sha256:/);
    // Vite's output is the artifact's client: its document, and its hashed module under assets/.
    const record = JSON.parse(readFileSync(join(dir, '.platform/artifacts', `${id.slice('sha256:'.length)}.json`), 'utf8')) as { files: Record<string, { sha256: string }> };
    const html = readFileSync(join(dir, '.platform/blobs', record.files['client/index.html']!.sha256), 'utf8');
    const script = /src="\/(assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script, html).toBeDefined();
    expect(Object.keys(record.files)).toContain(`public/${script}`);
  });

  it.each([
    [['--framework', 'next'], 'DG3006'],
    [['--framework', 'vite', '--ui', 'react'], 'DG3004'],
    [['--framework', 'vite', '--template', 'todo'], 'DG3005'],
  ])('%j is %s', async (args, code) => {
    const { envelope } = await run(['new', join(work, 'never'), ...args]);
    expect(envelope.diagnostics.map((d) => d.code)).toContain(code);
    expect(existsSync(join(work, 'never'))).toBe(false);
  });
});
