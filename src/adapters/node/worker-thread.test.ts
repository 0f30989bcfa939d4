/**
 * ThreadHandoff, the move of `platform dev`'s bundling and checking to a thread: work runs here until the
 * thread is warm, there after; and the warm thread's `onWarm` (which lets go of this thread's state: the
 * check session's program and every kept result) waits for the work still running here. A rebuild that
 * straddled the moment used to lose its session mid-analysis and check all 500 files of the bench's app
 * again (a 2.9 s edit in place of 0.15 s).
 */
import { describe, expect, it } from 'vitest';
import { ThreadHandoff, type StartedThread, type ThreadRemote } from './worker-thread';

interface Remote extends ThreadRemote<never> {
  name: string;
}

const thread = (): StartedThread<Remote> => ({ remote: { name: 'thread', answer: () => {}, fail: () => {}, dispose: async () => {} }, stop: () => {} });

function gate(): { opened: Promise<void>; open(): void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe('ThreadHandoff', () => {
  it('lets go of this thread only once the work running here is done', async () => {
    const handoff = new ThreadHandoff<Remote>();
    const log: string[] = [];
    const here = gate();
    const running = handoff.run(
      async () => 'there',
      async () => {
        log.push('here started');
        await here.opened;
        log.push('here ended');
        return 'here';
      },
    );
    const moved = handoff.move(async () => thread(), async () => log.push('warmed'), () => log.push('let go'));
    // The thread is warm: new work goes there, while the work started here goes on here.
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(handoff.warm).toBe(true);
    expect(await handoff.run(async (remote) => remote.name, async () => 'here')).toBe('thread');
    expect(log).toEqual(['here started', 'warmed']);
    here.open();
    expect(await running).toBe('here');
    await moved;
    expect(log).toEqual(['here started', 'warmed', 'here ended', 'let go']);
  });

  it('lets go at once when nothing runs here', async () => {
    const handoff = new ThreadHandoff<Remote>();
    const log: string[] = [];
    await handoff.move(async () => thread(), async () => log.push('warmed'), () => log.push('let go'));
    expect(log).toEqual(['warmed', 'let go']);
    expect(handoff.warm).toBe(true);
  });

  it('waits for work that fails here too', async () => {
    const handoff = new ThreadHandoff<Remote>();
    const log: string[] = [];
    const here = gate();
    const running = handoff.run(async () => 'there', async () => {
      await here.opened;
      throw new Error('the build failed');
    });
    const moved = handoff.move(async () => thread(), async () => {}, () => log.push('let go'));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(log).toEqual([]);
    here.open();
    await expect(running).rejects.toThrow('the build failed');
    await moved;
    expect(log).toEqual(['let go']);
  });
});
