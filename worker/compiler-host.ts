/// <reference lib="webworker" />
/**
 * The compiler worker's body, loaded by its entry (compiler.worker.ts) once that has started esbuild's
 * wasm and the bundler worker: TypeScript, the analysis, the builds, the language service and the
 * terminal's commands. It runs only trusted code (the compiler); the app's code is bundled, never executed.
 */
import * as esbuild from 'esbuild-wasm';
import embedded from 'virtual:platform-library';
import { analyzeProject } from '../src/core/analyze/analyze';
import { compileProject, type Compiler } from '../src/core/build/build';
import type { EsbuildApi } from '../src/core/build/esbuild-types';
import { embeddedLibrary } from '../src/core/build/library';
import { BundleReuse } from '../src/core/build/bundle-reuse';
import { toVirtual, TypeCheckSession } from '../src/core/build/typecheck';
import { MemoryFileSystem } from '../src/core/fs';
import { prepareTests } from '../src/core/testing/prepare';
import type { Analysis } from '../src/core/analyze/analyze';
import ts from 'typescript';
import type { CompilerRequest, CompilerResponse, CompletionItem } from './protocol/compiler';
import type { CompilerStart } from './compiler.worker';
import { CommandRuns } from './command-host';

const INSTALL_UNAVAILABLE = 'Packages cannot be installed in the browser playground unless a WebContainer is available.';

let post: CompilerStart['post'] = () => undefined;
let compiler: Promise<Compiler> = new Promise<Compiler>(() => undefined);
/** This worker's own esbuild (the tests' and the terminal commands' bundles), started on its first use or when idle. */
let ownEsbuild: (() => Promise<void>) | undefined;

/**
 * Starts the compiler over the wasm and the bundler the entry started; returns the handler of its
 * requests. Ready once the bundler is: TypeScript's libraries are parsed (warm) when the worker has
 * nothing to do, since a first build bundles before it checks and its preview need not wait for them;
 * this worker's own esbuild starts on its first use (a preview is bundled by the bundler worker).
 */
export function startCompilerHost(start: CompilerStart): (request: CompilerRequest) => void {
  post = start.post;
  const hostLoaded = performance.now();
  let initialized: Promise<void> | undefined;
  ownEsbuild = () => (initialized ??= start.wasmModule.then((module) => esbuild.initialize({ wasmModule: module, worker: false })));
  const ensure = ownEsbuild;
  compiler = (async () => {
    const library = embeddedLibrary(embedded);
    const libraryReady = performance.now();
    const typecheck = new TypeCheckSession(library);
    await start.bundler.ready;
    const esbuildDone = performance.now();
    post({
      type: 'ready',
      startup: { library: libraryReady - hostLoaded, esbuild: esbuildDone - start.started, typescript: hostLoaded - start.started, total: performance.now() - start.started },
    });
    const api: EsbuildApi = {
      build: (async (options: esbuild.BuildOptions) => (await ensure(), esbuild.build(options))) as EsbuildApi['build'],
      context: (async (options: esbuild.BuildOptions) => (await ensure(), esbuild.context(options))) as EsbuildApi['context'],
      version: esbuild.version,
    };
    return { esbuild: api, library, typecheck, bundler: start.bundler, installUnavailable: INSTALL_UNAVAILABLE, now: () => performance.now() };
  })();
  compiler.catch((error: unknown) => post({ type: 'startup-failed', message: error instanceof Error ? error.message : String(error) }));
  void compiler.then(() => setTimeout(() => void drain(), 0), () => undefined);
  return receive;
}

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
  await ownEsbuild?.().catch(() => undefined);
}

/** The next compile of each kind: an edit's compile supersedes the previous edit's, never a test run's. */
const pending = new Map<'edit' | 'test', CompileRequest>();
const slotOf = (request: CompileRequest) => (request.mode === 'test' ? 'test' : 'edit');
/** Queued language requests, at most one of each type: a newer one supersedes the queued one. */
const queued = new Map<LanguageRequest['type'], LanguageRequest>();
let running = false;
/** Terminal command lines, in the order typed. */
const commandLines: Array<Extract<CompilerRequest, { type: 'command' }>> = [];
// `post` is the entry's once the host starts: read at each call, not taken now (it is a stand-in until then).
const commandRuns = new CommandRuns((message) => post(message));

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

/** A request from the page. */
function receive(request: CompilerRequest): void {
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
}
