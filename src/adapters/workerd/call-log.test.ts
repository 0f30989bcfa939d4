import { describe, expect, it } from 'vitest';
import { CALL_LOG_SIZE, type CallRecord } from '../../core/deploy';
import { CallLogs } from './call-log';

const call = (n: number): CallRecord => ({ at: new Date(n).toISOString(), method: 'POST', path: `/_platform/v0/query/n${n}`, status: 200, durationMs: n, visitor: 'guest', logs: [] });
const paths = (calls: CallRecord[]) => calls.map((c) => c.path);
const expected = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `/_platform/v0/query/n${from + i}`);

describe('CallLogs', () => {
  it('keeps the last CALL_LOG_SIZE calls of each log, oldest first, and reads on from a cursor', () => {
    const logs = new CallLogs();
    expect(logs.read('a')).toEqual({ calls: [], cursor: expect.stringMatching(/\.0$/) });
    for (let n = 1; n <= 5; n++) logs.record('a', call(n));
    const first = logs.read('a');
    expect(paths(first.calls)).toEqual(expected(1, 5));
    expect(first.cursor).toMatch(/\.5$/);

    // Past the size, round and round: the oldest go, order stays.
    const total = CALL_LOG_SIZE * 2 + 37;
    for (let n = 6; n <= total; n++) logs.record('a', call(n));
    logs.record('b', call(1000));
    expect(paths(logs.read('a').calls)).toEqual(expected(total - CALL_LOG_SIZE + 1, total));
    expect(paths(logs.read('b').calls)).toEqual(['/_platform/v0/query/n1000']);

    // From a cursor: what came after it; from one older than what is kept: all that is kept; from the newest: nothing.
    const generation = first.cursor.split('.')[0];
    expect(paths(logs.read('a', `${generation}.${total - 3}`).calls)).toEqual(expected(total - 2, total));
    expect(paths(logs.read('a', first.cursor).calls)).toEqual(expected(total - CALL_LOG_SIZE + 1, total));
    expect(logs.read('a', `${generation}.${total}`).calls).toEqual([]);
    // A cursor of another log's generation (a restart) reads from the start.
    expect(logs.read('a', `000000000000.${total - 3}`).calls).toHaveLength(CALL_LOG_SIZE);
  });

  it('gives copies, so a reader cannot change what is kept; forgets the logs of a prefix', () => {
    const logs = new CallLogs();
    logs.record('app1:preview', call(1));
    logs.record('app10:preview', call(2));
    logs.read('app1:preview').calls[0]!.status = 500;
    expect(logs.read('app1:preview').calls[0]!.status).toBe(200);
    logs.forget('app1:');
    expect(logs.read('app1:preview').calls).toEqual([]);
    expect(paths(logs.read('app10:preview').calls)).toEqual(['/_platform/v0/query/n2']);
  });
});
