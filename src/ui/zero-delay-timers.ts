/**
 * Zero-delay timers that are not clamped. esbuild-wasm run on the thread that calls it (`worker: false`,
 * as the bundler worker runs it) hands every message to its Go side with `setTimeout(…, 0)`, and each
 * answer of a plugin callback is such a message: a chain of callbacks nests timers, and browsers clamp
 * nested timers to at least 4 ms after five levels. A bundle of a project of a few hundred modules is
 * a chain of hundreds of resolve and load answers, so most of its time was spent waiting on the clamp.
 * Installed in a worker that runs only esbuild, a zero (or absent or negative) delay runs as the next
 * message of a MessageChannel instead, in the order asked; any other delay is the scope's own timer.
 */

type Timers = Pick<typeof globalThis, 'setTimeout' | 'clearTimeout'>;

/**
 * Replaces `scope`'s setTimeout and clearTimeout (see above); returns what puts the originals back and
 * closes the channel. Zero-delay timers get negative ids, so they never meet the scope's own.
 */
export function installZeroDelayTimers(scope: Timers): () => void {
  const { setTimeout: nativeSet, clearTimeout: nativeClear } = scope;
  const channel = new MessageChannel();
  const due = new Map<number, () => void>();
  let next = -1;
  channel.port1.onmessage = (event: MessageEvent<number>) => {
    const run = due.get(event.data);
    if (!run) return;
    due.delete(event.data);
    run();
  };
  const set = (handler: TimerHandler, delay?: number, ...args: unknown[]): number => {
    if (typeof handler !== 'function' || (delay !== undefined && delay > 0)) return nativeSet(handler as () => void, delay, ...args) as unknown as number;
    const id = next--;
    due.set(id, () => (handler as (...values: unknown[]) => void)(...args));
    channel.port2.postMessage(id);
    return id;
  };
  const clear = (id?: number | string | ReturnType<typeof setTimeout>): void => {
    if (typeof id === 'number' && id < 0) due.delete(id);
    else nativeClear(id as Parameters<typeof clearTimeout>[0]);
  };
  scope.setTimeout = set as unknown as typeof setTimeout;
  scope.clearTimeout = clear as typeof clearTimeout;
  return () => {
    scope.setTimeout = nativeSet;
    scope.clearTimeout = nativeClear;
    due.clear();
    channel.port1.close();
    channel.port2.close();
  };
}
