/**
 * An event stream its reader can stop at once. An async generator's `return()` waits while the generator
 * awaits (a test run waiting on its engine's next line): it is queued until the next `yield`, which may
 * be a test's whole time limit away. Here `return()` first aborts the signal the run was given, so the
 * run ends its engine now and unwinds, then returns.
 */
export function stoppable<T>(run: (signal: AbortSignal) => AsyncGenerator<T>): AsyncIterable<T> {
  return {
    [Symbol.asyncIterator](): AsyncIterator<T> {
      const controller = new AbortController();
      const events = run(controller.signal);
      return {
        next: () => events.next(),
        return: (value?: unknown) => {
          controller.abort();
          return events.return(value as never);
        },
      };
    },
  };
}
