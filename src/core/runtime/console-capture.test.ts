import { describe, expect, it } from 'vitest';
import { encodeBase64url } from '../share/base64url';
import { ConsoleCapture, decodeCallReport, encodeCallReport, formatLogArguments, LOG_LIMITS } from './console-capture';

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
    expect(encodeCallReport({ logs: lines, error: { code: 'x'.repeat(10_000), message: 'y'.repeat(100_000) } }).length).toBeLessThan(8 * 1024);
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
});
