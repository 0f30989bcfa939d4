/** Requests to another thread: each settled by the answer naming it, all failed once the thread is gone. */
import { describe, expect, it } from 'vitest';
import { Asked } from './asked';

describe('Asked', () => {
  it('settles each request by its id, holds what it was asked with until then, and ignores unknown ids', async () => {
    const asked = new Asked<string, { name: string }>();
    const sent: number[] = [];
    const first = asked.ask({ name: 'first' }, (id) => sent.push(id));
    const second = asked.ask({ name: 'second' }, (id) => sent.push(id));
    expect(sent).toEqual([1, 2]);
    expect(asked.held(2)).toEqual({ name: 'second' });
    asked.settle(2, { error: new Error('refused') });
    asked.settle(1, { result: 'one' });
    asked.settle(7, { result: 'nobody asked' });
    await expect(first).resolves.toBe('one');
    await expect(second).rejects.toThrow('refused');
    expect(asked.held(1)).toBeUndefined();
  });

  it('fails what waits and what is asked later once the thread is gone, and a request that cannot be sent', async () => {
    const asked = new Asked<string>();
    const waiting = asked.ask({}, () => undefined);
    const unsent = new Asked<string>().ask({}, () => {
      throw new Error('not this project');
    });
    await expect(unsent).rejects.toThrow('not this project');
    asked.fail(new Error('the thread stopped'));
    await expect(waiting).rejects.toThrow('the thread stopped');
    let posted = false;
    await expect(asked.ask({}, () => (posted = true))).rejects.toThrow('the thread stopped');
    expect(posted).toBe(false);
  });
});
