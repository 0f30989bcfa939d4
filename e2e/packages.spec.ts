/**
 * The app's own npm packages in Chromium: the playground's compiler worker (esbuild-wasm, TypeScript in
 * a Web Worker) types and bundles a project whose node_modules holds them into the artifact the CLI
 * makes, and the bundled server runs in the runtime sandbox (harness/runtime.html), package code included.
 */
import { expect, test } from './profile';
import { nodeCompiler } from '../src/adapters/node/compiler';
import { packageApp } from '../src/core/build/__fixtures__/package-app';
import { compileProject } from '../src/core/build';
import type { Diagnostic } from '../src/core/diagnostics';
import { MemoryFileSystem } from '../src/core/fs';

type Compiled = { artifactId?: string; diagnostics: Diagnostic[] };

test('the compiler worker types and bundles the packages into the artifact the CLI makes', async ({ page }) => {
  // A build (not a preview) waits for TypeScript's libraries, which the worker now parses after it says ready.
  test.setTimeout(120_000);
  const files = packageApp();
  await page.goto('/');
  const browser = await page.evaluate(async (project) => {
    const compiler = (globalThis as unknown as { __platformCompiler: { ready: Promise<unknown>; compile(files: Record<string, string>, mode: 'build'): Promise<Compiled | undefined> } }).__platformCompiler;
    await compiler.ready;
    const result = await compiler.compile(project, 'build');
    return { id: result?.artifactId, diagnostics: result?.diagnostics };
  }, files);
  const node = await compileProject(new MemoryFileSystem(files), nodeCompiler());
  expect(browser.diagnostics).toEqual([]);
  expect(node.diagnostics).toEqual([]);
  expect(browser.id).toBe(node.id);
});

test('the bundled server runs its packages in the runtime sandbox', async ({ page }) => {
  await page.goto('/harness/runtime.html');
  await page.waitForFunction(() => '__runtimeHarness' in globalThis);
  const answer = await page.evaluate(async (project) => {
    type Host = { start(app: unknown): Promise<void>; call(persona: string, kind: string, name: string, input: unknown): Promise<{ status: number; result?: unknown }> };
    const harness = (globalThis as unknown as { __runtimeHarness: { RuntimeHost: new () => Host; compile(files: Record<string, string>): Promise<{ manifest?: unknown; serverCode?: string; diagnostics: unknown[] }> } }).__runtimeHarness;
    const compiled = await harness.compile(project);
    if (!compiled.serverCode) return { diagnostics: compiled.diagnostics };
    const host = new harness.RuntimeHost();
    await host.start({ manifest: compiled.manifest, serverCode: compiled.serverCode });
    return { diagnostics: compiled.diagnostics, call: await host.call('alice', 'query', 'text.slug', { text: ' Hello World ' }) };
  }, packageApp());
  expect(answer.diagnostics).toEqual([]);
  expect(answer.call).toMatchObject({ status: 200, result: { slug: 'hello-world', label: '# HELLO WORLD !' } });
});
