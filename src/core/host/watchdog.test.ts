import { describe, expect, it } from 'vitest';
import { Watchdog, type WatchdogClock } from './watchdog';

/** A clock the test moves by hand. */
function manualClock() {
  let now = 0;
  let timers: Array<{ at: number; callback: () => void; handle: number }> = [];
  let next = 1;
  const clock: WatchdogClock = {
    now: () => now,
    setTimeout: (callback, ms) => {
      const handle = next++;
      timers.push({ at: now + ms, callback, handle });
      return handle;
    },
    clearTimeout: (handle) => {
      timers = timers.filter((timer) => timer.handle !== handle);
    },
  };
  const advance = (ms: number) => {
    const until = now + ms;
    for (;;) {
      const due = timers.filter((timer) => timer.at <= until).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      timers = timers.filter((timer) => timer !== due);
      now = due.at;
      due.callback();
    }
    now = until;
  };
  return { clock, advance, pending: () => timers.length };
}

describe('Watchdog', () => {
  it('expires an item left waiting past the limit, once, and closes it', () => {
    const { clock, advance } = manualClock();
    const expired: string[] = [];
    const dog = new Watchdog<string>(100, (item) => expired.push(item), clock);
    dog.open('a');
    advance(99);
    expect(expired).toEqual([]);
    advance(1);
    expect(expired).toEqual(['a']);
    expect(dog.size).toBe(0);
    advance(1000);
    expect(expired).toEqual(['a']);
  });

  it('does not expire what was closed in time, and sets no timer when nothing is open', () => {
    const { clock, advance, pending } = manualClock();
    const expired: string[] = [];
    const dog = new Watchdog<string>(100, (item) => expired.push(item), clock);
    dog.open('a');
    advance(50);
    expect(dog.close('a')).toBe(true);
    expect(dog.close('a')).toBe(false);
    expect(pending()).toBe(0);
    advance(500);
    expect(expired).toEqual([]);
  });

  it('counts from the last sign of life of the engine: a request queued behind a busy one is not blamed', () => {
    const { clock, advance } = manualClock();
    const expired: string[] = [];
    const dog = new Watchdog<string>(100, (item) => expired.push(item), clock);
    dog.open('slow');
    dog.open('queued');
    advance(80);
    dog.close('slow');
    dog.progress();
    advance(80);
    expect(expired).toEqual([]);
    advance(20);
    expect(expired).toEqual(['queued']);
  });

  it('expires one item per limit when the engine stays silent, earliest first', () => {
    const { clock, advance } = manualClock();
    const expired: string[] = [];
    const dog = new Watchdog<string>(100, (item) => expired.push(item), clock);
    dog.open('first');
    advance(30);
    dog.open('second');
    advance(70);
    expect(expired).toEqual(['first']);
    advance(30);
    expect(expired).toEqual(['first', 'second']);
  });

  it('clear() hands back what was open and nothing expires after it', () => {
    const { clock, advance } = manualClock();
    const expired: number[] = [];
    const dog = new Watchdog<number>(10, (item) => expired.push(item), clock);
    dog.open(1);
    dog.open(2);
    expect(dog.clear().sort()).toEqual([1, 2]);
    advance(100);
    expect(expired).toEqual([]);
  });

  it('runs on real timers', async () => {
    const expired = await new Promise<string>((resolve) => new Watchdog<string>(5, resolve).open('real'));
    expect(expired).toBe('real');
  });
});
