/**
 * The bundler of `platform dev` in Node: the first build bundles on the command's thread (nothing waits
 * for a thread to start), and once the first generation serves, `moveOffThread` starts a bundle thread
 * (bundle-thread.ts) and warms its esbuild context on the same project. From then on each rebuild is
 * bundled there while this thread type-checks: esbuild's plugin reads the files on the thread that runs
 * it, so on this one the bundle had to be made before the check, not beside it. A thread that fails
 * hands the work back to this thread.
 */
import type { Project } from '../../core/project';
import { ALL_TARGETS, Bundler, type BuildTarget, type BundleOptions, type BundleResult, type ProjectBundler, RemoteBundler } from '../../core/bundle';
import type { Compiler } from '../../core/build';
import type { FileSystem } from '../../core/fs';
import { libraryOnDisk } from './library';
import { NodeFileSystem } from './node-file-system';
import { startThread, ThreadHandoff } from './worker-thread';

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
  readonly #thread = new ThreadHandoff<RemoteBundler>();
  #last: { project: Project; targets: readonly BuildTarget[] } | undefined;

  readonly #script: URL | undefined;

  /** `script`: the thread's script (the prebuilt one by default, none when the CLI runs from its sources). */
  constructor(compiler: Pick<Compiler, 'esbuild' | 'library'>, script: URL | undefined = PREBUILT ? BUILT_THREAD_SCRIPT : undefined) {
    this.#here = new Bundler(compiler.esbuild, compiler.library, { directoryOf, libraryOnDisk: () => libraryOnDisk(compiler.library) });
    this.#script = script;
  }

  /** Whether the next bundle is made on the thread (compileProject then asks for it before the type check). */
  get offThread(): boolean {
    return this.#thread.warm;
  }

  bundle(project: Project, targets: readonly BuildTarget[] = ALL_TARGETS, options?: BundleOptions): Promise<BundleResult> {
    this.#last = { project, targets };
    // A thread that stopped answering: this thread bundles again, and the thread is ended.
    return this.#thread.run(
      (remote) => remote.bundle(project, targets, options),
      () => this.#here.bundle(project, targets, options),
    );
  }

  /**
   * Starts the bundle thread and warms it on the last project bundled; rebuilds go to it once it has
   * answered. Resolves when it is warm (or has failed: this thread keeps bundling).
   */
  async moveOffThread(): Promise<void> {
    const last = this.#last;
    const script = this.#script;
    if (!script || !last || !(last.project.fs instanceof NodeFileSystem)) return;
    const root = last.project.fs.root;
    await this.#thread.move(
      () =>
        startThread(script, 'bundle', (post) =>
          new RemoteBundler(post, ({ fs }) => {
            if (!(fs instanceof NodeFileSystem) || fs.root !== root) throw new Error('The bundle thread reads the project it was started on.');
            return { root };
          }),
        ),
      (remote) => remote.bundle(last.project, last.targets),
    );
  }

  async dispose(): Promise<void> {
    this.#thread.close();
    await this.#here.dispose();
  }
}
