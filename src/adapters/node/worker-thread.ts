/**
 * A worker thread of `platform dev` that answers the asking side of a core protocol (RemoteBundler for
 * the bundle thread, RemoteAnalyzer for the check thread): its messages go to that side, and its failure
 * (an error, or an exit) fails what was asked. It never keeps the process alive.
 */
/** The asking side of a protocol, as a thread's answers reach it. */
export interface ThreadRemote<Answer> {
  answer(message: Answer): void;
  fail(error: Error): void;
  dispose(): Promise<void>;
}

export interface StartedThread<Remote> {
  remote: Remote;
  /** Fails what is still asked and ends the thread. */
  stop(): void;
}

/** Starts `script` as a thread named `name`; `remote` is made with the function that posts to it. */
export async function startThread<Answer, Remote extends ThreadRemote<Answer>>(script: URL, name: string, remote: (post: (message: unknown) => void) => Remote): Promise<StartedThread<Remote>> {
  // Loaded here, not with this module: the CLI's start-up snapshot loads the modules that start threads,
  // and Node 20 cannot keep the shared working-directory counter that worker_threads makes as it loads
  // (a worker of a process started from a snapshot that holds it fails as it starts: process.cwd() throws).
  const { Worker } = await import('node:worker_threads');
  const worker = new Worker(script, { name: `platform ${name}` });
  const asking = remote((message) => worker.postMessage(message));
  worker.on('message', (answer: Answer) => asking.answer(answer));
  worker.on('error', (error) => asking.fail(error));
  worker.on('exit', (code) => asking.fail(new Error(`The ${name} thread stopped (exit status ${code}).`)));
  // A thread does not keep the process alive: the dev server's own handles do.
  worker.unref();
  return {
    remote: asking,
    stop: () => {
      void asking.dispose();
      void worker.terminate();
    },
  };
}

/**
 * Work done on this thread until a worker thread has warmed up, then there; back here, and the thread
 * ended, when it fails. The bundle thread and the check thread of `platform dev` are each one of these.
 */
export class ThreadHandoff<Remote extends ThreadRemote<never>> {
  #thread: StartedThread<Remote> | undefined;
  /** The thread has answered its warm-up: work goes there. */
  #warm = false;
  #closed = false;
  /** Work running here: `onWarm` waits for it (it lets go of what that work is using). */
  readonly #here = new Set<Promise<unknown>>();

  /** Whether work goes to the thread. */
  get warm(): boolean {
    return this.#warm;
  }

  /** Whether a thread runs (warm or warming), or the hand-off was closed: no other is started. */
  #settled(): boolean {
    return this.#thread !== undefined || this.#closed;
  }

  /** Runs work on the thread when it is warm; here otherwise, and here again when the thread fails (it is then ended). */
  async run<T>(there: (remote: Remote) => Promise<T>, here: () => Promise<T>): Promise<T> {
    const thread = this.#thread;
    if (this.#warm && thread) {
      try {
        return await there(thread.remote);
      } catch (error) {
        if (this.#closed) throw error;
        this.#stop();
      }
    }
    const running = here();
    this.#here.add(running);
    const done = () => this.#here.delete(running);
    running.then(done, done);
    return running;
  }

  /**
   * Starts the thread and warms it (`warmUp`: the work it answers first); work goes to it once that is
   * answered, and `onWarm` runs once the work that was running here is done (a rebuild that straddled the
   * moment keeps what it uses). Resolves when it is warm, or has failed (work stays here).
   */
  async move(start: () => Promise<StartedThread<Remote>>, warmUp: (remote: Remote) => Promise<unknown>, onWarm?: () => void): Promise<void> {
    if (this.#settled()) return;
    const thread = await start();
    // Closed, or moved by another call, while the thread started.
    if (this.#settled()) return thread.stop();
    this.#thread = thread;
    try {
      await warmUp(thread.remote);
      if (this.#thread !== thread || this.#closed) return;
      this.#warm = true;
      // New work goes to the thread now; what this thread lets go of waits for the work still running here.
      while (this.#here.size > 0) await Promise.allSettled([...this.#here]);
      if (this.#thread !== thread || this.#closed) return;
      onWarm?.();
    } catch {
      if (this.#thread === thread) this.#stop();
    }
  }

  #stop(): void {
    this.#thread?.stop();
    this.#thread = undefined;
    this.#warm = false;
  }

  /** Ends the thread; work asked of it meanwhile fails rather than being done here. */
  close(): void {
    this.#closed = true;
    this.#stop();
  }
}
