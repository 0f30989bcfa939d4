/**
 * A time limit that counts only the time its thread was free to notice what it waits for. An engine is
 * started, then the same thread type-checks for forty seconds without a turn: the engine was listening
 * long before the check ended, but a plain timer set for thirty seconds fires as the check ends, before
 * the engine's message is read, and blames the engine. Here the limit is counted in ticks: a tick that
 * comes late (the thread was held) counts as one tick, not as the time it was held, and never ends the
 * wait itself, so the messages that came meanwhile are read first.
 */
export interface LimitClock {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realClock: LimitClock = {
  now: () => performance.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** How often the time is counted: a tick later than twice this found the thread held. */
export const FREE_TIME_TICK_MS = 100;

export interface FreeTimeLimit {
  /** Stops counting; `expire` is not called. */
  clear(): void;
  /** The free time counted so far, in milliseconds. */
  readonly counted: number;
}

/** Calls `expire` once the thread has been free for `limitMs` (counted as above), unless cleared first. */
export function freeTimeLimit(limitMs: number, expire: () => void, clock: LimitClock = realClock, tickMs = FREE_TIME_TICK_MS): FreeTimeLimit {
  let counted = 0;
  let last = clock.now();
  let handle: unknown;
  let cleared = false;
  const tick = () => {
    if (cleared) return;
    const now = clock.now();
    const elapsed = now - last;
    last = now;
    const held = elapsed > tickMs * 2;
    counted += held ? tickMs : elapsed;
    // A late tick comes before the messages that waited behind the held thread: they are read before the next.
    if (counted >= limitMs && !held) {
      cleared = true;
      expire();
      return;
    }
    handle = clock.setTimeout(tick, Math.min(tickMs, Math.max(1, limitMs - counted)));
  };
  handle = clock.setTimeout(tick, Math.min(tickMs, limitMs));
  return {
    clear() {
      cleared = true;
      clock.clearTimeout(handle);
    },
    get counted() {
      return counted;
    },
  };
}
