/**
 * A page for the runtime sandbox's e2e tests and benchmarks (e2e/runtime-sandbox.spec.ts): it loads
 * nothing of the playground's UI and exposes `globalThis.__runtimeHarness`.
 */
import { set } from 'idb-keyval';
import { CompilerClient } from '../src/ui/compiler-client';
import { RuntimeHost } from '../src/ui/runtime/runtime-host';
import { PreviewFrame } from '../src/ui/preview/preview-frame';
import type { Manifest } from '../src/core/manifest';

let compiler: CompilerClient | undefined;
const decoder = new TextDecoder();

/** Compiles a project in the playground's compiler worker ('build' mode) and returns what RuntimeHost.start needs. */
async function compile(files: Record<string, string>): Promise<{ manifest?: Manifest; serverCode?: string; diagnostics: unknown[] }> {
  compiler ??= new CompilerClient();
  await compiler.ready;
  const result = await compiler.compile(files, 'build');
  const server = result?.files?.['server/index.js'];
  const manifestText = files['app.manifest.json'];
  return {
    diagnostics: result?.diagnostics ?? [],
    ...(server ? { serverCode: decoder.decode(server) } : {}),
    ...(manifestText ? { manifest: JSON.parse(manifestText) as Manifest } : {}),
  };
}

/** Puts a secret where the playground keeps its own things: IndexedDB, a cookie, localStorage and the DOM. */
async function plantSecret(secret: string): Promise<void> {
  await set('harness-secret', secret);
  document.cookie = `harness-secret=${encodeURIComponent(secret)}; path=/; SameSite=Strict`;
  localStorage.setItem('harness-secret', secret);
  document.getElementById('secret')!.textContent = secret;
}

let pings = 0;
document.getElementById('ping')!.addEventListener('click', () => {
  pings += 1;
  document.getElementById('pings')!.textContent = String(pings);
});

Object.assign(globalThis, { __runtimeHarness: { RuntimeHost, PreviewFrame, compile, plantSecret } });
