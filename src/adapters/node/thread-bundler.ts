/**
 * The bundler of `platform dev` in Node: the first build bundles on the command's thread (nothing waits
 * for a thread to start), and once the first generation serves, `moveOffThread` starts a bundle thread
 * (bundle-thread.ts) and warms its esbuild context on the same project. From then on each rebuild is
 * bundled there while this thread type-checks: esbuild's plugin reads the files on the thread that runs
 * it, so on this one the bundle had to be made before the check, not beside it. A thread that fails
 * hands the work back to this thread.
 */
import type { Worker } from 'node:worker_threads';
import type { Project } from '../../core/analyze/project';
import { ALL_TARGETS, Bundler, type BuildTarget, type BundleOptions, type BundleResult, type ProjectBundler } from '../../core/build/bundle';
import type { Compiler } from '../../core/build/build';
import { RemoteBundler, type BundleAnswer } from '../../core/build/remote-bundler';
import type { FileSystem } from '../../core/fs';
import { libraryOnDisk } from './library';
import { NodeFileSystem } from './node-file-system';

/** True in the prebuilt CLI (scripts/build-cli.ts defines it), where the thread's script is built too. */
const PREBUILT = (import.meta as ImportMeta & { prebuiltCli?: boolean }).prebuiltCli === true;

/**
 * The thread's script, built beside the prebuilt CLI's modules. The CLI run from its TypeScript sources
 * (through tsx) has none: a worker does not take tsx's hooks for its own entry in Node 20, so there the
 * bundles stay on the command's thread.
 */
export const BUILT_THREAD_SCRIPT = new URL('../../../build/cli/bundle-thread.js', import.meta.url);

/** The directory a project's file system reads, which native esbuild can read itself (Bundler's native mode). */
export const directoryOf = (fs: FileSystem): string | undefined => (fs instanceof NodeFileSystem ? fs.root : undefined);

export class ThreadBundler implements ProjectBundler {
  readonly #here: Bundler;
  #thread: { worker: Worker; remote: RemoteBundler } | undefined;
  /** The thread has bundled the project once (its esbuild context is warm): rebuilds go there. */
  #warm = false;
  #last: { project: Project; targets: readonly BuildTarget[] } | undefined;
  #closed = false;

  readonly #script: URL | undefined;

  /** `script`: the thread's script (the prebuilt one by default, none when the CLI runs from its sources). */
  constructor(compiler: Pick<Compiler, 'esbuild' | 'library'>, script: URL | undefined = PREBUILT ? BUILT_THREAD_SCRIPT : undefined) {
    this.#here = new Bundler(compiler.esbuild, compiler.library, { directoryOf, libraryOnDisk: () => libraryOnDisk(compiler.library) });
    this.#script = script;
  }

  /** Whether the next bundle is made on the thread (compileProject then asks for it before the type check). */
  get offThread(): boolean {
    return this.#warm;
  }

  async bundle(project: Project, targets: readonly BuildTarget[] = ALL_TARGETS, options?: BundleOptions): Promise<BundleResult> {
    this.#last = { project, targets };
    if (this.#warm && this.#thread) {
      try {
        return await this.#thread.remote.bundle(project, targets, options);
      } catch (error) {
        // A thread that stopped answering: this thread bundles again, and the thread is ended.
        if (!this.#closed) this.#stopThread();
        else throw error;
      }
    }
    return this.#here.bundle(project, targets, options);
  }

  /**
   * Starts the bundle thread and warms it on the last project bundled; rebuilds go to it once it has
   * answered. Resolves when it is warm (or has failed: this thread keeps bundling).
   */
  async moveOffThread(): Promise<void> {
    const last = this.#last;
    if (this.#thread || this.#closed || !this.#script || !last || !(last.project.fs instanceof NodeFileSystem)) return;
    // Loaded here, not with this module: the CLI's start-up snapshot loads this module, and Node 20
    // cannot keep the shared working-directory counter that worker_threads makes as it loads (a worker
    // of a process started from a snapshot that holds it fails as it starts: its process.cwd() throws).
    const { Worker } = await import('node:worker_threads');
    // Closed, or moved by another call, while the module loaded.
    if (this.#thread || this.#closed) return;
    const worker = new Worker(this.#script, { name: 'platform bundler' });
    const root = last.project.fs.root;
    const remote = new RemoteBundler(
      (request) => worker.postMessage(request),
      ({ fs }) => {
        if (!(fs instanceof NodeFileSystem) || fs.root !== root) throw new Error('The bundle thread reads the project it was started on.');
        return { root };
      },
    );
    worker.on('message', (answer: BundleAnswer) => remote.answer(answer));
    worker.on('error', (error) => remote.fail(error));
    worker.on('exit', (code) => remote.fail(new Error(`The bundle thread stopped (exit status ${code}).`)));
    // A thread does not keep the process alive: the dev server's own handles do.
    worker.unref();
    this.#thread = { worker, remote };
    try {
      await remote.bundle(last.project, last.targets);
      if (this.#thread?.worker === worker && !this.#closed) this.#warm = true;
    } catch {
      if (this.#thread?.worker === worker) this.#stopThread();
    }
  }

  #stopThread(): void {
    const thread = this.#thread;
    this.#thread = undefined;
    this.#warm = false;
    if (!thread) return;
    void thread.remote.dispose();
    void thread.worker.terminate();
  }

  async dispose(): Promise<void> {
    this.#closed = true;
    this.#stopThread();
    await this.#here.dispose();
  }
}
