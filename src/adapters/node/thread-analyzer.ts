/**
 * The analyzer of `platform dev` in Node: the first build is analysed and type-checked on the command's
 * thread with the compiler's session (nothing waits for a thread to start), and once the first
 * generation serves, `moveOffThread` starts a check thread (check-thread.ts) and warms its session with
 * an analysis of the same project. From then on each rebuild's analysis and type check run there: the
 * command's thread stays free while the types are checked, so it serves requests, takes the bundle
 * thread's answer and starts the next engine beside the check (a server edit's engine used to start only
 * after the edited file's declarations were emitted). A thread that fails hands the work back to this
 * thread, as the bundle thread does.
 */
import { analyzeProject, type Analysis } from '../../core/analyze';
import { type Compiler, type RemoteAnalyzeOptions, RemoteAnalyzer } from '../../core/build';
import type { FileSystem } from '../../core/fs';
import type { DevAnalyzer } from '../../core/local';
import { NodeFileSystem } from './node-file-system';
import { startThread, ThreadHandoff } from './worker-thread';

/** True in the prebuilt CLI (scripts/build-cli.ts defines it), where the thread's script is built too. */
const PREBUILT = (import.meta as ImportMeta & { prebuiltCli?: boolean }).prebuiltCli === true;

/** The thread's script, built beside the prebuilt CLI's modules (none for the CLI run from its sources: see thread-bundler.ts). */
export const BUILT_CHECK_SCRIPT = new URL('../../../build/cli/check-thread.js', import.meta.url);

/**
 * The source files (those the zones reach) from which the checks move to a thread. The thread holds a
 * TypeScript, the library's files and the project's program of its own (the process started from the
 * CLI's snapshot had them parsed already), about 300 MB more at 500 files; a small app's checks are
 * short enough not to be felt on the command's thread.
 */
export const MOVE_AT_FILES = 100;

export class ThreadAnalyzer implements DevAnalyzer {
  readonly #compiler: Compiler;
  readonly #script: URL | undefined;
  readonly #thread = new ThreadHandoff<RemoteAnalyzer>();
  #last: FileSystem | undefined;
  /** The source files the last analysis here found the zones reaching. */
  #files = 0;
  readonly #moveAtFiles: number;

  /** `script`: the thread's script (the prebuilt one by default, none when the CLI runs from its sources). */
  constructor(compiler: Compiler, script: URL | undefined = PREBUILT ? BUILT_CHECK_SCRIPT : undefined, options: { moveAtFiles?: number } = {}) {
    this.#compiler = compiler;
    this.#script = script;
    this.#moveAtFiles = options.moveAtFiles ?? MOVE_AT_FILES;
  }

  /** Whether analyses run on the thread. */
  get offThread(): boolean {
    return this.#thread.warm;
  }

  analyze(fs: FileSystem, options: RemoteAnalyzeOptions): Promise<Analysis> {
    this.#last = fs;
    // A thread that stopped answering: this thread checks again (a cold session), and the thread is ended.
    return this.#thread.run(
      (remote) => remote.analyze(fs, options),
      async () => {
        const { library, typecheck } = this.#compiler;
        const analysis = await analyzeProject(fs, { ...options, library, typecheck, now: () => performance.now() });
        if (analysis.graph) this.#files = new Set(Object.values(analysis.graph.zones).flat()).size;
        return analysis;
      },
    );
  }

  /**
   * Starts the check thread, for a project of MOVE_AT_FILES source files or more, and warms it with an
   * analysis of the last project analysed (every zone, as the tests need); analyses go to it once it has
   * answered, and this thread's session lets go of the project's program. Resolves when it is warm (or
   * has failed: this thread keeps checking).
   */
  async moveOffThread(): Promise<void> {
    const last = this.#last;
    const script = this.#script;
    if (!script || !(last instanceof NodeFileSystem) || this.#files < this.#moveAtFiles) return;
    const root = last.root;
    const { typecheck, installUnavailable } = this.#compiler;
    await this.#thread.move(
      () =>
        startThread(script, 'check', (post) =>
          new RemoteAnalyzer(post, (fs) => {
            if (!(fs instanceof NodeFileSystem) || fs.root !== root) throw new Error('The check thread reads the project it was started on.');
            return root;
          }),
        ),
      (remote) => remote.analyze(last, installUnavailable !== undefined ? { installUnavailable } : {}),
      () => {
        // The project's program on this thread is not used again: its files are dropped (a new program of the library alone).
        typecheck.sync(new Map());
        typecheck.service.getProgram();
      },
    );
  }

  async dispose(): Promise<void> {
    this.#thread.close();
  }
}
