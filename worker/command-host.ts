/**
 * `platform <args>` in the compiler worker: the core's own commands (check, build, test, diagnostics,
 * help) over the project's files in memory, for the terminal when no WebContainer is available. The
 * tests of `platform test` run in the page's sandboxes (they need the DOM): the worker asks the page
 * to run them (`command-tests`) and feeds the events it sends back to the core's test command.
 */
import { runCommandLine, type CommandHost } from '../src/core/commands';
import type { Compiler } from '../src/core/build';
import { MemoryFileSystem, normalizeProjectPath } from '../src/core/fs';
import type { TestEvent } from '../src/core/testing';
import type { CompilerRequest, CompilerResponse } from './protocol/compiler';

type CommandRequest = Extract<CompilerRequest, { type: 'command' }>;
type TestReply = Extract<CompilerRequest, { type: 'command-test-event' | 'command-tests-done' }>;

/** The events the page sends for one command's test run, as the async iterable the core reads. */
class TestEventQueue implements AsyncIterable<TestEvent> {
  readonly #items: TestEvent[] = [];
  #wake: (() => void) | undefined;
  #done = false;
  #error: string | undefined;

  push(event: TestEvent): void {
    this.#items.push(event);
    this.#wake?.();
  }

  end(error?: string): void {
    this.#done = true;
    this.#error = error;
    this.#wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<TestEvent> {
    for (;;) {
      const next = this.#items.shift();
      if (next) {
        yield next;
      } else if (this.#done) {
        if (this.#error !== undefined) throw new Error(this.#error);
        return;
      } else {
        await new Promise<void>((resolve) => (this.#wake = resolve));
        this.#wake = undefined;
      }
    }
  }
}

/** A folder of the project as a file system of its own (`platform check sub/dir`); outside it, nothing. */
function projectAt(files: MemoryFileSystem, directory: string): MemoryFileSystem {
  const folder = normalizeProjectPath(directory);
  if (folder === '') return files;
  if (folder === undefined) return new MemoryFileSystem();
  const prefix = `${folder}/`;
  return new MemoryFileSystem(Object.fromEntries(files.entries().filter(([path]) => path.startsWith(prefix)).map(([path, data]) => [path.slice(prefix.length), data])));
}

export class CommandRuns {
  readonly #post: (message: CompilerResponse) => void;
  readonly #testRuns = new Map<number, TestEventQueue>();

  constructor(post: (message: CompilerResponse) => void) {
    this.#post = post;
  }

  /**
   * Runs one command line. `compilerDone` is called when the command no longer needs the compiler
   * (its tests are running in the page), so other requests can go on meanwhile.
   */
  async run(request: CommandRequest, compiler: Compiler, version: string, compilerDone: () => void): Promise<void> {
    const { id } = request;
    const files = new MemoryFileSystem(request.files);
    const host: CommandHost = {
      version,
      project: (directory) => projectAt(files, directory),
      compiler: async () => (request.installUnavailable ? { ...compiler, installUnavailable: request.installUnavailable } : compiler),
      print: (text) => this.#post({ type: 'command-output', id, text }),
      runTests: (prepared, options) => {
        compilerDone();
        const queue = new TestEventQueue();
        if (!prepared.server || !prepared.manifest) {
          queue.end();
          return queue;
        }
        this.#testRuns.set(id, queue);
        this.#post({ type: 'command-tests', id, manifest: prepared.manifest, serverCode: prepared.server.code, tests: prepared.tests, ...(options.only !== undefined ? { only: options.only } : {}) });
        return queue;
      },
    };
    try {
      const outcome = await runCommandLine(request.args, host);
      this.#post({ type: 'command-result', id, output: outcome.output, exitCode: outcome.exitCode });
    } catch (error) {
      // What the CLI prints for a crash (src/cli/main.ts): DG0000, the one code outside an envelope.
      const message = `platform crashed before producing a result: ${error instanceof Error ? error.message : String(error)}`;
      const output = request.args.includes('--json') ? JSON.stringify({ code: 'DG0000', severity: 'error', message }) : `error DG0000: ${message}`;
      this.#post({ type: 'command-result', id, output, exitCode: 1 });
    } finally {
      this.#testRuns.delete(id);
    }
  }

  /** An event of a test run from the page, or its end. */
  receive(reply: TestReply): void {
    const queue = this.#testRuns.get(reply.id);
    if (!queue) return;
    if (reply.type === 'command-test-event') queue.push(reply.event);
    else queue.end(reply.error);
  }
}
