import { describe, expect, it } from 'vitest';
import { failEvent, passEvent, type TestEvent } from './events';
import { runFileToEnd, type Attempt, type OverdueCalls } from './restarts';
import { diagnostic } from '../diagnostics';

const TEST = { file: 'tests/a.test.ts', map: JSON.stringify({ version: 3, sources: [], names: [], mappings: '' }) };
const NAMES = ['one', 'two', 'three'];

/** An engine that runs the tests not skipped, and ends as `fate` says when it reaches `at`. */
function engine(fate: 'stopped' | 'lost', at: string, attempts: string[][]) {
  return async function* (skip: string[]): AsyncGenerator<TestEvent, Attempt> {
    attempts.push(skip);
    const ran: string[] = [];
    for (const name of NAMES.filter((n) => !skip.includes(n))) {
      if (name === at && attempts.length === 1) {
        if (fate === 'stopped') return { ran, stopped: { name, moduleUrl: 'mem:tests' } };
        yield failEvent(name, 0, { ...diagnostic('DG1902', 'The test runtime failed: out of memory'), kind: 'error' });
        return { ran: [...ran, name], lost: true };
      }
      ran.push(name);
      yield passEvent(name, TEST.file, 1);
    }
    return { ran };
  };
}

async function collect(events: AsyncGenerator<TestEvent>): Promise<TestEvent[]> {
  const all: TestEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

describe('runFileToEnd', () => {
  it('reports a stopped test as DG1906 and runs the rest of the file in a fresh engine', async () => {
    const attempts: string[][] = [];
    const events = await collect(runFileToEnd(TEST, 1000, engine('stopped', 'two', attempts)));
    expect(events.map((e) => ('name' in e ? `${e.kind} ${e.name}` : e.kind))).toEqual(['test.case.pass one', 'test.case.fail two', 'test.case.pass three']);
    expect(events[1]).toMatchObject({ code: 'DG1906' });
    expect(attempts).toEqual([[], ['one', 'two']]);
  });

  it('goes on after an engine lost in a test, whose failure the attempt reported, without a DG1906', async () => {
    const attempts: string[][] = [];
    const events = await collect(runFileToEnd(TEST, 1000, engine('lost', 'two', attempts)));
    expect(events.map((e) => ('name' in e ? `${e.kind} ${e.name}` : e.kind))).toEqual(['test.case.pass one', 'test.case.fail two', 'test.case.pass three']);
    expect(events[1]).toMatchObject({ code: 'DG1902' });
    expect(attempts).toEqual([[], ['one', 'two']]);
  });

  it('runs a test ended in a call past the handler deadline again, that call answered 504, and stops it as DG1906 once such calls spend its limit', async () => {
    // 'two' makes calls 0 and 1 spin; the deadline (300 ms) fits three times in the test's limit (1000 ms).
    const attempts: Array<{ skip: string[]; overdue: OverdueCalls }> = [];
    const spinning = (spins: number) =>
      async function* (skip: string[], overdue: OverdueCalls): AsyncGenerator<TestEvent, Attempt> {
        attempts.push({ skip, overdue: JSON.parse(JSON.stringify(overdue)) as OverdueCalls });
        const ran: string[] = [];
        for (const name of NAMES.filter((n) => !skip.includes(n))) {
          if (name === 'two') {
            const answered = overdue.two?.length ?? 0;
            if (answered < spins) return { ran, overdue: { name, moduleUrl: 'mem:tests', call: answered, deadlineMs: 300 } };
          }
          ran.push(name);
          yield passEvent(name, TEST.file, 1);
        }
        return { ran };
      };
    const events = await collect(runFileToEnd(TEST, 1000, spinning(2)));
    expect(events.map((e) => ('name' in e ? `${e.kind} ${e.name}` : e.kind))).toEqual(['test.case.pass one', 'test.case.pass two', 'test.case.pass three']);
    expect(attempts).toEqual([
      { skip: [], overdue: {} },
      { skip: ['one'], overdue: { two: [0] } },
      { skip: ['one'], overdue: { two: [0, 1] } },
    ]);

    attempts.length = 0;
    const stopped = await collect(runFileToEnd(TEST, 1000, spinning(10)));
    expect(stopped.map((e) => ('name' in e ? `${e.kind} ${e.name}` : e.kind))).toEqual(['test.case.pass one', 'test.case.fail two', 'test.case.pass three']);
    expect(stopped[1]).toMatchObject({ code: 'DG1906' });
    // The fourth overdue call brings the test to 1200 ms, past its 1000: stopped, and 'three' runs in the last attempt.
    expect(attempts.map((a) => a.overdue.two ?? [])).toEqual([[], [0], [0, 1], [0, 1, 2], [0, 1, 2, 3]]);
  });
});
