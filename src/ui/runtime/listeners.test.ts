/** The runtime host's listeners (listeners.ts): every listener is told, and answers wait for the journal batches they persist. */
import { describe, expect, it } from 'vitest';
import { CommitListeners, Listeners } from './listeners';

const batch = (n: number) => ({ kind: 'journal' as const, batch: { statements: [], n } as never });

describe('the runtime host’s listeners', () => {
  it('tells every listener, reports one that throws without stopping the others, and stops telling a removed one', () => {
    const reported: unknown[] = [];
    const listeners = new Listeners<[string, number]>((error) => reported.push(error));
    const heard: string[] = [];
    listeners.add((a, b) => heard.push(`first ${a} ${b}`));
    const remove = listeners.add(() => {
      throw new Error('boom');
    });
    listeners.add((a) => heard.push(`third ${a}`));
    listeners.emit('x', 1);
    remove();
    listeners.emit('y', 2);
    expect(heard).toEqual(['first x 1', 'third x', 'first y 2', 'third y']);
    expect(reported.map((e) => (e as Error).message)).toEqual(['boom']);
  });

  it('answers after every journal batch handed over is durable, in order, and never waits for a checkpoint', async () => {
    const reported: unknown[] = [];
    const commits = new CommitListeners((error) => reported.push(error));
    const writes: Array<() => void> = [];
    commits.add((commit) => (commit.kind === 'journal' ? new Promise<void>((done) => writes.push(done)) : new Promise<void>(() => undefined)));
    const answered: string[] = [];
    commits.persist(batch(1));
    const first = commits.afterDurable(() => answered.push('first'));
    commits.persist({ kind: 'checkpoint', state: new Uint8Array() });
    commits.persist(batch(2));
    const second = commits.afterDurable(() => answered.push('second'));
    await Promise.resolve();
    expect(answered).toEqual([]);
    writes[0]!();
    await first;
    expect(answered).toEqual(['first']);
    writes[1]!();
    await second;
    expect(answered).toEqual(['first', 'second']);
    // With nothing pending an answer goes at once.
    await commits.afterDurable(() => answered.push('third'));
    expect(answered).toEqual(['first', 'second', 'third']);
    expect(reported).toEqual([]);
  });

  it('reports a failed write and still answers, and reports a checkpoint that failed in the background', async () => {
    const reported: unknown[] = [];
    const commits = new CommitListeners((error) => reported.push(error));
    commits.add(async (commit) => {
      throw new Error(`${commit.kind} failed`);
    });
    commits.persist({ kind: 'checkpoint', state: new Uint8Array() });
    commits.persist(batch(1));
    let answered = false;
    await commits.afterDurable(() => (answered = true));
    expect(answered).toBe(true);
    await new Promise((done) => setTimeout(done, 0));
    expect(reported.map((e) => (e as Error).message).sort()).toEqual(['checkpoint failed', 'journal failed']);
  });
});
