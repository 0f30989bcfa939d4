/**
 * A page for the runtime sandbox's e2e tests and benchmarks (e2e/runtime-sandbox.spec.ts): it loads
 * nothing of the playground's UI and exposes `globalThis.__runtimeHarness`.
 */
import { set } from 'idb-keyval';
import { CompilerClient } from '../src/ui/compiler-client';
import { RuntimeHost } from '../src/ui/runtime/runtime-host';
import { PreviewFrame } from '../src/ui/preview/preview-frame';
import type { Manifest } from '../src/core/manifest';
import { DurableLog, loadCommitted, type CommittedState } from '../src/ui/runtime/durable-log';
import { indexedDbCommitStore } from '../src/ui/projects/commit-store';
import { createStore } from 'idb-keyval';

const commitStoreOf = (id: string) => indexedDbCommitStore(id, () => createStore('platform-playground', 'projects'));

/**
 * Makes `host`'s commits durable as the playground's session does (SessionData): each journal batch
 * appended to IndexedDB before its answer, each checkpoint written in the background; `loaded` is
 * what `load` read for this id (the log numbers on after it). For the bench and the e2e tests.
 */
function persist(host: RuntimeHost, id: string, loaded?: CommittedState): { log: DurableLog; checkpoints: number[]; started: number } {
  const log = new DurableLog(commitStoreOf(id), loaded);
  const durable = { log, checkpoints: [] as number[], started: 0 };
  host.onCommit((commit) => {
    if (commit.kind === 'journal') return log.append(commit.batch);
    const began = performance.now();
    durable.started++;
    const written = log.checkpoint(commit.state);
    void written.then(() => durable.checkpoints.push(performance.now() - began));
    return written;
  });
  return durable;
}

/** What a reload restores for `id`: the checkpoint and the journal after it. */
const load = (id: string) => loadCommitted(commitStoreOf(id));

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

Object.assign(globalThis, { __runtimeHarness: { RuntimeHost, PreviewFrame, compile, plantSecret, persist, load } });
