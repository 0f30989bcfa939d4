/**
 * The preview build's bundles kept across edits (BundleReuse): after a server-only edit the client is
 * not bundled again, after a client-only edit the server is not; either is bundled again when a shared
 * file, a package, the manifest or the file set changed, when the previous build failed, or when the
 * new graph disagrees. Over the real compiler (native esbuild, a kept Bundler as the playground's
 * worker has) and the templates' files.
 */
import * as esbuild from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { nodeLibrary } from '../../adapters/node/library';
import { templateFiles } from '../../testing/control-plane-apps';
import type { Project } from '../project';
import { MemoryFileSystem } from '../fs';
import { compileProject, type BuildOutcome } from './build';
import { Bundler, type BuildTarget, type BundleResult, type ProjectBundler } from '../bundle';
import { BundleReuse, type KeptTarget } from './bundle-reuse';
import { TypeCheckSession } from '../analyze';

const library = nodeLibrary();
const typecheck = new TypeCheckSession(library);

/** A kept Bundler that notes which targets each build asked for. */
class CountingBundler implements ProjectBundler {
  readonly bundler = new Bundler(esbuild, library);
  readonly asked: BuildTarget[][] = [];
  bundle(project: Project, targets: readonly BuildTarget[] = ['client', 'server', 'test'], options?: Parameters<Bundler['bundle']>[2]): Promise<BundleResult> {
    this.asked.push([...targets]);
    return this.bundler.bundle(project, targets, options);
  }
  dispose(): Promise<void> {
    return this.bundler.dispose();
  }
}

const bundler = new CountingBundler();
afterAll(() => bundler.dispose());

const template = templateFiles;
const TEMPLATES = ['todo', 'todo-react', 'files', 'team-board', 'endpoints'];

/** `files` with `path`'s text passed through `change`. */
const edit = (files: Record<string, string>, path: string, change: (text: string) => string): Record<string, string> => {
  const text = files[path];
  if (text === undefined) throw new Error(`no ${path}`);
  const changed = change(text);
  if (changed === text) throw new Error(`the edit of ${path} changed nothing`);
  return { ...files, [path]: changed };
};

type Compile = (targets: readonly BuildTarget[], files: Record<string, string>) => Promise<BuildOutcome>;

/** The build the playground's worker asks for (`previewMode`: the bundler's preview mode, the vendor script). */
const realCompile =
  (previewMode: boolean): Compile =>
  (targets, files) =>
    compileProject(new MemoryFileSystem(files), { esbuild, library, typecheck, bundler }, { targets, ...(previewMode ? { bundle: { preview: true } } : {}) });

interface Preview {
  outcome: BuildOutcome;
  kept: KeptTarget | undefined;
  /** What the decision before the build said could be kept (the graph may still disagree). */
  decided: KeptTarget | undefined;
  targets: BuildTarget[][];
  reason?: string;
}

/** A preview build through `reuse`. */
async function preview(reuse: BundleReuse, files: Record<string, string>, previewMode = false, compile: Compile = realCompile(previewMode)): Promise<Preview> {
  const before = bundler.asked.length;
  const { outcome, kept, decision } = await reuse.compile(files, (targets) => compile(targets, files));
  return { outcome, kept, decided: decision.keep, targets: bundler.asked.slice(before), ...(decision.keep ? {} : { reason: decision.reason }) };
}

const text = (outcome: BuildOutcome, path: string) => new TextDecoder().decode(outcome.files?.get(path));
const serverOutputs = (outcome: BuildOutcome) => [...(outcome.files ?? [])].filter(([path]) => path.startsWith('server/')).sort(([a], [b]) => (a < b ? -1 : 1));
const codes = (outcome: BuildOutcome) => outcome.diagnostics.map((d) => `${d.code} ${d.message}`).sort();

/** A server edit in the todo templates: each listed title gets a suffix. */
const serverEdit = (files: Record<string, string>, n: number) => edit(files, 'src/server/index.ts', (t) => t.replace('({ id: row.id, title: row.title', `({ id: row.id, title: \`\${row.title} v${n}\``));
/** A client edit in any template: its heading says so. */
const clientEdit = (files: Record<string, string>, n: number) => edit(files, 'src/client/main.tsx', (t) => t.replace('<h1>', `<h1>Edited ${n} `));

describe('the client of a preview build kept after a server-only edit', () => {
  it('bundles the server alone and serves the previous client, byte for byte, with the new server', async () => {
    const reuse = new BundleReuse();
    const files = template('todo');
    const first = await preview(reuse, files);
    expect(first.outcome.files?.has('client/app.js')).toBe(true);
    expect(first.targets).toEqual([['client', 'server']]);
    const edited = serverEdit(files, 1);
    const second = await preview(reuse, edited);
    expect(second.kept).toBe('client');
    expect(second.targets).toEqual([['server']]);
    expect(text(second.outcome, 'server/index.js')).toContain(' v1');
    expect(text(second.outcome, 'server/index.js')).not.toBe(text(first.outcome, 'server/index.js'));
    // Exactly what a full build of the edited files gives the client (a fresh BundleReuse bundles it).
    const full = await preview(new BundleReuse(), edited);
    expect(full.targets).toEqual([['client', 'server']]);
    for (const path of ['client/app.js', 'client/app.js.map', 'client/app.css', 'client/index.html']) {
      expect(second.outcome.files?.has(path), path).toBe(true);
      expect(text(second.outcome, path), path).toBe(text(full.outcome, path));
    }
    expect([...second.outcome.files!.keys()].sort()).toEqual([...full.outcome.files!.keys()].sort());
    // And again after that: the kept client serves a second server edit too.
    const third = await preview(reuse, serverEdit(files, 2));
    expect(third.targets).toEqual([['server']]);
    expect(text(third.outcome, 'server/index.js')).toContain(' v2');
  });

  it('bundles both again after an edit to a shared file (imported by both zones)', async () => {
    const reuse = new BundleReuse();
    const files = template('todo');
    await preview(reuse, files);
    const shared = await preview(reuse, edit(files, 'src/shared/todo.ts', (t) => t.replace('MAX_TITLE = 200', 'MAX_TITLE = 150')));
    expect(shared.kept).toBeUndefined();
    expect(shared.reason).toMatch(/src\/shared\/todo\.ts goes into the client's and the server's bundles/);
    expect(shared.targets).toEqual([['client', 'server']]);
    expect(text(shared.outcome, 'client/app.js')).toContain('150');
    expect(text(shared.outcome, 'server/index.js')).toContain('150');
  });

  it('bundles both again after an edit to the manifest, package.json, a package, tsconfig.json, or the file set', async () => {
    const files = {
      ...template('todo'),
      'package.json': '{"dependencies":{"left-pad":"1.0.0"}}\n',
      'node_modules/left-pad/package.json': '{"name":"left-pad","version":"1.0.0","main":"index.js"}\n',
      'node_modules/left-pad/index.js': 'export default 1;\n',
      'tsconfig.json': '{}\n',
    };
    const { 'src/client/style.css': _style, ...withoutStyle } = clientEdit(files, 9);
    const cases: Array<[string, Record<string, string>, RegExp]> = [
      ['the manifest', edit(files, 'app.manifest.json', (t) => t.replace(/"title": "[^"]*"/, '"title": "Renamed"')), /app\.manifest\.json may change either bundle/],
      ['package.json', edit(files, 'package.json', () => '{"name":"todo","dependencies":{"left-pad":"1.0.0"}}\n'), /package\.json may change either bundle/],
      ['a package', edit(files, 'node_modules/left-pad/index.js', () => 'export default 2;\n'), /node_modules\/left-pad\/index\.js may change either bundle/],
      ['tsconfig.json', edit(files, 'tsconfig.json', () => '{"compilerOptions":{}}\n'), /tsconfig\.json may change either bundle/],
      ['a new server file', { ...serverEdit(files, 3), 'src/server/extra.ts': 'export const x = 1;\n' }, /added, removed or renamed/],
      ['a new client file', { ...clientEdit(files, 3), 'src/client/extra.ts': 'export const x = 1;\n' }, /added, removed or renamed/],
      ['a client file removed', { ...withoutStyle, 'src/client/main.tsx': withoutStyle['src/client/main.tsx']!.replace("import './style.css';\n", '') }, /added, removed or renamed/],
      ['a client and a server edit', serverEdit(clientEdit(files, 4), 4), /src\/client\/main\.tsx goes into the client's bundle and src\/server\/index\.ts into the server's/],
    ];
    for (const [what, changed, reason] of cases) {
      const reuse = new BundleReuse();
      const first = await preview(reuse, files);
      expect(first.outcome.files, what).toBeDefined();
      const next = await preview(reuse, changed);
      expect(next.kept, what).toBeUndefined();
      expect(next.reason, what).toMatch(reason);
      expect(next.targets, what).toEqual([['client', 'server']]);
    }
  });

  it('bundles the client again when the previous build failed, and a type error still refuses the build', async () => {
    const reuse = new BundleReuse();
    const files = template('todo');
    // The first build has a type error in a server file: nothing is kept from it.
    const broken = edit(files, 'src/server/index.ts', (t) => `${t}\nexport const wrong: number = 'text';\n`);
    const first = await preview(reuse, broken);
    expect(first.outcome.files).toBeUndefined();
    const next = await preview(reuse, serverEdit(files, 4));
    expect(next.reason).toBe('no earlier successful build');
    expect(next.targets).toEqual([['client', 'server']]);
    // With a good build kept, a server edit with a type error is refused whole (no files), client kept or not.
    const refused = await preview(reuse, edit(serverEdit(files, 5), 'src/server/index.ts', (t) => `${t}\nexport const wrong: number = 'text';\n`));
    expect(refused.outcome.files).toBeUndefined();
    expect(refused.outcome.diagnostics.some((d) => d.severity === 'error')).toBe(true);
    // The refused build is not what the next edit is compared against: the good one still is.
    const after = await preview(reuse, serverEdit(files, 6));
    expect(after.kept).toBe('client');
    expect(text(after.outcome, 'server/index.js')).toContain(' v6');
  });

  it('still type-checks the client against the new contract: a server edit that breaks it is refused', async () => {
    const reuse = new BundleReuse();
    const files = template('todo');
    await preview(reuse, files);
    // The list query's rows lose their title, which the client reads: a type error in the client.
    const broken = edit(files, 'src/server/index.ts', (t) => t.replace('export type Todo = { id: string; title: string;', 'export type Todo = { id: string;').replace('({ id: row.id, title: row.title, ', '({ id: row.id, '));
    const next = await preview(reuse, broken);
    expect(next.outcome.files).toBeUndefined();
    expect(next.outcome.diagnostics.some((d) => d.severity === 'error' && d.file === 'src/client/main.tsx')).toBe(true);
  });

  it('keeps the client of a React app after a server edit (the bundler in preview mode, as the playground asks)', async () => {
    const reuse = new BundleReuse();
    const files = template('todo-react');
    const first = await preview(reuse, files, true);
    const next = await preview(reuse, edit(files, 'src/server/index.ts', (t) => t.replace('({ id: row.id, title: row.title', '({ id: row.id, title: `${row.title} v7`')), true);
    expect(next.targets).toEqual([['server']]);
    expect(text(next.outcome, 'client/app.js')).toBe(text(first.outcome, 'client/app.js'));
    expect(text(next.outcome, 'server/index.js')).toContain(' v7');
  });
});

describe('the server of a preview build kept after a client-only edit', () => {
  for (const name of TEMPLATES) {
    it(`${name}: bundles the client alone and keeps the server's outputs, byte for byte a full build's`, async () => {
      const reuse = new BundleReuse();
      const files = template(name);
      const first = await preview(reuse, files, true);
      expect(first.targets).toEqual([['client', 'server']]);
      const edited = clientEdit(files, 1);
      const second = await preview(reuse, edited, true);
      expect(second.kept).toBe('server');
      expect(second.targets).toEqual([['client']]);
      expect(text(second.outcome, 'client/app.js')).toContain('Edited 1');
      // The server's outputs are the build before's, byte for byte (the runtime is kept on them)…
      expect(serverOutputs(second.outcome).map(([path]) => path)).toEqual(['server/index.js', 'server/index.js.map']);
      expect(serverOutputs(second.outcome)).toEqual(serverOutputs(first.outcome));
      // …and exactly what a full build of the edited files gives: every file and every diagnostic.
      const full = await preview(new BundleReuse(), edited, true);
      expect(full.targets).toEqual([['client', 'server']]);
      expect([...second.outcome.files!.keys()].sort()).toEqual([...full.outcome.files!.keys()].sort());
      for (const [path, bytes] of full.outcome.files!) expect(second.outcome.files!.get(path), path).toEqual(bytes);
      expect(codes(second.outcome)).toEqual(codes(full.outcome));
    });
  }

  it('keeps the server after a stylesheet edit (the client imports it; the server cannot)', async () => {
    const reuse = new BundleReuse();
    const files = template('todo');
    const first = await preview(reuse, files);
    const styled = await preview(reuse, edit(files, 'src/client/style.css', (t) => `${t}\nh1 { color: red; }\n`));
    expect(styled.kept).toBe('server');
    expect(styled.targets).toEqual([['client']]);
    expect(text(styled.outcome, 'client/app.css')).toContain('red');
    expect(serverOutputs(styled.outcome)).toEqual(serverOutputs(first.outcome));
  });

  it('alternates: a server edit keeps the client, a client edit then keeps that new server, and the other way round', async () => {
    const reuse = new BundleReuse();
    const files = template('todo');
    await preview(reuse, files);
    const server = serverEdit(files, 1);
    const a = await preview(reuse, server);
    expect([a.kept, a.targets]).toEqual(['client', [['server']]]);
    const both = clientEdit(server, 1);
    const b = await preview(reuse, both);
    expect([b.kept, b.targets]).toEqual(['server', [['client']]]);
    expect(serverOutputs(b.outcome)).toEqual(serverOutputs(a.outcome));
    expect(text(b.outcome, 'server/index.js')).toContain(' v1');
    const c = await preview(reuse, serverEdit(clientEdit(files, 1), 2));
    expect([c.kept, c.targets]).toEqual(['client', [['server']]]);
    expect(text(c.outcome, 'client/app.js')).toBe(text(b.outcome, 'client/app.js'));
    // Each is what a full build of the same files gives.
    const full = await preview(new BundleReuse(), serverEdit(clientEdit(files, 1), 2));
    for (const [path, bytes] of full.outcome.files!) expect(c.outcome.files!.get(path), path).toEqual(bytes);
  });

  it('bundles both again when the previous build failed; a client type error is refused, and the good build is still kept', async () => {
    const reuse = new BundleReuse();
    const files = template('todo');
    const broken = (f: Record<string, string>) => edit(f, 'src/client/main.tsx', (t) => `${t}\nexport const wrong: number = 'text';\n`);
    expect((await preview(reuse, broken(files))).outcome.files).toBeUndefined();
    const next = await preview(reuse, clientEdit(files, 1));
    expect(next.reason).toBe('no earlier successful build');
    expect(next.targets).toEqual([['client', 'server']]);
    // With a good build kept, a client edit with a type error is refused whole, server kept or not.
    const refused = await preview(reuse, broken(clientEdit(files, 2)));
    expect(refused.decided).toBe('server');
    expect(refused.kept).toBeUndefined();
    expect(refused.outcome.files).toBeUndefined();
    expect(refused.outcome.diagnostics.some((d) => d.severity === 'error' && d.file === 'src/client/main.tsx')).toBe(true);
    const after = await preview(reuse, clientEdit(files, 3));
    expect([after.kept, after.targets]).toEqual(['server', [['client']]]);
    expect(text(after.outcome, 'client/app.js')).toContain('Edited 3');
  });

  it("bundles both again when the new graph disagrees: a client that switches its renderer (the server's JSX follows it)", async () => {
    const reuse = new BundleReuse();
    const files = template('todo');
    await preview(reuse, files);
    const react = edit(files, 'src/client/main.tsx', () => "import { createRoot } from 'react-dom/client';\nimport './style.css';\n\ncreateRoot(document.getElementById('app')!).render(<h1>React now</h1>);\n");
    const next = await preview(reuse, react);
    expect(next.decided).toBe('server');
    expect(next.kept).toBeUndefined();
    expect(next.targets).toEqual([['client'], ['client', 'server']]);
    expect(next.outcome.analysis.graph?.renderer).toBe('react');
    expect(next.outcome.files?.has('server/index.js')).toBe(true);
    expect(text(next.outcome, 'client/app.js')).toContain('React now');
  });

  it("bundles both again after an edit to a client file the server's bundle also read through a require() the graph does not follow", async () => {
    const reuse = new BundleReuse();
    const base = template('todo');
    const files = {
      ...edit(base, 'src/client/main.tsx', (t) => `import './helper.js';\n${t}`),
      'src/client/helper.js': 'exports.answer = 41;\n',
      'src/server/legacy.js': "const helper = require('../client/helper.js');\nexport const answer = helper.answer;\n",
      'src/server/index.ts': `import { answer } from './legacy.js';\n${base['src/server/index.ts']}\nexport const legacyAnswer = answer;\n`,
    };
    const first = await preview(reuse, files);
    expect(first.outcome.files).toBeDefined();
    // The graph has the helper in the client's zone alone; the server's source map names it too.
    expect(first.outcome.analysis.graph!.zones.server).not.toContain('src/client/helper.js');
    const next = await preview(reuse, edit(files, 'src/client/helper.js', () => 'exports.answer = 42;\n'));
    expect(next.kept).toBeUndefined();
    expect(next.reason).toMatch(/src\/client\/helper\.js goes into the client's and the server's bundles/);
    expect(next.targets).toEqual([['client', 'server']]);
    expect(text(next.outcome, 'server/index.js')).toContain('42');
    // A client edit the server does not read still keeps it.
    const heading = await preview(reuse, clientEdit(edit(files, 'src/client/helper.js', () => 'exports.answer = 42;\n'), 1));
    expect([heading.kept, heading.targets]).toEqual(['server', [['client']]]);
  });

  it("bundles both again when the new graph's server zone or server packages are not what they were", async () => {
    const files = template('todo');
    const doctored: Array<[string, (outcome: BuildOutcome) => void]> = [
      ['the server zone', (outcome) => outcome.analysis.graph!.zones.server.push('src/server/more.ts')],
      ['a server package', (outcome) => outcome.analysis.graph!.packages.push({ zone: 'server', specifier: 'left-pad', file: 'src/server/index.ts' })],
    ];
    for (const [what, change] of doctored) {
      const reuse = new BundleReuse();
      await preview(reuse, files);
      // The client-only build's graph is changed as it would be if a client edit could reach the server.
      const compile: Compile = async (targets, f) => {
        const outcome = await realCompile(false)(targets, f);
        if (targets.length === 1 && targets[0] === 'client') change(outcome);
        return outcome;
      };
      const next = await preview(reuse, clientEdit(files, 1), false, compile);
      expect(next.decided, what).toBe('server');
      expect(next.kept, what).toBeUndefined();
      expect(next.targets, what).toEqual([['client'], ['client', 'server']]);
    }
  });
});
