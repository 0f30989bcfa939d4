import { describe, expect, it } from 'vitest';
import { passEvent, type TestEvent } from '../testing/events';
import { loadModuleMap } from '../testing/locate';
import { Inbox } from './inbox';
import { followAttempt, isTestRunMessage, runTestsInEngine, type AttemptEnd, type AttemptInbox, type TestRunMessage } from './test-run';

async function follow(inbox: AttemptInbox, timeoutMs = 20): Promise<{ events: TestEvent[]; end: AttemptEnd; started: string[] }> {
  const events: TestEvent[] = [];
  const started: string[] = [];
  const run = followAttempt(inbox, { file: 'tests/a.test.ts', timeoutMs, graceMs: 5, onStart: (message) => started.push(message.name) });
  for (;;) {
    const next = await run.next();
    if (next.done) return { events, end: next.value, started };
    events.push(next.value);
  }
}

const start = (name: string): TestRunMessage => ({ type: 'start', name, moduleUrl: 'blob:tests' });
const pass = (name: string): TestRunMessage => ({ type: 'event', event: passEvent(name, 'tests/a.test.ts', 1) });

describe('followAttempt: the host side of a test file run', () => {
  it('yields each event and ends with the tests run when the engine says done', async () => {
    const inbox: AttemptInbox = new Inbox();
    for (const message of [start('one'), pass('one'), start('two'), pass('two'), { type: 'done' } as const]) inbox.push(message);
    const { events, end, started } = await follow(inbox, 60_000);
    expect(events.map((event) => ('name' in event ? event.name : event.kind))).toEqual(['one', 'two']);
    expect(started).toEqual(['one', 'two']);
    expect(end).toEqual({ ran: ['one', 'two'] });
  });

  it('stops the engine in a test that says nothing past its limit: the test is named for a fresh engine to skip', async () => {
    const inbox: AttemptInbox = new Inbox();
    inbox.push(start('one'));
    inbox.push(pass('one'));
    inbox.push({ type: 'start', name: 'spins', moduleUrl: 'blob:tests', location: 'blob:tests:3:1' });
    const { events, end } = await follow(inbox);
    expect(events.map((event) => ('name' in event ? event.name : event.kind))).toEqual(['one']);
    expect(end).toEqual({ ran: ['one'], stopped: { name: 'spins', moduleUrl: 'blob:tests', location: 'blob:tests:3:1' } });
  });

  it('reports a file that never finishes loading as DG1903', async () => {
    const { events, end } = await follow(new Inbox());
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ kind: 'test.case.fail', name: '(loading the file)', code: 'DG1903', file: 'tests/a.test.ts' });
    expect(end).toEqual({ ran: [] });
  });

  it('reports an engine lost in a test as DG1902 on that test, which counts as run, and the file goes on', async () => {
    const inbox: AttemptInbox = new Inbox();
    inbox.push(start('one'));
    inbox.push({ type: 'crashed', message: 'out of memory' });
    const { events, end } = await follow(inbox, 60_000);
    expect(events[0]).toMatchObject({ kind: 'test.case.fail', name: 'one', code: 'DG1902', message: 'The test runtime failed: out of memory' });
    expect(end).toEqual({ ran: ['one'], lost: true });
  });

  it('ends the file when the runner itself fails: every engine would', async () => {
    const inbox: AttemptInbox = new Inbox();
    inbox.push(start('one'));
    inbox.push({ type: 'failed', error: 'the server module threw' });
    const { events, end } = await follow(inbox, 60_000);
    expect(events[0]).toMatchObject({ name: 'one', code: 'DG1902' });
    expect(end).toEqual({ ran: ['one'] });
  });

  it('takes one result for the test that started, under the file asked for; anything else is forged', async () => {
    const forged: AttemptInbox = new Inbox();
    forged.push(start('mine'));
    forged.push({ type: 'event', event: passEvent('mine', 'tests/other.test.ts', 1) });
    forged.push({ type: 'event', event: passEvent('mine again', 'tests/other.test.ts', 1) });
    const { events, end } = await follow(forged, 60_000);
    expect(events[0]).toMatchObject({ kind: 'test.case.pass', name: 'mine', file: 'tests/a.test.ts' });
    expect(events[1]).toMatchObject({ kind: 'test.case.fail', name: '(the test runtime)', code: 'DG1902' });
    expect(events[1]).toMatchObject({ message: expect.stringContaining('"mine again", which is not the test that started') });
    expect(events).toHaveLength(2);
    expect(end).toEqual({ ran: ['mine'] });
    const other: AttemptInbox = new Inbox();
    other.push(start('mine'));
    other.push({ type: 'event', event: passEvent('yours', 'tests/a.test.ts', 1) });
    const second = await follow(other, 60_000);
    expect(second.events).toHaveLength(1);
    expect(second.events[0]).toMatchObject({ kind: 'test.case.fail', name: 'mine', code: 'DG1902' });
    expect(second.end).toEqual({ ran: ['mine'], lost: true });
  });

  it('hands the rest of the file on when the engine is exhausted, and ends quietly when cancelled', async () => {
    const exhausted: AttemptInbox = new Inbox();
    exhausted.push(start('one'));
    exhausted.push(pass('one'));
    exhausted.push({ type: 'exhausted' });
    expect((await follow(exhausted, 60_000)).end).toEqual({ ran: ['one'], exhausted: true });
    const cancelled: AttemptInbox = new Inbox();
    cancelled.push(start('one'));
    cancelled.push({ type: 'cancelled' });
    expect(await follow(cancelled, 60_000)).toMatchObject({ events: [], end: { ran: [] } });
  });
});

describe('isTestRunMessage: what a host accepts from an engine running a stranger\'s code', () => {
  it('accepts the kernel\'s messages and refuses look-alikes', () => {
    expect(isTestRunMessage(start('x'))).toBe(true);
    expect(isTestRunMessage(pass('x'))).toBe(true);
    expect(isTestRunMessage({ type: 'done' })).toBe(true);
    expect(isTestRunMessage({ type: 'failed', error: 'x' })).toBe(true);
    for (const bad of [null, 'done', { type: 'start', name: 1, moduleUrl: 'u' }, { type: 'event', event: { kind: 'test.case.pass', name: 'x' } }, { type: 'failed' }, { type: 'shell' }, { type: 'start', name: 'x', moduleUrl: 'u', location: 7 }]) {
      expect(isTestRunMessage(bad)).toBe(false);
    }
  });
});

describe('runTestsInEngine: the engine side', () => {
  it('says start and event per test, then done; a runner failure is `failed`', async () => {
    const messages: TestRunMessage[] = [];
    await runTestsInEngine(
      {
        file: 'tests/a.test.ts',
        appName: 'app',
        module: loadModuleMap('mem:tests', JSON.stringify({ version: 3, sources: [], names: [], mappings: '' })),
        moduleUrl: () => 'mem:tests',
        skip: [],
        importTests: () => Promise.reject(new Error('no such module')),
        newRuntime: () => Promise.reject(new Error('unused')),
        sessionId: () => 'session',
        now: () => 0,
      },
      (message) => messages.push(message),
    );
    // A file that throws while loading is a test failure (DG1903), and the run is done.
    expect(messages.map((message) => message.type)).toEqual(['event', 'done']);
    expect(messages[0]).toMatchObject({ event: { code: 'DG1903' } });
  });
});
