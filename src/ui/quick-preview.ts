/**
 * The page's side of the quick preview (worker/quick-preview.worker.ts, src/core/quick/quick-bundle.ts):
 * a project's first build without the compiler, for a project with no prebuilt or stored build (a
 * share link, a bug report, a zip). The worker starts as such a project is read, and bundles its files
 * at once (`prepare`), so the session's first build finds them made; the compiler's 14 MB of
 * esbuild-wasm and 9 MB of TypeScript load after the preview is up.
 */
import { sameFiles } from '../core/bytes';
import type { QuickPreviewRequest, QuickPreviewResponse } from '../../worker/protocol/quick-preview';

type Files = Record<string, string | Uint8Array>;

/** How long a first build waits for the quick preview before the compiler bundles instead (it takes 0.1 to 0.4 s for 200 files). */
const QUICK_PREVIEW_PATIENCE_MS = 5000;

/** A quick preview's files (`server/index.js`, `client/app.js`, …) and the milliseconds the worker spent. */
export interface QuickPreview {
  files: Record<string, Uint8Array>;
  ms: number;
}

declare global {
  /**
   * The worker a built page's first script starts for a share link (vite/early-worker-plugin.ts), before
   * the playground's own script, which runs after its whole module graph has loaded.
   */
  var __platformQuickPreviewWorker: Worker | undefined;
}

function newWorker(): Worker {
  return new Worker(new URL('../../worker/quick-preview.worker.ts', import.meta.url), { type: 'module', name: 'quick-preview' });
}

export class QuickPreviewer {
  #worker: Worker | undefined;
  /** The worker failed to load or run: every project is the compiler's. */
  #failed = false;
  #nextId = 1;
  readonly #waiting = new Map<number, (response: QuickPreviewResponse | undefined) => void>();
  /** The files last asked for and their answer: the session's first build asks again for the files `prepare` was given. */
  #last: { files: Files; answer: Promise<QuickPreview | undefined> } | undefined;

  /** Whether a project is being opened for the quick preview (`prepare`): its first build need not be looked for among the templates. */
  get prepared(): boolean {
    return this.#worker !== undefined;
  }

  /** Starts the worker (its script loads), and bundles `files` if given, for a `preview` of the same files to come. */
  prepare(files?: Files): void {
    if (this.#failed) return;
    this.#start();
    if (files) void this.preview(files);
  }

  /**
   * The quick preview of `files`, or undefined when the quick path declines them (the reason is in the
   * console's debug log) or has not answered within QUICK_PREVIEW_PATIENCE_MS (the compiler bundles them).
   */
  preview(files: Files): Promise<QuickPreview | undefined> {
    if (this.#failed) return Promise.resolve(undefined);
    if (this.#last && sameFiles(this.#last.files, files)) return this.#last.answer;
    const answer = this.#ask(files).then((response) => {
      if (response?.type !== 'bundled') {
        if (response) console.debug(`The quick preview was not made (${response.reason}); the compiler bundles the project.`);
        return undefined;
      }
      performance.mark('platform:quick-preview', { detail: { ms: response.ms } });
      return { files: response.files, ms: response.ms };
    });
    this.#last = { files, answer };
    return answer;
  }

  /** Ends the worker: the compiler is ready, and every later build is its own. */
  dispose(): void {
    this.#worker?.terminate();
    this.#worker = undefined;
    for (const settle of this.#waiting.values()) settle(undefined);
    this.#waiting.clear();
  }

  #start(): Worker {
    if (this.#worker) return this.#worker;
    const worker = globalThis.__platformQuickPreviewWorker ?? newWorker();
    globalThis.__platformQuickPreviewWorker = undefined;
    worker.onmessage = (event: MessageEvent<QuickPreviewResponse>) => {
      const settle = this.#waiting.get(event.data.id);
      this.#waiting.delete(event.data.id);
      settle?.(event.data);
    };
    // A worker that cannot start declines every project: the compiler bundles them.
    worker.onerror = () => {
      this.#failed = true;
      this.dispose();
    };
    this.#worker = worker;
    return worker;
  }

  #ask(files: Files): Promise<QuickPreviewResponse | undefined> {
    const worker = this.#start();
    const id = this.#nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(id);
        console.debug(`The quick preview did not answer within ${QUICK_PREVIEW_PATIENCE_MS} ms; the compiler bundles the project.`);
        resolve(undefined);
      }, QUICK_PREVIEW_PATIENCE_MS);
      this.#waiting.set(id, (response) => {
        clearTimeout(timer);
        resolve(response);
      });
      worker.postMessage({ type: 'bundle', id, files } satisfies QuickPreviewRequest);
    });
  }
}
