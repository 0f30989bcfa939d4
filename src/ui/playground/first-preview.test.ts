import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FirstPreview } from './first-preview';

describe('FirstPreview', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('opens once, when the first preview is up, and what waited goes ahead', async () => {
    const latch = new FirstPreview(3000);
    const waited = vi.fn();
    void latch.shown.then(waited);
    expect(latch.opened).toBe(false);
    latch.open();
    latch.open();
    await vi.advanceTimersByTimeAsync(0);
    expect(latch.opened).toBe(true);
    expect(waited).toHaveBeenCalledTimes(1);
  });

  it('opens by itself at its deadline when no preview comes', async () => {
    const latch = new FirstPreview(3000);
    await vi.advanceTimersByTimeAsync(2999);
    expect(latch.opened).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(latch.opened).toBe(true);
  });

  it('a disposed latch does not open at its deadline', async () => {
    const latch = new FirstPreview(3000);
    latch.dispose();
    await vi.advanceTimersByTimeAsync(5000);
    expect(latch.opened).toBe(false);
  });
});
