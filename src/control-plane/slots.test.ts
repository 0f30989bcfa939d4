import { describe, expect, it } from 'vitest';
import { Slots } from './slots';

describe('Slots', () => {
  it('runs at most its size at once, the rest in order, and frees a slot on failure', async () => {
    const slots = new Slots(2);
    let running = 0;
    let most = 0;
    const order: number[] = [];
    const releases: Array<() => void> = [];
    const tasks = [0, 1, 2, 3, 4].map((i) =>
      slots.run(async () => {
        running++;
        most = Math.max(most, running);
        order.push(i);
        await new Promise<void>((resolve) => releases.push(resolve));
        running--;
        if (i === 1) throw new Error('failed');
        return i;
      }),
    );
    const settled = Promise.allSettled(tasks);
    for (let released = 0; released < 5; released++) {
      while (releases.length === 0) await new Promise((resolve) => setTimeout(resolve, 1));
      releases.shift()!();
    }
    const results = await settled;
    expect(most).toBe(2);
    expect(order).toEqual([0, 1, 2, 3, 4]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled']);
  });
});
