import { describe, expect, it } from 'vitest';
import { freeTimeLimit, type LimitClock } from './free-time-limit';

/** A clock whose time moves only when told: `advance` runs the timers due on the way, `hold` moves it without a turn. */
class ManualClock implements LimitClock {
  time = 0;
  #timers: Array<{ at: number; callback: () => void; handle: number }> = [];
  #next = 0;
  now = () => this.time;
  setTimeout = (callback: () => void, ms: number) => {
    const handle = ++this.#next;
    this.#timers.push({ at: this.time + ms, callback, handle });
    return handle;
  };
  clearTimeout = (handle: unknown) => {
    this.#timers = this.#timers.filter((timer) => timer.handle !== handle);
  };
  /** The thread is free: timers run as they come due. */
  advance(ms: number): void {
    const end = this.time + ms;
    for (;;) {
      this.#timers.sort((a, b) => a.at - b.at);
      const due = this.#timers[0];
      if (!due || due.at > end) break;
      this.#timers.shift();
      this.time = Math.max(this.time, due.at);
      due.callback();
    }
    this.time = end;
  }
  /** The thread is held (a synchronous type check): time passes, nothing runs; then the timers due run once it is free. */
  hold(ms: number): void {
    this.time += ms;
  }
  /** The first turn after a hold: every timer due now runs. */
  turn(): void {
    this.advance(0);
  }
}

describe('a limit on the time the thread was free', () => {
  it('expires after the limit of free time', () => {
    const clock = new ManualClock();
    let expired = 0;
    freeTimeLimit(1000, () => expired++, clock);
    clock.advance(990);
    expect(expired).toBe(0);
    clock.advance(20);
    expect(expired).toBe(1);
    clock.advance(5000);
    expect(expired).toBe(1);
  });

  it('does not count a turn that held the thread past the limit, and does not expire on the tick that ends it', () => {
    const clock = new ManualClock();
    let expired = 0;
    const limit = freeTimeLimit(30_000, () => expired++, clock);
    clock.advance(500);
    // A forty-second type check on the same thread: a plain 30 s timer would fire as it ends.
    clock.hold(40_000);
    clock.turn();
    expect(expired).toBe(0);
    expect(limit.counted).toBeLessThan(1000);
    // What the engine said meanwhile is read now; it answered, so the limit is cleared.
    limit.clear();
    clock.advance(60_000);
    expect(expired).toBe(0);
  });

  it('near the limit, a held turn still leaves a free turn before it expires', () => {
    const clock = new ManualClock();
    let expired = 0;
    freeTimeLimit(1000, () => expired++, clock);
    clock.advance(950);
    clock.hold(5000);
    clock.turn();
    expect(expired).toBe(0);
    clock.advance(100);
    expect(expired).toBe(1);
  });

  it('still expires for an engine that never answers while the thread is held again and again', () => {
    const clock = new ManualClock();
    let expired = 0;
    freeTimeLimit(2000, () => expired++, clock);
    for (let i = 0; i < 10 && !expired; i++) {
      clock.hold(10_000);
      clock.turn();
      clock.advance(300);
    }
    expect(expired).toBe(1);
  });

  it('cleared, it never expires', () => {
    const clock = new ManualClock();
    let expired = 0;
    freeTimeLimit(100, () => expired++, clock).clear();
    clock.advance(1000);
    expect(expired).toBe(0);
  });
});
