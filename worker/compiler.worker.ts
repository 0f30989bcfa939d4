/// <reference lib="webworker" />
/**
 * The compiler worker: esbuild-wasm and TypeScript over the project's files in memory. It runs only
 * trusted code (the compiler); the app's code is bundled here, never executed.
 */
import * as esbuild from 'esbuild-wasm';
import wasmURL from 'esbuild-wasm/esbuild.wasm?url';
import embedded from 'virtual:platform-library';
import { analyzeProject, toVirtual, TypeCheckSession, type Analysis } from '../src/core/analyze';
import { compileProject, type Compiler, BundleReuse, prepareTests } from '../src/core/build';
import { ALL_TARGETS, type BuildTarget, type BundleOptions, type BundleResult, type ProjectBundler, RemoteBundler } from '../src/core/bundle';
import { type Project, embeddedLibrary } from '../src/core/project';
import { MemoryFileSystem } from '../src/core/fs';
import type { BundlerRequest, BundlerResponse } from './protocol/bundler';
import ts from 'typescript';
import type { CompilerRequest, CompilerResponse, CompletionItem } from './protocol/compiler';
import { CommandRuns } from './command-host';

declare const self: DedicatedWorkerGlobalScope;

const INSTALL_UNAVAILABLE = 'Packages cannot be installed in the browser playground unless a WebContainer is available.';

function post(message: CompilerResponse, transfer: Transferable[] = []): void {
  self.postMessage(message, transfer);
}

/**
 * esbuild's wasm, compiled as it streams in, with progress posted as bytes arrive (the page shows it:
 * 14 MB is most of the start-up on a slow connection). The fetched response itself is compiled, not a
 * copy: Chromium keeps the compiled code only for a response it can tie to its URL in the HTTP cache, so
 * a later visit starts with esbuild's code compiled and tiered up. The progress is counted on a clone.
 */
async function loadEsbuildWasm(): Promise<WebAssembly.Module> {
  const response = await fetch(wasmURL);
  if (!response.ok || !response.body) throw new Error(`esbuild's wasm could not be loaded (${response.status}).`);
  const total = Number(response.headers.get('content-length') ?? 0) || 0;
  void countProgress(response.clone(), total);
  return WebAssembly.compileStreaming(response);
}

/** Reads `copy` to its end, posting about 50 progress updates over `total` bytes and the last one. */
async function countProgress(copy: Response, total: number): Promise<void> {
  const reader = copy.body!.getReader();
  let loaded = 0;
  let reported = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    loaded += value.byteLength;
    if (loaded - reported > (total || 14e6) / 50 || loaded === total) {
      reported = loaded;
      post({ type: 'progress', loaded, total });
    }
  }
}

/**
 * The project bundler of this worker's compiles: a worker of its own (worker/bundler.worker.ts), so a
 * preview's bundle is made while this thread type-checks. It is given the esbuild wasm this worker
 * compiled; this worker keeps its own esbuild too, for the tests' and the terminal commands' bundles.
 */
class WorkerBundler implements ProjectBundler {
  readonly offThread = true;
  readonly #worker = new Worker(new URL('./bundler.worker.ts', import.meta.url), { type: 'module', name: 'bundler' });
  readonly #remote = new RemoteBundler(
    (request) => this.#post(request),
    ({ fs }) => {
      if (!(fs instanceof MemoryFileSystem)) throw new Error('The bundler worker bundles projects held in memory.');
      return { files: fs.entries() };
    },
  );
  readonly ready: Promise<void>;

  constructor(wasmModule: Promise<WebAssembly.Module>) {
    let started: { resolve(): void; reject(error: Error): void };
    this.ready = new Promise<void>((resolve, reject) => (started = { resolve, reject }));
    this.#worker.onmessage = (event: MessageEvent<BundlerResponse>) => {
      const message = event.data;
      if (message.type === 'ready') return started.resolve();
      if (message.type === 'startup-failed') return started.reject(new Error(`The bundler could not start: ${message.message}`));
      this.#remote.answer(message);
    };
    this.#worker.onerror = (event) => {
      const error = new Error(`The bundler failed: ${event.message}`);
      started.reject(error);
      this.#remote.fail(error);
    };
    void wasmModule.then((module) => this.#post({ type: 'init', wasmModule: module }), (error: unknown) => started.reject(error instanceof Error ? error : new Error(String(error))));
  }

  #post(request: BundlerRequest): void {
    this.#worker.postMessage(request);
  }

  bundle(project: Project, targets: readonly BuildTarget[] = ALL_TARGETS, options?: BundleOptions): Promise<BundleResult> {
    return this.#remote.bundle(project, targets, options);
  }

  async dispose(): Promise<void> {
    await this.#remote.dispose();
    this.#worker.terminate();
  }
}

const compiler: Promise<Compiler> = (async () => {
  const started = performance.now();
  const library = embeddedLibrary(embedded);
  const libraryReady = performance.now();
  // esbuild's wasm streams in and compiles while TypeScript parses its libraries on this thread; the
  // bundler worker starts on the same compiled module.
  const wasmModule = loadEsbuildWasm();
  const bundler = new WorkerBundler(wasmModule);
  const esbuildReady = wasmModule.then((module) => esbuild.initialize({ wasmModule: module, worker: false })).then(() => bundler.ready).then(() => performance.now());
  const typecheck = new TypeCheckSession(library);
  // TypeScript's libraries are parsed (warm) once the worker has nothing to do, not before it is
  // ready: a first build bundles before it checks, and its preview need not wait for them (drain).
  const esbuildDone = await esbuildReady;
  post({
    type: 'ready',
    startup: { library: libraryReady - started, esbuild: esbuildDone - started, typescript: 0, total: performance.now() - started },
  });
  const api = { build: esbuild.build, context: esbuild.context, version: esbuild.version };
  return { esbuild: api, library, typecheck, bundler, installUnavailable: INSTALL_UNAVAILABLE, now: () => performance.now() };
})();

compiler.catch((error: unknown) => post({ type: 'startup-failed', message: error instanceof Error ? error.message : String(error) }));

type CompileRequest = Extract<CompilerRequest, { type: 'compile' }>;
type LanguageRequest = Extract<CompilerRequest, { type: 'completions' | 'quickinfo' | 'format' }>;

/**
 * The app files the type-check session holds: those the last compile synced (sources and generated
 * types), with the overrides of language requests since. `TypeCheckSession.sync` replaces the whole
 * set, so a language request's `files` are merged into this before syncing.
 */
let sessionFiles = new Map<string, string>();

/** Remembers what a compile left in the session (nothing when it stopped before type checking). */
function remember(analysis: Analysis): void {
  if (!analysis.manifest) return;
  sessionFiles = new Map([...analysis.sources, ...analysis.generated]);
}

/**
 * The last successful preview build's outputs: a preview build after an edit that can only change the
 * server bundles the server alone and keeps the client's, one that can only change the client bundles
 * the client alone and keeps the server's (src/core/build/bundle-reuse.ts).
 */
const bundleReuse = new BundleReuse();

async function run(request: CompileRequest): Promise<void> {
  const started = performance.now();
  try {
    const host = await compiler;
    const fs = new MemoryFileSystem(request.files);
    if (request.mode === 'check') {
      const analysis = await analyzeProject(fs, { library: host.library, typecheck: host.typecheck, installUnavailable: host.installUnavailable, focus: request.focus, now: host.now });
      remember(analysis);
      post({ type: 'result', id: request.id, diagnostics: analysis.diagnostics, timings: { ...analysis.timings, bundle: 0, total: performance.now() - started } });
      return;
    }
    if (request.mode === 'test') {
      const prepared = await prepareTests(fs, host);
      // The server's map too: lines its handlers write in tests are mapped to the app's files.
      const files = prepared.server ? { 'server/index.js': new TextEncoder().encode(prepared.server.code), 'server/index.js.map': new TextEncoder().encode(prepared.server.map) } : undefined;
      post({ type: 'result', id: request.id, diagnostics: prepared.diagnostics, ...(files ? { files } : {}), tests: prepared.tests, timings: { analyze: 0, focusCheck: 0, typecheck: 0, bundle: 0, total: performance.now() - started } });
      return;
    }
    const options = { focus: request.focus, typecheck: !request.skipTypecheck };
    const preview = request.mode === 'preview' ? await bundleReuse.compile(request.files, (targets) => compileProject(fs, host, { ...options, targets, bundle: { preview: true } })) : undefined;
    const outcome = preview?.outcome ?? (await compileProject(fs, host, options));
    remember(outcome.analysis);
    const files = outcome.files ? Object.fromEntries(outcome.files) : undefined;
    post(
      { type: 'result', id: request.id, diagnostics: outcome.diagnostics, artifactId: outcome.id, ...(outcome.record ? { record: outcome.record } : {}), ...(preview?.kept ? { kept: preview.kept } : {}), files, timings: { ...outcome.analysis.timings, bundle: outcome.bundleTime, total: performance.now() - started } },
      files ? Object.values(files).map((bytes) => bytes.buffer as ArrayBuffer) : [],
    );
  } catch (error) {
    post({ type: 'failed', id: request.id, message: error instanceof Error ? error.message : String(error) });
  }
}

const FORMAT_SETTINGS: ts.FormatCodeSettings = { ...ts.getDefaultFormatCodeSettings('\n'), indentSize: 2, tabSize: 2, convertTabsToSpaces: true, semicolons: ts.SemicolonPreference.Ignore };

/** The start of the identifier that ends at `offset`. */
function wordStart(text: string, offset: number): number {
  let from = offset;
  while (from > 0 && /[\w$]/.test(text[from - 1]!)) from--;
  return from;
}

function completions(service: ts.LanguageService, path: string, offset: number): { items: CompletionItem[]; from: number } {
  const file = toVirtual(path);
  const text = sessionFiles.get(path) ?? '';
  const info = service.getCompletionsAtPosition(file, offset, { includeCompletionsWithInsertText: true, includeCompletionsForImportStatements: false, includeCompletionsForModuleExports: false });
  let from = wordStart(text, offset);
  if (!info) return { items: [], from };
  // String-literal completions (operation names, import paths) replace the text inside the quotes.
  const span = info.optionalReplacementSpan ?? info.entries.find((e) => e.replacementSpan)?.replacementSpan;
  if (span && span.start <= offset && span.start + span.length >= offset) from = span.start;
  const items: CompletionItem[] = info.entries.map((entry) => {
    const item: CompletionItem = { label: entry.name, kind: entry.kind, sortText: entry.sortText };
    const detail = entry.labelDetails?.description ?? entry.labelDetails?.detail ?? entry.source;
    if (detail) item.detail = detail;
    if (entry.kindModifiers?.split(',').includes('deprecated')) item.deprecated = true;
    if (entry.insertText !== undefined && entry.insertText !== entry.name) item.insert = entry.insertText;
    const replace = entry.replacementSpan;
    if (replace && replace.start !== from) item.range = { from: replace.start, to: replace.start + replace.length };
    return item;
  });
  return { items, from };
}

function quickinfo(service: ts.LanguageService, path: string, offset: number): Omit<Extract<CompilerResponse, { type: 'quickinfo' }>, 'type' | 'id'> {
  const info = service.getQuickInfoAtPosition(toVirtual(path), offset);
  if (!info) return {};
  const text = ts.displayPartsToString(info.displayParts);
  const tags = (info.tags ?? []).map((tag) => `@${tag.name}${tag.text ? ` ${ts.displayPartsToString(tag.text)}` : ''}`);
  const documentation = [ts.displayPartsToString(info.documentation), ...tags].filter(Boolean).join('\n\n');
  return { ...(text ? { text } : {}), ...(documentation ? { documentation } : {}), from: info.textSpan.start, to: info.textSpan.start + info.textSpan.length };
}

async function serve(request: LanguageRequest): Promise<void> {
  try {
    const host = await compiler;
    if (request.files) {
      const merged = new Map(sessionFiles);
      for (const [path, text] of Object.entries(request.files)) merged.set(path, text);
      host.typecheck.sync(merged);
      sessionFiles = merged;
    }
    const service = host.typecheck.service;
    // A file the session does not hold (not compiled yet, or not TypeScript) has no language features.
    const known = sessionFiles.has(request.path) && service.getProgram()?.getSourceFile(toVirtual(request.path)) !== undefined;
    switch (request.type) {
      case 'completions': {
        const result = known ? completions(service, request.path, request.offset) : { items: [], from: request.offset };
        post({ type: 'completions', id: request.id, ...result });
        break;
      }
      case 'quickinfo':
        post({ type: 'quickinfo', id: request.id, ...(known ? quickinfo(service, request.path, request.offset) : {}) });
        break;
      case 'format': {
        const edits = known ? service.getFormattingEditsForDocument(toVirtual(request.path), FORMAT_SETTINGS) : [];
        post({ type: 'format', id: request.id, edits: edits.map((e) => ({ from: e.span.start, to: e.span.start + e.span.length, insert: e.newText })) });
        break;
      }
      default: {
        const unknown: never = request;
        throw new Error(`Unknown language request ${JSON.stringify(unknown)}`);
      }
    }
  } catch (error) {
    post({ type: 'failed', id: request.id, message: error instanceof Error ? error.message : String(error) });
  }
}

let warmed = false;

/**
 * Parses TypeScript's libraries into the type-check session once, when the worker is idle (or at the
 * first check, which would parse them anyway): a first preview bundled before its check does not wait.
 */
async function warmOnce(): Promise<void> {
  if (warmed) return;
  warmed = true;
  const host = await compiler.catch(() => undefined);
  host?.typecheck.warm();
}

void compiler.then(() => setTimeout(() => void drain(), 0), () => undefined);

/** The next compile of each kind: an edit's compile supersedes the previous edit's, never a test run's. */
const pending = new Map<'edit' | 'test', CompileRequest>();
const slotOf = (request: CompileRequest) => (request.mode === 'test' ? 'test' : 'edit');
/** Queued language requests, at most one of each type: a newer one supersedes the queued one. */
const queued = new Map<LanguageRequest['type'], LanguageRequest>();
let running = false;
/** Terminal command lines, in the order typed. */
const commandLines: Array<Extract<CompilerRequest, { type: 'command' }>> = [];
const commandRuns = new CommandRuns(post);

/** Runs a command line until it finishes or no longer needs the compiler (its tests run in the page). */
async function command(request: Extract<CompilerRequest, { type: 'command' }>): Promise<void> {
  let compilerDone!: () => void;
  const released = new Promise<void>((resolve) => (compilerDone = resolve));
  try {
    const host = await compiler;
    await Promise.race([commandRuns.run(request, host, embedded.toolchainVersion, compilerDone), released]);
  } catch (error) {
    post({ type: 'failed', id: request.id, message: error instanceof Error ? error.message : String(error) });
  }
}

/**
 * One request at a time, so a language request never syncs the session in the middle of a compile.
 * Language requests go first: they are small and someone is waiting at the keyboard.
 */
async function drain(): Promise<void> {
  if (running) return;
  running = true;
  try {
    // Nothing is taken from the queue before the compiler is up: a request superseded while it starts
    // (the check after a prebuilt preview, overtaken by the first edit) is never run.
    await compiler.catch(() => undefined);
    for (;;) {
      await next();
      if (warmed) break;
      // Idle: TypeScript's libraries now; what arrived meanwhile is served by the next round.
      await warmOnce();
    }
  } finally {
    running = false;
  }
}

/** Serves what is queued until nothing is. */
async function next(): Promise<void> {
  while (pending.size || queued.size || commandLines.length) {
    if (queued.size) {
      const requests = [...queued.values()];
      queued.clear();
      for (const request of requests) await serve(request);
      continue;
    }
    if (commandLines.length) {
      await command(commandLines.shift()!);
      continue;
    }
    const [slot, request] = pending.entries().next().value!;
    pending.delete(slot);
    await run(request);
  }
}

self.addEventListener('message', (event: MessageEvent<CompilerRequest>) => {
  const request = event.data;
  switch (request.type) {
    case 'compile': {
      const previous = pending.get(slotOf(request));
      if (previous) post({ type: 'superseded', id: previous.id });
      pending.set(slotOf(request), request);
      void drain();
      break;
    }
    case 'completions':
    case 'quickinfo':
    case 'format': {
      const previous = queued.get(request.type);
      if (previous) post({ type: 'superseded', id: previous.id });
      queued.set(request.type, request);
      void drain();
      break;
    }
    case 'cancel':
      for (const [type, queuedRequest] of queued) {
        if (queuedRequest.id !== request.id) continue;
        queued.delete(type);
        post({ type: 'superseded', id: request.id });
      }
      break;
    case 'command':
      commandLines.push(request);
      void drain();
      break;
    case 'command-test-event':
    case 'command-tests-done':
      commandRuns.receive(request);
      break;
    default: {
      const unknown: never = request;
      throw new Error(`Unknown compiler request ${JSON.stringify(unknown)}`);
    }
  }
});
