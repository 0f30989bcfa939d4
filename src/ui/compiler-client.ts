/// <reference path="./virtual-template-artifacts.d.ts" />
/**
 * The playground's side of the compiler worker: requests by id, with stale results dropped. A preview
 * of a bundled template's files as shipped is answered from the bundles made at build time
 * (`virtual:template-artifacts`), and the first preview of a link or a zip by the quick preview
 * (src/ui/quick-preview.ts), without waiting for the worker to start. The worker starts on the
 * first request that needs it, or when asked (`start`: the playground does once a project's first
 * preview is up), so its start-up (about 1.5 s of a core) does not compete with that preview.
 */
import type { CompileMode, CompilerRequest, CompilerResponse, CompletionItem, TestBundle, TextEdit } from '../../worker/protocol/compiler';
import type { Manifest } from '../core/manifest';
import type { TestEvent } from '../core/testing';
import { filesDigest } from './projects/known-good';
import { QuickPreviewer } from './quick-preview';

/** A compile's outcome: the worker's `result` message without its envelope. */
export type CompileResult = Omit<Extract<CompilerResponse, { type: 'result' }>, 'type' | 'id'> & {
  /** Made by the page's quick preview (src/ui/quick-preview.ts), not by the compiler: not type-checked, and not esbuild's bytes. */
  quick?: true;
};

/** Bytes of esbuild's wasm received while the compiler starts (`total` 0 when unknown). */
export interface LoadProgress {
  loaded: number;
  total: number;
}

export type Startup = Extract<CompilerResponse, { type: 'ready' }>['startup'];

export type { CompletionItem, TestBundle, TextEdit };

/** Completions at an offset: they replace the text from `from` to the offset. */
export interface Completions {
  items: CompletionItem[];
  from: number;
}

/** What hovering a symbol shows; `from`/`to` is the symbol's range. Empty when there is no symbol. */
export interface QuickInfo {
  text?: string;
  documentation?: string;
  from?: number;
  to?: number;
}

/** Where a language request applies: `files` (path → text) override the last compile's files first. */
export interface LanguageQuery {
  path: string;
  offset: number;
  files?: Record<string, string>;
  /** Aborting drops the request if it is still queued in the worker and resolves it `undefined`. */
  signal?: AbortSignal;
}

/** The tests `platform test` prepared, for the page to run in its sandboxes. */
export interface CommandTestRun {
  manifest: Manifest;
  serverCode: string;
  tests: TestBundle[];
  /** Only the tests with this exact name (`--only`). */
  only?: string;
}

export interface CommandOptions {
  /** Each line a streaming command (`test`) prints, as it prints it. */
  onOutput(text: string): void;
  /** Runs the tests of `platform test` (in sandboxes: src/ui/tests/test-runner.ts). */
  runTests?(run: CommandTestRun): AsyncIterable<TestEvent>;
  /** Why npm packages cannot be installed here, for DG1208. */
  installUnavailable?: string;
}

/** How a command line ended: what it printed last and its exit status (0, 1, 2 as the CLI's). */
export interface CommandOutcome {
  output: string;
  exitCode: 0 | 1 | 2;
}

let templateArtifacts: Promise<Record<string, () => Promise<{ default: Record<string, string> }>>> | undefined;
/** Each template's bundles as loaded (or being loaded), by digest: a chunk is fetched once. */
const artifactBundles = new Map<string, Promise<Record<string, string> | undefined>>();

/** The bundles built for files of this digest, if there are any (loaded once, on the first ask). */
async function templateBundles(digest: string): Promise<Record<string, string> | undefined> {
  templateArtifacts ??= import('virtual:template-artifacts').then((module) => module.default).catch(() => ({}));
  let bundles = artifactBundles.get(digest);
  if (!bundles) {
    bundles = templateArtifacts.then((loaders) => loaders[digest]?.().then((module) => module.default)).catch(() => undefined);
    artifactBundles.set(digest, bundles);
  }
  return bundles;
}

/**
 * Fetches the prebuilt bundles of these templates' files ahead of need (they are small): the start
 * page does it once idle, so opening a template waits for no chunk.
 */
export function prefetchPrebuilt(templates: Record<string, string>[]): void {
  for (const files of templates) void templateBundles(filesDigest(files));
}

/** The prebuilt preview of these files if they are a bundled template's as shipped (type-checked clean at build time). */
async function prebuiltPreview(files: Record<string, string | Uint8Array>): Promise<CompileResult | undefined> {
  if (Object.values(files).some((content) => typeof content !== 'string')) return undefined;
  const bundles = await templateBundles(filesDigest(files as Record<string, string>));
  if (!bundles || !bundles['server/index.js'] || !bundles['client/app.js']) return undefined;
  performance.mark('platform:prebuilt-preview');
  const encoder = new TextEncoder();
  return {
    diagnostics: [],
    files: Object.fromEntries(Object.entries(bundles).map(([path, text]) => [path, encoder.encode(text)])),
    timings: { analyze: 0, focusCheck: 0, typecheck: 0, bundle: 0, total: 0 },
  };
}

interface Waiter {
  resolve(result: unknown): void;
  reject(error: Error): void;
}

export class CompilerClient {
  /** Made on the first need (`start`): a template's first preview does not wait for it, and its start-up stays off that path. */
  #worker: Worker | undefined;
  /** Requests that wait for the worker without starting it (a check after a prebuilt preview). */
  readonly #afterStart: CompilerRequest[] = [];
  readonly #waiting = new Map<number, Waiter>();
  readonly #commands = new Map<number, CommandOptions>();
  readonly #progressListeners = new Set<(progress: LoadProgress) => void>();
  #progress: LoadProgress = { loaded: 0, total: 0 };
  #nextId = 1;
  /** The worker said it is ready (esbuild and TypeScript loaded). */
  #isReady = false;
  /** A first build's quick preview, until the worker is ready (src/ui/quick-preview.ts). */
  readonly #quick = new QuickPreviewer();
  #resolveReady!: (startup: Startup) => void;
  #rejectReady!: (error: Error) => void;
  readonly #ready = new Promise<Startup>((resolve, reject) => {
    this.#resolveReady = resolve;
    this.#rejectReady = reject;
  });

  /** Resolves when esbuild-wasm and TypeScript are loaded, with what each took; asking starts the worker. */
  get ready(): Promise<Startup> {
    this.start();
    return this.#ready;
  }

  /**
   * Starts the worker (esbuild-wasm and TypeScript load in it, about 1.5 s of a core), once. Any
   * request that needs it starts it; the playground starts it after a project's first preview.
   */
  start(): void {
    if (this.#worker) return;
    const worker = new Worker(new URL('../../worker/compiler.worker.ts', import.meta.url), { type: 'module', name: 'compiler' });
    this.#worker = worker;
    const [resolve, reject] = [this.#resolveReady, this.#rejectReady];
    worker.addEventListener('message', (event: MessageEvent<CompilerResponse>) => {
      const message = event.data;
      switch (message.type) {
        case 'ready':
          performance.mark('platform:compiler-ready', { detail: message.startup });
          this.#isReady = true;
          this.#quick.dispose();
          resolve(message.startup);
          break;
        case 'startup-failed':
          reject(new Error(message.message));
          for (const waiter of this.#waiting.values()) waiter.reject(new Error(message.message));
          this.#waiting.clear();
          break;
        case 'result':
          this.#settle(message.id, (w) => w.resolve({ diagnostics: message.diagnostics, artifactId: message.artifactId, record: message.record, files: message.files, tests: message.tests, ...(message.kept ? { kept: message.kept } : {}), timings: message.timings }));
          break;
        case 'progress':
          this.#progress = { loaded: message.loaded, total: message.total };
          for (const listener of this.#progressListeners) listener(this.#progress);
          break;
        case 'superseded':
          this.#settle(message.id, (w) => w.resolve(undefined));
          break;
        case 'failed':
          this.#settle(message.id, (w) => w.reject(new Error(message.message)));
          break;
        case 'completions':
          this.#settle(message.id, (w) => w.resolve({ items: message.items, from: message.from } satisfies Completions));
          break;
        case 'quickinfo': {
          const { type: _type, id: _id, ...info } = message;
          this.#settle(message.id, (w) => w.resolve(info satisfies QuickInfo));
          break;
        }
        case 'format':
          this.#settle(message.id, (w) => w.resolve(message.edits));
          break;
        case 'command-output':
          this.#commands.get(message.id)?.onOutput(message.text);
          break;
        case 'command-tests':
          void this.#runCommandTests(message);
          break;
        case 'command-result':
          this.#commands.delete(message.id);
          this.#settle(message.id, (w) => w.resolve({ output: message.output, exitCode: message.exitCode } satisfies CommandOutcome));
          break;
        default: {
          const unknown: never = message;
          throw new Error(`Unknown compiler message ${JSON.stringify(unknown)}`);
        }
      }
    });
    worker.addEventListener('error', (event) => reject(new Error(event.message || 'The compiler worker failed to start')));
    for (const request of this.#afterStart.splice(0)) worker.postMessage(request);
  }

  /** Sends a request to the worker, starting it; `whenStarted`: the request waits for someone else to start it. */
  #post(request: CompilerRequest, whenStarted = false): void {
    if (!this.#worker && whenStarted) {
      this.#afterStart.push(request);
      return;
    }
    this.start();
    this.#worker!.postMessage(request);
  }

  /** Follows the compiler's start-up (the wasm download); called at once with the progress so far. */
  onProgress(listener: (progress: LoadProgress) => void): () => void {
    this.#progressListeners.add(listener);
    listener(this.#progress);
    return () => this.#progressListeners.delete(listener);
  }

  #settle(id: number, act: (waiter: Waiter) => void): void {
    const waiter = this.#waiting.get(id);
    if (!waiter) return;
    this.#waiting.delete(id);
    act(waiter);
  }

  /** Whether a project's first preview is being made by the quick preview (a link or a zip being opened, the compiler not ready). */
  get quickPreviewing(): boolean {
    return !this.#isReady && this.#quick.prepared;
  }

  /**
   * A project with no prebuilt or stored build is being opened (a share link, a zip): its first preview
   * will be the quick preview, whose worker starts now, and which bundles `files` at once if they are known.
   */
  prepareQuickPreview(files?: Record<string, string | Uint8Array>): void {
    if (!this.#isReady) this.#quick.prepare(files);
  }

  /** Compiles the files; resolves undefined when a newer request superseded this one. */
  async compile(files: Record<string, string | Uint8Array>, mode: CompileMode, focus?: string, options: { skipTypecheck?: boolean; quick?: boolean } = {}): Promise<CompileResult | undefined> {
    if (mode === 'preview') {
      // A first build that skips its check is the quick preview when it can be, unless the compiler is
      // ready already (a project opened after another) or the caller refuses it (`quick: false`). For a
      // link or a zip (`prepared`) it is being made already, and no template's bundles are looked for.
      const quickly = options.skipTypecheck === true && options.quick !== false && !this.#isReady;
      if (quickly && this.#quick.prepared) {
        const quick = await this.#quickPreview(files);
        if (quick) return quick;
      }
      const prebuilt = await prebuiltPreview(files);
      if (prebuilt) return prebuilt;
      if (quickly && !this.#quick.prepared) {
        const quick = await this.#quickPreview(files);
        if (quick) return quick;
      }
    }
    const id = this.#nextId++;
    const request: CompilerRequest = { type: 'compile', id, files, mode, focus, ...(options.skipTypecheck ? { skipTypecheck: true } : {}) };
    return new Promise((resolve, reject) => {
      this.#waiting.set(id, { resolve: (result) => resolve(result as CompileResult | undefined), reject });
      // A type check alone (the one after a prebuilt preview) is not urgent: it waits for the worker's start.
      this.#post(request, mode === 'check');
    });
  }

  async #quickPreview(files: Record<string, string | Uint8Array>): Promise<CompileResult | undefined> {
    const quick = await this.#quick.preview(files);
    if (!quick) return undefined;
    return { diagnostics: [], files: quick.files, timings: { analyze: 0, focusCheck: 0, typecheck: 0, bundle: quick.ms, total: quick.ms }, quick: true };
  }

  /**
   * Sends a language request. Resolves `undefined` when superseded by a newer request of the same
   * type or aborted; the worker answers them after any running compile, over its files.
   */
  #language<T>(request: Extract<CompilerRequest, { type: 'completions' | 'quickinfo' | 'format' }>, signal: AbortSignal | undefined): Promise<T | undefined> {
    if (signal?.aborted) return Promise.resolve(undefined);
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.#settle(request.id, (w) => w.resolve(undefined));
        this.#post({ type: 'cancel', id: request.id } satisfies CompilerRequest);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiting.set(request.id, {
        resolve: (result) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(result as T | undefined);
        },
        reject: (error) => {
          signal?.removeEventListener('abort', onAbort);
          reject(error);
        },
      });
      this.#post(request);
    });
  }

  /** TypeScript completions at `offset` in `path`, over the last compile's files and `files`. */
  completions({ path, offset, files, signal }: LanguageQuery): Promise<Completions | undefined> {
    return this.#language<Completions>({ type: 'completions', id: this.#nextId++, path, offset, ...(files ? { files } : {}) }, signal);
  }

  /** The type and documentation of the symbol at `offset` in `path` (for hover). */
  quickinfo({ path, offset, files, signal }: LanguageQuery): Promise<QuickInfo | undefined> {
    return this.#language<QuickInfo>({ type: 'quickinfo', id: this.#nextId++, path, offset, ...(files ? { files } : {}) }, signal);
  }

  /** TypeScript's formatter over `path`: edits in the coordinates of its text (`files[path]` when given). */
  format({ path, files, signal }: Omit<LanguageQuery, 'offset'>): Promise<TextEdit[] | undefined> {
    return this.#language<TextEdit[]>({ type: 'format', id: this.#nextId++, path, ...(files ? { files } : {}) }, signal);
  }

  /**
   * Runs `platform <args>` with the core's commands in the worker, over `files`: what the terminal does
   * without a WebContainer. Streaming output arrives through `onOutput`; the rest is in the outcome.
   */
  command(args: readonly string[], files: Record<string, string | Uint8Array>, options: CommandOptions): Promise<CommandOutcome> {
    const id = this.#nextId++;
    this.#commands.set(id, options);
    const request: CompilerRequest = { type: 'command', id, args: [...args], files, ...(options.installUnavailable ? { installUnavailable: options.installUnavailable } : {}) };
    return new Promise((resolve, reject) => {
      this.#waiting.set(id, {
        resolve: (outcome) => resolve(outcome as CommandOutcome),
        reject: (error) => {
          this.#commands.delete(id);
          reject(error);
        },
      });
      this.#post(request);
    });
  }

  /** Runs a command's tests where the page can (its sandboxes) and sends each event back to the worker. */
  async #runCommandTests({ id, type: _type, ...run }: Extract<CompilerResponse, { type: 'command-tests' }>): Promise<void> {
    const options = this.#commands.get(id);
    const reply = (message: CompilerRequest) => this.#post(message);
    if (!options?.runTests) {
      reply({ type: 'command-tests-done', id, error: 'This page cannot run tests.' });
      return;
    }
    try {
      for await (const event of options.runTests(run)) reply({ type: 'command-test-event', id, event });
      reply({ type: 'command-tests-done', id });
    } catch (error) {
      reply({ type: 'command-tests-done', id, error: error instanceof Error ? error.message : String(error) });
    }
  }

  terminate(): void {
    this.#worker?.terminate();
  }
}
