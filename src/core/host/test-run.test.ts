import { describe, expect, it } from 'vitest';
import { nodeSqlDriverFactory } from '../../adapters/node/sqljs';
import { defineServer, query } from '../../modules/server';
import type { Manifest } from '../manifest';
import { ConsoleCapture, LOG_LIMITS, AppRuntime } from '../runtime';
import { passEvent, type TestEvent, loadModuleMap } from '../testing';
import { Inbox } from './inbox';
import { followAttempt, isTestRunMessage, runTestsInEngine, type AttemptEnd, type AttemptInbox, type EngineTestRun, type TestRunMessage } from './test-run';

async function follow(inbox: AttemptInbox, timeoutMs = 20): Promise<{ events: TestEvent[]; end: AttemptEnd; started: string[]; logs: string[] }> {
  const events: TestEvent[] = [];
  const started: string[] = [];
  const logs: string[] = [];
  const run = followAttempt(inbox, { file: 'tests/a.test.ts', timeoutMs, graceMs: 5, onStart: (message) => started.push(message.name), onLog: (test, line, at) => logs.push(`${test}: ${line.level} ${line.message}${at ? ` @${at.file}:${at.span.line}:${at.span.column}` : ''}`) });
  for (;;) {
    const next = await run.next();
    if (next.done) return { events, end: next.value, started, logs };
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

  it('ends the attempt in a call past the handler deadline plus the grace, naming the test and the call; a call that ended is not held', async () => {
    const inbox: AttemptInbox = new Inbox();
    const acknowledged: string[] = [];
    for (const message of [start('one'), { type: 'call', index: 0 }, { type: 'called', index: 0 }, { type: 'call', index: 1 }] as const) inbox.push(message);
    const run = followAttempt(inbox, { file: 'tests/a.test.ts', timeoutMs: 60_000, graceMs: 5, deadlineMs: 20, onCall: (message) => acknowledged.push(`${message.type} ${message.index}`) });
    const next = await run.next();
    expect(next).toEqual({ done: true, value: { ran: [], overdue: { name: 'one', moduleUrl: 'blob:tests', call: 1, deadlineMs: 20 } } });
    expect(acknowledged).toEqual(['call 0', 'called 0', 'call 1']);
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

  it("says each console line of the test that started last, of the file's loading before any, and of none between tests", async () => {
    const inbox: AttemptInbox = new Inbox();
    const log = (message: string): TestRunMessage => ({ type: 'log', level: 'log', message });
    for (const message of [log('loading'), start('one'), { type: 'log', level: 'log', message: 'in one', location: { file: 'tests/a.test.ts', span: { line: 4, column: 3 } } } as const, pass('one'), log('a timer left behind'), start('two'), { type: 'log', level: 'warn', message: 'x'.repeat(10_000) } as const, pass('two'), { type: 'done' } as const]) inbox.push(message);
    const { logs, events } = await follow(inbox, 60_000);
    expect(events).toHaveLength(2);
    expect(logs).toEqual(['(loading the file): log loading', 'one: log in one @tests/a.test.ts:4:3', `two: warn ${'x'.repeat(LOG_LIMITS.lineChars)}`]);
  });

  it('cuts a forged flood of lines to the limit per test, and lines do not keep a silent test alive', async () => {
    const flood: AttemptInbox = new Inbox();
    flood.push(start('one'));
    for (let i = 0; i < 100; i++) flood.push({ type: 'log', level: 'log', message: `line ${i}` });
    flood.push(pass('one'));
    flood.push({ type: 'done' });
    expect((await follow(flood, 60_000)).logs).toHaveLength(LOG_LIMITS.lines + 1);
    // A test that only logs is stopped at its limit as one that says nothing.
    const chatty: AttemptInbox = new Inbox();
    chatty.push(start('spins'));
    const timer = setInterval(() => chatty.push({ type: 'log', level: 'log', message: 'still here' }), 2);
    try {
      const { end } = await follow(chatty, 30);
      expect(end).toEqual({ ran: [], stopped: { name: 'spins', moduleUrl: 'blob:tests' } });
    } finally {
      clearInterval(timer);
    }
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
    expect(isTestRunMessage({ type: 'log', level: 'warn', message: 'x' })).toBe(true);
    expect(isTestRunMessage({ type: 'log', level: 'warn', message: 'x', location: { file: 'tests/a.test.ts', span: { line: 3, column: 1 } } })).toBe(true);
    for (const bad of [null, 'done', { type: 'log', level: 'log', message: 'x', location: { file: 'a' } }, { type: 'log', level: 'log', message: 'x', location: null }, { type: 'log', level: 'shout', message: 'x' }, { type: 'log', level: 'log', message: 1 }, { type: 'log', level: 'log' }, { type: 'start', name: 1, moduleUrl: 'u' }, { type: 'event', event: { kind: 'test.case.pass', name: 'x' } }, { type: 'failed' }, { type: 'shell' }, { type: 'start', name: 'x', moduleUrl: 'u', location: 7 }]) {
      expect(isTestRunMessage(bad)).toBe(false);
    }
  });
});

/** An engine's run of tests/a.test.ts (a module without a map), as `changes` make it. */
const engineRun = (changes: Partial<EngineTestRun>): EngineTestRun => ({
  file: 'tests/a.test.ts',
  appName: 'app',
  module: loadModuleMap('mem:tests', JSON.stringify({ version: 3, sources: [], names: [], mappings: '' })),
  moduleUrl: () => 'mem:tests',
  skip: [],
  importTests: () => Promise.reject(new Error('no such module')),
  newRuntime: () => Promise.reject(new Error('unused')),
  sessionId: () => 'session',
  now: () => 0,
  ...changes,
});

describe('runTestsInEngine: the engine side', () => {
  it('says start and event per test, then done; a runner failure is `failed`', async () => {
    const messages: TestRunMessage[] = [];
    await runTestsInEngine(engineRun({}), (message) => messages.push(message));
    // A file that throws while loading is a test failure (DG1903), and the run is done.
    expect(messages.map((message) => message.type)).toEqual(['event', 'done']);
    expect(messages[0]).toMatchObject({ event: { code: 'DG1903' } });
  });

  it("posts what the file writes while loading and what each test writes, its handlers' lines included, before the test's result", async () => {
    const target = { log() {}, info() {}, warn() {}, error() {}, debug() {} } as unknown as Console;
    const capture = new ConsoleCapture().install(target);
    const manifest: Manifest = { format: 'platform.application-source.v0', name: 'app', entrypoints: { client: 'src/client/main.tsx', server: 'src/server/index.ts' }, capabilities: [] };
    const definition = defineServer({ queries: { 'items.count': query({ input: {}, handler: async () => (target.info('counting in the handler'), 3) }) } });
    const factory = await nodeSqlDriverFactory();
    const host = () => (globalThis as Record<symbol, { register(name: string, fn: () => unknown): void; call(persona: string, kind: string, name: string, input: unknown): Promise<unknown> }>)[Symbol.for('platform.test.host')]!;
    const messages: TestRunMessage[] = [];
    await runTestsInEngine(
      engineRun({
        console: capture,
        async importTests() {
          target.log('the file loads');
          host().register('counts', async () => {
            target.log('asking', { n: 1 });
            await host().call('alice', 'query', 'items.count', {});
          });
          host().register('quiet', async () => undefined);
        },
        newRuntime: async () => new AppRuntime({ manifest, definition, driver: factory() }),
      }),
      (message) => messages.push(message),
    );
    const told = messages.map((m) => (m.type === 'log' ? `log ${m.level} ${m.message}` : m.type === 'start' ? `start ${m.name}` : m.type === 'event' ? `event ${'name' in m.event ? m.event.name : ''}` : m.type));
    expect(told).toEqual(['log log the file loads', 'start counts', 'log log asking {"n":1}', 'log info counting in the handler', 'event counts', 'start quiet', 'event quiet', 'done']);
    // Nothing is collected once the run is over.
    target.log('after the run');
    expect(messages).toHaveLength(told.length);
  });
});
