import { afterEach, describe, expect, it } from 'vitest';
import { installZeroDelayTimers } from './zero-delay-timers';

/** A scope of its own, so the test's runner keeps the real timers. */
function scope() {
  return { setTimeout: globalThis.setTimeout, clearTimeout: globalThis.clearTimeout };
}

describe('installZeroDelayTimers', () => {
  let uninstall: (() => void) | undefined;
  afterEach(() => uninstall?.());

  it('runs zero-delay timers in the order asked, with their arguments, and not before the current task ends', async () => {
    const timers = scope();
    uninstall = installZeroDelayTimers(timers);
    const seen: string[] = [];
    const done = new Promise<void>((resolve) => {
      timers.setTimeout((a: string) => seen.push(a), 0, 'first');
      timers.setTimeout(() => seen.push('second'));
      timers.setTimeout((a: string, b: string) => (seen.push(a + b), resolve()), -5, 'thi', 'rd');
    });
    seen.push('now');
    await done;
    expect(seen).toEqual(['now', 'first', 'second', 'third']);
  });

  it('runs a chain of nested zero-delay timers to its end', async () => {
    const timers = scope();
    uninstall = installZeroDelayTimers(timers);
    let depth = 0;
    await new Promise<void>((resolve) => {
      const step = () => (++depth === 200 ? resolve() : timers.setTimeout(step, 0));
      timers.setTimeout(step, 0);
    });
    expect(depth).toBe(200);
  });

  it('cancels a zero-delay timer, and leaves timers with a delay to the scope', async () => {
    const timers = scope();
    const native = timers.setTimeout;
    uninstall = installZeroDelayTimers(timers);
    expect(timers.setTimeout).not.toBe(native);
    const seen: string[] = [];
    const cancelled = timers.setTimeout(() => seen.push('cancelled'), 0);
    expect(cancelled).toBeLessThan(0);
    timers.clearTimeout(cancelled);
    const delayed = timers.setTimeout(() => seen.push('delayed'), 5);
    expect(typeof delayed === 'number' && delayed < 0).toBe(false);
    const cancelledLater = timers.setTimeout(() => seen.push('cancelled later'), 5);
    timers.clearTimeout(cancelledLater);
    await new Promise<void>((resolve) => timers.setTimeout(() => resolve(), 30));
    expect(seen).toEqual(['delayed']);
  });

  it('puts the scope\'s own timers back', () => {
    const timers = scope();
    const [set, clear] = [timers.setTimeout, timers.clearTimeout];
    installZeroDelayTimers(timers)();
    expect(timers.setTimeout).toBe(set);
    expect(timers.clearTimeout).toBe(clear);
  });
});
