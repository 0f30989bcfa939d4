import { expect, test } from './profile';
import { nodeCompiler } from '../src/adapters/node/compiler';
import { baseApp, CLIENT, SERVER } from '../src/core/analyze/__fixtures__/base-app';
import { compileProject } from '../src/core/build';
import type { Diagnostic } from '../src/core/diagnostics';
import { MemoryFileSystem } from '../src/core/fs';

/** What the page exposes as `globalThis.__platformCompiler` (src/ui/compiler-client.ts). */
interface PageCompiler {
  ready: Promise<unknown>;
  compile(files: Record<string, string>, mode: 'build'): Promise<{ artifactId?: string; diagnostics: Diagnostic[]; files?: Record<string, Uint8Array> } | undefined>;
}

/** Compiles files in the page's compiler worker (esbuild-wasm and TypeScript in a Web Worker). */
async function compileInBrowser(page: import('@playwright/test').Page, files: Record<string, string>) {
  return page.evaluate(async (project) => {
    const compiler = (globalThis as unknown as { __platformCompiler: PageCompiler }).__platformCompiler;
    await compiler.ready;
    const result = await compiler.compile(project, 'build');
    return { id: result?.artifactId, diagnostics: result?.diagnostics, files: Object.keys(result?.files ?? {}).sort() };
  }, files);
}

test('the browser worker and the CLI give the same artifact id', async ({ page }) => {
  await page.goto('/');
  const browser = await compileInBrowser(page, baseApp());
  const node = await compileProject(new MemoryFileSystem(baseApp()), nodeCompiler());
  expect(browser.diagnostics).toEqual([]);
  expect(browser.id).toMatch(/^sha256:[0-9a-f]{64}$/);
  expect(browser.id).toBe(node.id);
  expect(browser.files).toEqual([...node.files!.keys()].sort());
});

test('the browser worker and the CLI give the same diagnostics, attribution included', async ({ page }) => {
  await page.goto('/');
  const broken = {
    ...baseApp(),
    'src/server/index.ts': SERVER.replace("'todos.list': query", "'Todos.List': query"),
    'src/client/main.tsx': `import { x } from '../server/db';\n${CLIENT}`,
    'src/server/db.ts': 'export const x = 1;\n',
  };
  const browser = await compileInBrowser(page, broken);
  const node = await compileProject(new MemoryFileSystem(broken), nodeCompiler());
  expect(node.diagnostics.map((d) => d.code)).toEqual(expect.arrayContaining(['DG1201', 'DG1303', 'DG1205']));
  expect(node.diagnostics.some((d) => d.primary) && node.diagnostics.some((d) => d.causedBy === 'DG1303')).toBe(true);
  expect(browser.diagnostics).toEqual(node.diagnostics);
});

test('the browser worker says plainly why npm packages are unavailable', async ({ page }) => {
  await page.goto('/');
  const files = { ...baseApp(), 'package.json': '{ "dependencies": { "canvas-confetti": "^1.9.0" } }\n' };
  const { diagnostics } = await compileInBrowser(page, files);
  expect(diagnostics).toEqual([expect.objectContaining({ code: 'DG1208', file: 'package.json' })]);
  expect(diagnostics![0]!.message).toContain('cannot be installed in the browser playground');
});
