/**
 * A project bundler on another thread: the playground's bundler worker, and `platform dev`'s bundle
 * thread. A compile asks it for the bundle before the type check and takes the answer after, so the
 * two run at once (esbuild's plugin reads the files on the thread that runs it). Both sides of the
 * messages are here; each host says how they travel and how the bundling thread reads the project.
 */
import type { Project } from '../project/index.ts';
import { MemoryFileSystem, type FileSystem } from '../fs/index.ts';
import { Asked } from './asked.ts';
import { ALL_TARGETS, type BuildTarget, type BundleOptions, type BundleResult, type Bundler, type ProjectBundler } from './bundle.ts';

/** How the bundling thread reads the project: its files, sent along (a project held in memory), or a directory it reads itself. */
export type BundleSource = { files: Array<[string, string | Uint8Array]> } | { root: string };

/** Structured-clone-safe, tagged by `type`. */
export type BundleRequest = { type: 'bundle'; id: number; source: BundleSource; project: Omit<Project, 'fs'>; targets: readonly BuildTarget[]; options?: BundleOptions };
export type BundleAnswer = { type: 'bundled'; id: number; result: BundleResult } | { type: 'failed'; id: number; message: string };

/** The asking side: requests numbered, answers matched to them. */
export class RemoteBundler implements ProjectBundler {
  readonly offThread = true;
  readonly #post: (request: BundleRequest) => void;
  readonly #source: (project: Project) => BundleSource;
  readonly #asked = new Asked<BundleResult>();

  /** `post` sends a request to the bundling thread; `source` says how that thread is to read a project. */
  constructor(post: (request: BundleRequest) => void, source: (project: Project) => BundleSource) {
    this.#post = post;
    this.#source = source;
  }

  /** An answer from the bundling thread. */
  answer(message: BundleAnswer): void {
    this.#asked.settle(message.id, message.type === 'bundled' ? { result: message.result } : { error: new Error(message.message) });
  }

  /** The bundling thread is gone: every bundle asked for, and every one asked for later, fails with this. */
  fail(error: Error): void {
    this.#asked.fail(error);
  }

  bundle(project: Project, targets: readonly BuildTarget[] = ALL_TARGETS, options?: BundleOptions): Promise<BundleResult> {
    return this.#asked.ask({}, (id) => {
      const source = this.#source(project);
      const { fs: _fs, ...rest } = project;
      this.#post({ type: 'bundle', id, source, project: rest, targets, ...(options ? { options } : {}) });
    });
  }

  /** Ends nothing by itself: the host ends its thread. Bundles still waiting fail. */
  async dispose(): Promise<void> {
    this.fail(new Error('The bundler was closed.'));
  }
}

/**
 * The bundling side: answers a request with the thread's long-lived Bundler. `directory` reads a
 * project directory (hosts that have none refuse it).
 */
export async function answerBundle(bundler: Bundler | Promise<Bundler>, request: BundleRequest, directory: (root: string) => FileSystem): Promise<BundleAnswer> {
  try {
    const fs = 'files' in request.source ? new MemoryFileSystem(Object.fromEntries(request.source.files)) : directory(request.source.root);
    const result = await (await bundler).bundle({ ...request.project, fs }, request.targets, request.options);
    return { type: 'bundled', id: request.id, result };
  } catch (error) {
    return { type: 'failed', id: request.id, message: error instanceof Error ? error.message : String(error) };
  }
}
