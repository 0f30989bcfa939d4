import * as esbuild from 'esbuild';
import { decode } from '@jridgewell/sourcemap-codec';
import { describe, expect, it } from 'vitest';
import { nodeLibrary } from '../../adapters/node/library';
import { nodeTemplates } from '../../adapters/node/templates';
import { TypeCheckSession } from '../analyze';
import { MemoryFileSystem } from '../fs';
import { compileProject } from '../build';
import { QUICK_BUNDLE_MARK, QUICK_SOURCE_LIMIT, quickBundle, quickLibrary } from './quick-bundle';

const library = nodeLibrary();
const compiler = { esbuild, library, typecheck: new TypeCheckSession(library) };
const linked = quickLibrary(library);
const decoder = new TextDecoder();
const templates = nodeTemplates();
const todo = templates.find((template) => template.id === 'todo')!.files as Record<string, string>;

/** The server bundle's module, imported as the playground's sandbox imports it. */
async function serverOf(files: ReadonlyMap<string, Uint8Array>): Promise<{ default: { queries?: Record<string, { kind: string }>; mutations?: Record<string, { kind: string }>; tables?: object } }> {
  return import(`data:text/javascript,${encodeURIComponent(decoder.decode(files.get('server/index.js')))}`);
}

/** A small app: the todo template with these files over it. */
const app = (files: Record<string, string>) => ({ ...todo, ...files });

async function declined(files: Record<string, string>): Promise<string> {
  const outcome = await quickBundle(files, linked);
  if (outcome.ok) throw new Error('The quick path linked what it should decline.');
  return outcome.reason;
}

describe('the quick preview bundle', () => {
  it.each(templates.filter((template) => template.id !== 'todo-react').map((template) => template.id))('links the %s template to a server with the operations esbuild bundles', async (id) => {
    const files = templates.find((template) => template.id === id)!.files as Record<string, string>;
    const quick = await quickBundle(files, linked);
    if (!quick.ok) throw new Error(quick.reason);
    const bundled = await compileProject(new MemoryFileSystem(files), compiler, { targets: ['client', 'server'], typecheck: false });
    expect([...quick.files.keys()].sort()).toEqual([...bundled.files!.keys()].filter((path) => path !== 'client/app.css.map').sort());
    const [ours, theirs] = [await serverOf(quick.files), await serverOf(bundled.files!)];
    const shape = (definition: typeof ours.default) => ({
      queries: Object.entries(definition.queries ?? {}).map(([name, query]) => [name, query.kind]),
      mutations: Object.entries(definition.mutations ?? {}).map(([name, mutation]) => [name, mutation.kind]),
      tables: JSON.stringify(definition.tables),
    });
    expect(shape(ours.default)).toEqual(shape(theirs.default));
    expect(decoder.decode(quick.files.get('client/app.js')).startsWith(QUICK_BUNDLE_MARK)).toBe(true);
    expect(quick.files.get('client/index.html')).toEqual(bundled.files!.get('client/index.html'));
  });

  it('evaluates modules in the order their imports would be, wherever the import stands', async () => {
    const files = app({
      'src/server/index.ts': `${todo['src/server/index.ts']}\nexport const seen = order.join(',');\nimport { order } from './b';\n`,
      'src/server/b.ts': `import { order } from './a';\norder.push('b');\nexport { order };\n`,
      'src/server/a.ts': `export const order: string[] = [];\norder.push('a');\n`,
    });
    const quick = await quickBundle(files, linked);
    if (!quick.ok) throw new Error(quick.reason);
    const code = decoder.decode(quick.files.get('server/index.js')).replace(/export default (.*);\n$/, 'export default $1; export const seen = __platformQuickRequire("app:src/server/index.ts").seen;\n');
    const module = (await import(`data:text/javascript,${encodeURIComponent(code)}`)) as { seen: string };
    expect(module.seen).toBe('a,b');
  });

  it("runs a client that imports its stylesheets and JSON, with the stylesheets in app.css in the order they are imported", async () => {
    const files = app({
      'src/client/main.tsx': `import './first.css';\nimport data from './data.json';\nimport { MAX_TITLE } from '../shared/todo';\nimport './second.css';\n(globalThis as any).clientRan = [data.name, MAX_TITLE];\n`,
      'src/client/first.css': 'h1 { color: red; }',
      'src/client/second.css': 'h2 { color: blue; }',
      'src/client/data.json': '{ "name": "data" }',
    });
    const quick = await quickBundle(files, linked);
    if (!quick.ok) throw new Error(quick.reason);
    await import(`data:text/javascript,${encodeURIComponent(decoder.decode(quick.files.get('client/app.js')))}`);
    expect((globalThis as { clientRan?: unknown }).clientRan).toEqual(['data', 200]);
    expect(decoder.decode(quick.files.get('client/app.css'))).toBe('h1 { color: red; }\nh2 { color: blue; }');
    expect(decoder.decode(quick.files.get('client/index.html'))).toContain('app.css');
  });

  it('binds default, namespace and re-exported imports before the body, wherever the import stands', async () => {
    const files = app({
      'src/server/index.ts': `${todo['src/server/index.ts']}\n(globalThis as any).bound = [def(), ns.named, again.named, star.named, nested.inner.named, side()];\nimport def from './def';\nimport * as ns from './named';\nimport { again } from './again';\nimport * as star from './star';\nimport * as nested from './nested';\nimport { side } from './side';\nimport './effect';\n`,
      'src/server/def.ts': `export default function def() {\n  return 'default';\n}\n`,
      'src/server/named.ts': `export const named = 'named';\n`,
      'src/server/again.ts': `export * as again from './named';\n`,
      'src/server/star.ts': `export * from './named';\n`,
      'src/server/nested.ts': `export * as inner from './named';\n`,
      'src/server/side.ts': `import { named } from './named';\nexport { named as side0 };\nexport function side() {\n  return (globalThis as any).effect ?? 'no effect yet';\n}\n`,
      'src/server/effect.ts': `(globalThis as any).effect = 'effect';\n`,
    });
    const quick = await quickBundle(files, linked);
    if (!quick.ok) throw new Error(quick.reason);
    await serverOf(quick.files);
    // ES modules run every import first, in order: the side effect ran before the body read it.
    expect((globalThis as { bound?: unknown }).bound).toEqual(['default', 'named', 'named', 'named', 'named', 'effect']);
  });

  it('links a dynamic import without evaluating it first, and defines process.env.NODE_ENV outside strings only', async () => {
    const files = app({
      'src/server/index.ts': `${todo['src/server/index.ts']}\n(globalThis as any).lazyServer = () => import('./lazy');\n(globalThis as any).env = [process.env.NODE_ENV, 'process.env.NODE_ENV'];\n`,
      'src/server/lazy.ts': `(globalThis as any).lazyRan = true;\nexport const lazy = 1;\n`,
    });
    const quick = await quickBundle(files, linked);
    if (!quick.ok) throw new Error(quick.reason);
    const global = globalThis as { lazyServer?: () => Promise<{ lazy: number }>; lazyRan?: boolean; env?: string[] };
    await serverOf(quick.files);
    expect(global.lazyRan).toBeUndefined();
    expect(global.env).toEqual(['production', 'process.env.NODE_ENV']);
    expect((await global.lazyServer!()).lazy).toBe(1);
    expect(global.lazyRan).toBe(true);
  });

  it("maps the server's lines to the files they came from, with their text", async () => {
    const quick = await quickBundle(todo, linked);
    if (!quick.ok) throw new Error(quick.reason);
    const code = decoder.decode(quick.files.get('server/index.js')).split('\n');
    const map = JSON.parse(decoder.decode(quick.files.get('server/index.js.map'))) as { sources: string[]; sourcesContent: string[]; mappings: string };
    const lines = decode(map.mappings);
    const source = todo['src/server/index.ts']!.split('\n');
    const at = source.findIndex((line) => line.includes('todos.list'));
    const generated = code.findIndex((line, at) => line.includes("'todos.list'") && at > code.findIndex((header) => header.includes('"app:src/server/index.ts": [')));
    const [segment] = lines[generated]!;
    expect(map.sources[segment![1]!]).toBe('app:src/server/index.ts');
    expect(segment![2]).toBe(at);
    expect(map.sourcesContent[segment![1]!]).toBe(todo['src/server/index.ts']);
  });

  it('declines what it cannot link as esbuild would, with the reason', async () => {
    expect(await declined(templates.find((template) => template.id === 'todo-react')!.files as Record<string, string>)).toMatch(/imports "react"/);
    expect(await declined(app({ 'src/shared/todo.ts': `import left from 'left-pad';\n${todo['src/shared/todo.ts']}\nexport const padded = left('x', 2);` }))).toMatch(/imports "left-pad"/);
    expect(await declined(app({ 'src/shared/todo.ts': `import { x } from './other';\n${todo['src/shared/todo.ts']}\nexport const y = 1;\nexport const z = x;`, 'src/shared/other.ts': `import { y } from './todo';\nexport const x = y;\n` }))).toMatch(/import cycle/);
    expect(await declined(app({ 'src/client/main.tsx': `await Promise.resolve();\n${todo['src/client/main.tsx']}` }))).toMatch(/cannot run as a linked module/);
    expect(await declined(app({ 'src/client/main.tsx': `console.log(import.meta.url);\n${todo['src/client/main.tsx']}` }))).toMatch(/import\.meta/);
    expect(await declined(app({ 'src/client/style.css': `@import './more.css';\n` }))).toMatch(/@import/);
    expect(await declined(app({ 'src/client/main.tsx': `import logo from '../../public/favicon.svg';\n${todo['src/client/main.tsx']}\nconsole.log(logo);` }))).toMatch(/asset/);
    expect(await declined(app({ 'src/server/index.ts': `import { useQuery } from 'platform/client';\n${todo['src/server/index.ts']}\nexport const hook = useQuery;` }))).toMatch(/server: .* imports "platform\/client"/);
    expect(await declined(app({ 'public/index.html': '<p>mine</p>' }))).toMatch(/refused by the bundler/);
    expect(await declined(app({ 'src/shared/big.ts': `export const big = '${'x'.repeat(QUICK_SOURCE_LIMIT)}';\n` }))).toMatch(/more than the \d+ the quick preview takes/);
    expect(await declined(app({ 'src/shared/todo.ts': `${todo['src/shared/todo.ts']}\nexport const broken = ;\n` }))).toMatch(/Sucrase could not read|cannot run/);
  });
});
