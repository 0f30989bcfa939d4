import { describe, expect, it } from 'vitest';
import { failEvent, passEvent, type TestEvent } from './events';
import { runFileToEnd, type Attempt } from './restarts';
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
});
