import { describe, expect, it } from 'vitest';
import { nodeSqlDriverFactory } from '../../adapters/node/sqljs';
import { defineServer, endpoint, query } from '../../modules/server';
import type { Manifest } from '../manifest';
import { encodeBase64url } from '../bytes';
import { CALL_REPORT_HEADER, ConsoleCapture, decodeCallReport, encodeCallReport, formatLogArguments, LOG_LIMITS, thrownFrames, type LogLine } from './console-capture';
import { personaAuth } from './personas';
import { AppRuntime } from './runtime';

/** A console of our own: the capture replaces its methods as it would the isolate's. */
const fakeConsole = () => ({ log() {}, info() {}, warn() {}, error() {}, debug() {} }) as unknown as Console;

describe('console capture', () => {
  it('keeps the lines a call writes, at their level, and nothing written outside a call', async () => {
    const target = fakeConsole();
    const capture = new ConsoleCapture().install(target);
    target.log('before any call');
    const { value, lines } = await capture.collect(async () => {
      target.log('adding', { title: 'milk' }, 3);
      await Promise.resolve();
      target.error(new TypeError('bad title'));
      return 42;
    });
    expect(value).toBe(42);
    expect(lines[0]).toEqual({ level: 'log', message: 'adding {"title":"milk"} 3' });
    expect(lines[1]!.level).toBe('error');
    expect(lines[1]!.message).toContain('TypeError: bad title');
    expect(lines).toHaveLength(2);
    const next = await capture.collect(async () => 0);
    expect(next.lines).toEqual([]);
  });

  it('cannot be undone by the app: the methods are fixed', () => {
    const target = fakeConsole();
    new ConsoleCapture().install(target);
    expect(() => {
      'use strict';
      (target as { log: unknown }).log = () => {};
    }).toThrow();
  });

  it('cuts a flood to its limits and says how much it left out', async () => {
    const target = fakeConsole();
    const capture = new ConsoleCapture().install(target);
    const { lines } = await capture.collect(async () => {
      for (let i = 0; i < 10_000; i++) target.log('x'.repeat(10_000));
    });
    expect(lines.length).toBeLessThanOrEqual(LOG_LIMITS.lines + 1);
    expect(lines.every((l) => l.message.length <= LOG_LIMITS.lineChars)).toBe(true);
    expect(lines.at(-1)!.message).toMatch(/more lines not kept/);
    expect(encodeCallReport({ logs: lines, error: { code: 'x'.repeat(10_000), message: 'y'.repeat(100_000) }, stack: 'at f (a.js:1:1)\n'.repeat(1_000) }).length).toBeLessThan(8 * 1024);
  });

  it('formats what JSON cannot hold without throwing', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    expect(formatLogArguments([cyclic])).toBe('{"a":1,"self":"[Circular]"}');
    expect(formatLogArguments([10n, undefined, null, Symbol('s')])).toBe('10 undefined null Symbol(s)');
    const hostile = { toJSON() { throw new Error('no'); } };
    expect(formatLogArguments([hostile])).toBe('[object Object]');
  });

  it('round-trips through the header and refuses anything else', () => {
    const report = { logs: [{ level: 'info' as const, message: 'héllo ✓' }], error: { code: 'operation_failed', message: 'no', errorId: 'err_1' } };
    expect(decodeCallReport(encodeCallReport(report))).toEqual(report);
    for (const bad of [null, '', '!!!', encodeCallReport({ logs: [{ level: 'shout', message: 'x' }] } as never), 'eyJhIjoxfQ']) expect(decodeCallReport(bad).logs).toEqual([]);
    const forged = encodeBase64url(new TextEncoder().encode(JSON.stringify({ logs: [], error: { code: 1, message: 'x' } })));
    expect(decodeCallReport(forged)).toEqual({ logs: [] });
  });

  it('collects for longer work (a test) from begin to end, telling each kept line as it comes, within the same limits', () => {
    const target = fakeConsole();
    const capture = new ConsoleCapture().install(target);
    const told: LogLine[] = [];
    const end = capture.begin((line) => told.push(line));
    target.info('first', 1);
    expect(told).toEqual([{ level: 'info', message: 'first 1' }]);
    for (let i = 0; i < LOG_LIMITS.lines + 5; i++) target.log(`line ${i}`);
    expect(told).toHaveLength(LOG_LIMITS.lines);
    const lines = end();
    // The count of what was left out comes last, to the listener too.
    expect(told).toHaveLength(LOG_LIMITS.lines + 1);
    expect(told.at(-1)).toEqual({ level: 'warn', message: '… 6 more lines not kept.' });
    expect(lines).toEqual(told);
    expect(end()).toBe(lines);
    // Ended: nothing more is kept or told.
    target.log('after the end');
    expect(told).toHaveLength(LOG_LIMITS.lines + 1);
  });

  it('keeps where each line was written when asked: the call site, or the frames of an Error it was given', async () => {
    const target = fakeConsole();
    const sites = new ConsoleCapture({ callSites: true }).install(target);
    function writesHere(): void {
      target.log('from a named function');
    }
    const thrown = (() => {
      function throwsHere(): Error {
        return new Error('made here');
      }
      return throwsHere();
    })();
    const { lines } = await sites.collect(async () => {
      writesHere();
      target.error('failed:', thrown);
    });
    expect(lines[0]!.at).toMatch(/^at writesHere \(.*console-capture\.test\.ts:\d+:\d+\)/);
    expect(lines[0]!.at!.split('\n').length).toBeLessThanOrEqual(LOG_LIMITS.atFrames);
    expect(lines[1]!.at).toMatch(/^at throwsHere \(/);
    // The report carries them (cut again when forged), and a capture that was not asked keeps none.
    expect(decodeCallReport(encodeCallReport({ logs: lines })).logs).toEqual(lines);
    const forged = encodeBase64url(new TextEncoder().encode(JSON.stringify({ logs: [{ level: 'log', message: 'x', at: 'y'.repeat(5_000) }, { level: 'log', message: 'z', at: 3 }] })));
    expect(decodeCallReport(forged).logs).toEqual([{ level: 'log', message: 'x', at: 'y'.repeat(LOG_LIMITS.atChars) }, { level: 'log', message: 'z' }]);
    const plain = fakeConsole();
    const without = new ConsoleCapture().install(plain);
    expect((await without.collect(async () => plain.log('x'))).lines).toEqual([{ level: 'log', message: 'x' }]);
  });

  it('decodes a report at every limit at once: non-ASCII lines, call sites and a stack', () => {
    const logs = Array.from({ length: LOG_LIMITS.lines }, () => ({ level: 'log' as const, message: '✓'.repeat(LOG_LIMITS.totalChars / LOG_LIMITS.lines), at: 'a'.repeat(LOG_LIMITS.atChars) }));
    const report = { logs, error: { code: 'operation_failed', message: '✓'.repeat(LOG_LIMITS.lineChars), errorId: 'err_1' }, stack: 's'.repeat(LOG_LIMITS.stackChars) };
    // Whole where the report never crosses HTTP (the browser sandbox's capture, which keeps call sites).
    expect(decodeCallReport(encodeCallReport(report, new ConsoleCapture({ callSites: true }).reportBytes))).toEqual(report);
  });

  it('keeps a header that crosses HTTP under 8 KiB whatever the text: the last lines go first, counted, then the stack', () => {
    const error = { code: 'operation_failed', message: 'no', errorId: 'err_1' };
    const stack = 'at f (platform-app/server/index.js:1:1)';
    for (const char of ['"', '✓', '\u0001', 'x']) {
      const logs = Array.from({ length: LOG_LIMITS.lines }, () => ({ level: 'log' as const, message: char.repeat(LOG_LIMITS.totalChars / LOG_LIMITS.lines) }));
      const header = encodeCallReport({ logs, error, stack }, new ConsoleCapture().reportBytes);
      expect(header.length).toBeLessThanOrEqual(8 * 1024);
      const decoded = decodeCallReport(header);
      expect(decoded.error).toEqual(error);
      expect(decoded.stack).toBe(stack);
      if (char === 'x') expect(decoded.logs).toEqual(logs);
      else expect(decoded.logs.at(-1)!.message).toMatch(/^… \d+ more lines not kept \(the report's size\)\.$/);
    }
    // An error and a stack of escaped text alone: the stack goes.
    const escaped = '\u0001'.repeat(10_000);
    const header = encodeCallReport({ logs: [], error: { code: escaped, message: escaped, errorId: escaped }, stack: escaped });
    expect(header.length).toBeLessThanOrEqual(8 * 1024);
    expect(decodeCallReport(header).stack).toBeUndefined();
  });

  it('a later begin ends the earlier collection: its lines go to the new one only', () => {
    const target = fakeConsole();
    const capture = new ConsoleCapture().install(target);
    const first: string[] = [];
    const second: string[] = [];
    const endFirst = capture.begin((line) => first.push(line.message));
    target.log('one');
    const endSecond = capture.begin((line) => second.push(line.message));
    target.log('two');
    endFirst();
    target.log('three');
    expect(first).toEqual(['one']);
    expect(second).toEqual(['two', 'three']);
    expect(endSecond().map((l) => l.message)).toEqual(['two', 'three']);
  });
});

describe("a thrown error's stack frames", () => {
  it('keeps the frames of a stack, not its message, cut to LOG_LIMITS', () => {
    const error = new Error('boom\n    at forged (nowhere.js:1:1)');
    error.stack = `Error: ${'m'.repeat(100_000)}\n${Array.from({ length: 40 }, (_, i) => `    at f${i} (platform-app/server/index.js:${i + 1}:7)`).join('\n')}`;
    const frames = thrownFrames(error)!;
    expect(frames.split('\n')).toHaveLength(LOG_LIMITS.stackFrames);
    expect(frames.split('\n')[0]).toBe('at f0 (platform-app/server/index.js:1:7)');
    expect(frames.length).toBeLessThanOrEqual(LOG_LIMITS.stackChars);
  });

  it('answers nothing for a throw without frames, and survives a hostile stack', () => {
    expect(thrownFrames('a string')).toBeUndefined();
    expect(thrownFrames({ stack: 42 })).toBeUndefined();
    expect(thrownFrames({ stack: 'Error: no frames here' })).toBeUndefined();
    expect(thrownFrames({ get stack(): string { throw new Error('no'); } })).toBeUndefined();
    expect(thrownFrames(null)).toBeUndefined();
  });

  it('round-trips through the header, cut again when forged', () => {
    const report = { logs: [], error: { code: 'operation_failed', message: 'no', errorId: 'err_1' }, stack: 'at f (platform-app/server/index.js:3:9)' };
    expect(decodeCallReport(encodeCallReport(report))).toEqual(report);
    const forged = encodeBase64url(new TextEncoder().encode(JSON.stringify({ logs: [], stack: 'x'.repeat(10_000) })));
    expect(decodeCallReport(forged).stack).toHaveLength(LOG_LIMITS.stackChars);
    expect(decodeCallReport(encodeBase64url(new TextEncoder().encode(JSON.stringify({ logs: [], stack: 7 }))))).toEqual({ logs: [] });
  });
});

describe("the runtime keeps a failed handler's stack for its owner, never in the answer", () => {
  const manifest: Manifest = { format: 'platform.application-source.v0', name: 'stack-app', entrypoints: { client: 'src/client/main.tsx', server: 'src/server/index.ts' }, capabilities: [] };
  function listBroken(): never {
    throw new Error('listing broke');
  }
  const definition = defineServer({
    queries: { 'items.list': query({ input: {}, handler: async () => listBroken() }) },
    endpoints: { 'GET /api/broken': endpoint(async () => listBroken()) },
  });
  const factory = nodeSqlDriverFactory();
  const make = async () => new AppRuntime({ manifest, definition, driver: (await factory)(), console: new ConsoleCapture().install(fakeConsole()) });
  const alice = personaAuth(manifest.name, 'alice', 'session-1');

  it('a call: the outcome holds the frames of the throw, the error only its code, message and errorId', async () => {
    const outcome = await (await make()).call(alice, 'query', 'items.list', {});
    expect(outcome.error).toEqual({ code: 'operation_failed', message: 'listing broke', errorId: expect.stringMatching(/^err_/) });
    expect(outcome.stack).toMatch(/^at listBroken \(/);
  });

  it('a wire call and an endpoint: the frames travel in the report header, and the body is the runtime error body alone', async () => {
    const runtime = await make();
    for (const request of [new Request('http://app.test/_platform/v0/query/items.list', { method: 'POST', body: '{"input":{}}' }), new Request('http://app.test/api/broken')]) {
      const response = await runtime.fetch(alice, request);
      const report = decodeCallReport(response.headers.get(CALL_REPORT_HEADER));
      expect(report.error?.message).toBe('listing broke');
      expect(report.stack).toMatch(/^at listBroken \(/);
      const body = await response.text();
      expect(body).not.toContain('listBroken');
      expect(Object.keys((JSON.parse(body) as { error: object }).error).sort()).toEqual(['code', 'errorId', 'message']);
    }
  });
});
