/**
 * The host's watchdog over an engine it cannot interrupt: a handler in `while (true) {}` never yields,
 * so the only cure is ending the engine (a sandbox's worker, a workerd process) from outside. Each
 * request sent to the engine is opened here; it expires once it has waited `limitMs` with no sign of
 * life from the engine, a sign of life being any answer (`progress`): an engine that answers others is
 * not stuck, it is busy, and a request queued behind a slow one is not blamed for it.
 *
 * One timer, set for the earliest expiry. Used by the browser's runtime host (one request at a time),
 * the control plane's app engines (many at once) and both test hosts (silence between test lines).
 */
export interface WatchdogClock {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realClock: WatchdogClock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => {
    const handle = setTimeout(callback, ms);
    // Node: a watchdog does not keep the process alive (the requests it watches do).
    (handle as { unref?: () => void }).unref?.();
    return handle;
  },
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export class Watchdog<T> {
  readonly #limitMs: number;
  readonly #expire: (item: T) => void;
  readonly #clock: WatchdogClock;
  /** Open items and when each started waiting. */
  readonly #open = new Map<T, number>();
  #lastProgress = -Infinity;
  #timer: unknown;
  #timerAt = Infinity;

  /** `expire` is called once for the first item past the limit, which is closed first. */
  constructor(limitMs: number, expire: (item: T) => void, clock: WatchdogClock = realClock) {
    this.#limitMs = limitMs;
    this.#expire = expire;
    this.#clock = clock;
  }

  get size(): number {
    return this.#open.size;
  }

  /** Starts watching `item` (a request sent, a test started). */
  open(item: T): void {
    this.#open.set(item, this.#clock.now());
    this.#schedule();
  }

  /** Stops watching `item`; says whether it was open. */
  close(item: T): boolean {
    const had = this.#open.delete(item);
    if (had) this.#schedule();
    return had;
  }

  /** The engine answered something: every open item's wait starts again from now. */
  progress(): void {
    this.#lastProgress = this.#clock.now();
    this.#schedule();
  }

  /** Stops watching everything; returns what was open. */
  clear(): T[] {
    const items = [...this.#open.keys()];
    this.#open.clear();
    this.#schedule();
    return items;
  }

  #deadlineOf(since: number): number {
    return Math.max(since, this.#lastProgress) + this.#limitMs;
  }

  /**
   * Keeps one timer at or before the earliest deadline. Deadlines only move later (progress) or come
   * and go with items, so a timer already set early enough stays: when it fires early, `#check` finds
   * nothing due and sets it again. Cheap enough for every request of a busy engine.
   */
  #schedule(): void {
    if (this.#open.size === 0) {
      if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
      this.#timer = undefined;
      return;
    }
    let earliest = Infinity;
    for (const since of this.#open.values()) earliest = Math.min(earliest, this.#deadlineOf(since));
    if (this.#timer !== undefined && this.#timerAt <= earliest) return;
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timerAt = earliest;
    this.#timer = this.#clock.setTimeout(() => this.#check(), Math.max(0, earliest - this.#clock.now()));
  }

  #check(): void {
    this.#timer = undefined;
    const now = this.#clock.now();
    for (const [item, since] of this.#open) {
      if (now >= this.#deadlineOf(since)) {
        this.#open.delete(item);
        this.#schedule();
        this.#expire(item);
        return;
      }
    }
    this.#schedule();
  }
}
