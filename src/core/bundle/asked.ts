/**
 * Requests sent to another thread and waiting for their answers (the bundle thread's and the check
 * thread's asking sides: remote-bundler.ts, remote-analyzer.ts): numbered, each settled by the answer
 * that names it, and every one failed, now and later, once the thread is gone.
 */
export class Asked<Result, Held extends object = object> {
  readonly #waiting = new Map<number, { held: Held; resolve(result: Result): void; reject(error: Error): void }>();
  #next = 1;
  #failed: Error | undefined;

  /**
   * Asks: `send` posts the request under the id it is given. The answer settles the promise; it fails at
   * once when the thread is gone or `send` throws (a project the thread cannot read).
   */
  ask(held: Held, send: (id: number) => void): Promise<Result> {
    if (this.#failed) return Promise.reject(this.#failed);
    const id = this.#next++;
    return new Promise<Result>((resolve, reject) => {
      this.#waiting.set(id, { held, resolve, reject });
      try {
        send(id);
      } catch (error) {
        this.#waiting.delete(id);
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  }

  /** What a request still waiting was asked with (undefined once it is settled, or for an unknown id). */
  held(id: number): Held | undefined {
    return this.#waiting.get(id)?.held;
  }

  /** Settles a request with its answer: a result, or the error the thread named. */
  settle(id: number, answer: { result: Result } | { error: Error }): void {
    const waiting = this.#waiting.get(id);
    this.#waiting.delete(id);
    if (!waiting) return;
    if ('result' in answer) waiting.resolve(answer.result);
    else waiting.reject(answer.error);
  }

  /** The thread is gone: every request waiting, and every one asked later, fails with this. */
  fail(error: Error): void {
    this.#failed ??= error;
    for (const waiting of this.#waiting.values()) waiting.reject(error);
    this.#waiting.clear();
  }
}
