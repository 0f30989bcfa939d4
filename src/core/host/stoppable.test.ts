import { describe, expect, it } from 'vitest';
import { stoppable } from './stoppable';

describe('stoppable', () => {
  it("return() while the run awaits aborts its signal at once (a generator's own return() would wait for its next yield)", async () => {
    const seen: string[] = [];
    const events = stoppable(async function* (signal) {
      yield 'first';
      // Waits for something that never comes, unless the run is stopped.
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      seen.push(`woken, aborted: ${signal.aborted}`);
      if (!signal.aborted) yield 'never';
    })[Symbol.asyncIterator]();
    expect(await events.next()).toEqual({ done: false, value: 'first' });
    const pending = events.next();
    await events.return!();
    expect(await pending).toEqual({ done: true, value: undefined });
    expect(seen).toEqual(['woken, aborted: true']);
  });
});
