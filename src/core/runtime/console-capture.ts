/**
 * What a handler writes with `console`, kept per call. The runtime runs calls one at a time, so the
 * lines written while a call runs are that call's. Inside an engine (a workerd isolate, the browser
 * sandbox) the isolate's console is replaced once: an app cannot flood the host's output, and what it
 * writes reaches its owner (`platform logs`, the Deploy panel) instead.
 *
 * Lines travel with the call's answer in one header, `x-platform-call` (base64url of JSON: the lines
 * and, for a failed call, its runtime error), cut to LOG_LIMITS so that the header stays far below
 * what an HTTP parser accepts. The host takes it off before a visitor sees the answer.
 */
import { decodeBase64url, encodeBase64url } from '../bytes.ts';
import type { RuntimeErrorInfo } from '../../modules/types.ts';

export type LogLevel = 'debug' | 'log' | 'info' | 'warn' | 'error';

export interface LogLine {
  level: LogLevel;
  message: string;
  /**
   * Where it was written: the first stack frames of the `console` call (or of an Error it was given),
   * when the capture keeps call sites (the playground's sandboxes, where the bundles' maps are at hand).
   */
  at?: string;
}

export const CALL_REPORT_HEADER = 'x-platform-call';

/**
 * What a call's answer tells its host: the handler's lines, the runtime error a failed call answered
 * with, and the stack frames of what its handler threw (for the owner to map to a file and line: the
 * answer itself never carries them, runtime.md "Errors").
 */
/** A failed call's runtime error as its host records it (the runtime's `RuntimeErrorInfo`; a refusal before the handler ran has no error id). */
export type CallError = Pick<RuntimeErrorInfo, 'code' | 'message'> & Partial<Pick<RuntimeErrorInfo, 'errorId'>>;

export interface CallReport {
  logs: LogLine[];
  error?: CallError;
  stack?: string;
}

export const LOG_LIMITS = {
  /** Lines kept per call; past it, one last line says how many were left out. */
  lines: 20,
  /** Characters per line. */
  lineChars: 500,
  /** Characters of all a call's lines together (before encoding). */
  totalChars: 4000,
  /** Frames (`    at …` lines) kept of a thrown error's stack, and their characters together (the header stays under 8 KiB). */
  stackFrames: 10,
  stackChars: 1000,
  /** Frames and characters kept of a line's call site (`LogLine.at`). */
  atFrames: 4,
  atChars: 400,
} as const;

/** The JSON of a report header that crosses HTTP: 8 KiB as base64url, far below what HTTP parsers accept (16 KiB of headers). */
export const REPORT_BYTES = 6 * 1024;
/** The JSON of a report that never crosses HTTP (the browser sandbox's, whose lines keep their call sites). */
const LOCAL_REPORT_BYTES = 64 * 1024;
/** The longest report header decoded. */
const REPORT_HEADER_CHARS = Math.ceil((LOCAL_REPORT_BYTES * 4) / 3);
const encoder = new TextEncoder();

/** The `console` methods captured, which are the levels of its lines. */
export const consoleLevels: readonly LogLevel[] = ['debug', 'log', 'info', 'warn', 'error'];
const LEVELS = consoleLevels;

/** One argument as `console` shows it: strings as they are, errors by their stack, the rest as JSON where it can be. */
function formatArgument(value: unknown, depth = 0): string {
  if (typeof value === 'string') return value;
  if (value instanceof Error) return value.stack && value.stack.includes(value.message) ? value.stack : `${value.name}: ${value.message}`;
  if (value === undefined || typeof value === 'function' || typeof value === 'symbol' || typeof value === 'bigint') return String(value);
  if (typeof value !== 'object' || value === null) return String(value);
  try {
    const seen = new WeakSet<object>();
    const text = JSON.stringify(value, (_, v: unknown) => {
      if (typeof v === 'bigint') return `${v}n`;
      if (typeof v === 'object' && v !== null) {
        if (seen.has(v)) return '[Circular]';
        seen.add(v);
        if (v instanceof Uint8Array) return `Uint8Array(${v.byteLength})`;
      }
      return v;
    });
    return text ?? String(value);
  } catch {
    return depth ? '[object]' : Object.prototype.toString.call(value);
  }
}

/** The message of one `console` call, cut to a line's length. */
export function formatLogArguments(args: readonly unknown[]): string {
  const text = args.map((a) => formatArgument(a)).join(' ');
  return text.length > LOG_LIMITS.lineChars ? `${text.slice(0, LOG_LIMITS.lineChars - 1)}…` : text;
}

/** Collects the lines of one call (or one test) within LOG_LIMITS, telling `onLine` of each line kept as it comes. */
class CallLines {
  readonly lines: LogLine[] = [];
  #chars = 0;
  #left = 0;
  readonly #onLine: ((line: LogLine) => void) | undefined;

  constructor(onLine?: (line: LogLine) => void) {
    this.#onLine = onLine;
  }

  /** Whether no further line fits (a flood is then counted, not formatted). */
  get full(): boolean {
    return this.lines.length >= LOG_LIMITS.lines || this.#chars >= LOG_LIMITS.totalChars;
  }

  skip(): void {
    this.#left += 1;
  }

  add(level: LogLevel, message: string, at?: string): void {
    if (!this.full && this.#chars + message.length <= LOG_LIMITS.totalChars) {
      this.#keep({ level, message, ...(at ? { at } : {}) });
      this.#chars += message.length;
    } else {
      this.#left += 1;
    }
  }

  finish(): LogLine[] {
    if (this.#left) this.#keep({ level: 'warn', message: `… ${this.#left} more line${this.#left === 1 ? '' : 's'} not kept.` });
    return this.lines;
  }

  #keep(line: LogLine): void {
    this.lines.push(line);
    this.#onLine?.(line);
  }
}

export class ConsoleCapture {
  #current: CallLines | undefined;
  readonly #callSites: boolean;

  /** `callSites`: each line keeps where it was written (`LogLine.at`), for a host that maps it to the app's files. */
  constructor(options: { callSites?: boolean } = {}) {
    this.#callSites = options.callSites === true;
  }

  /** The largest report of this capture's calls (`encodeCallReport`): one that keeps call sites is the browser sandbox's, never sent over HTTP. */
  get reportBytes(): number {
    return this.#callSites ? LOCAL_REPORT_BYTES : REPORT_BYTES;
  }

  /** Replaces the methods of a console (the isolate's) so that they write to the running call, and nowhere else. */
  install(target: Console = globalThis.console): this {
    for (const level of LEVELS) {
      const write = (...args: unknown[]) => {
        // Outside a call (a timer a handler left behind) there is no one to attribute the line to.
        const lines = this.#current;
        if (!lines) return;
        if (lines.full) lines.skip();
        // Made here, so that its first frame is this function's and the next one the caller's.
        else lines.add(level, formatLogArguments(args), this.#callSites ? callSite(args, new Error()) : undefined);
      };
      Object.defineProperty(target, level, { value: write, configurable: false, writable: false });
    }
    return this;
  }

  /** Runs one call; answers what it wrote. Calls do not overlap (the runtime's queue). */
  async collect<T>(work: () => Promise<T>): Promise<{ value: T; lines: LogLine[] }> {
    const end = this.begin();
    let lines: LogLine[] | undefined;
    try {
      const value = await work();
      lines = end();
      return { value, lines };
    } finally {
      if (!lines) end();
    }
  }

  /**
   * Starts collecting, within the same limits as a call, for work that is not one call (a test, which
   * makes many): until the returned `end`, whatever is written is kept and told to `onLine` as it
   * comes (so a test later stopped by force has said what it wrote). `end` answers the lines, the count
   * of lines left out last (told to `onLine` too); a later `begin` ends this collection.
   */
  begin(onLine?: (line: LogLine) => void): () => LogLine[] {
    const lines = new CallLines(onLine);
    this.#current = lines;
    let ended: LogLine[] | undefined;
    return () => {
      if (this.#current === lines) this.#current = undefined;
      return (ended ??= lines.finish());
    };
  }
}

/**
 * A report as its header: base64url of JSON, at most `maxBytes` of JSON (REPORT_BYTES, 8 KiB as base64,
 * for a header that crosses HTTP). Text that JSON escapes (quotes, control characters) or that takes 3
 * UTF-8 bytes a character can make the lines several times their length: the last lines go first (a
 * last line counts them), then the stack.
 */
export function encodeCallReport(report: CallReport, maxBytes: number = REPORT_BYTES): string {
  const error = report.error ? { code: report.error.code.slice(0, 100), message: report.error.message.slice(0, LOG_LIMITS.lineChars), ...(report.error.errorId ? { errorId: report.error.errorId.slice(0, 100) } : {}) } : undefined;
  let stack = report.stack?.slice(0, LOG_LIMITS.stackChars);
  const encode = (kept: number): Uint8Array => {
    const left = report.logs.length - kept;
    const logs = left ? [...report.logs.slice(0, kept), { level: 'warn', message: `… ${left} more line${left === 1 ? '' : 's'} not kept (the report's size).` }] : report.logs;
    return encoder.encode(JSON.stringify({ logs, ...(error ? { error } : {}), ...(stack ? { stack } : {}) }));
  };
  let kept = report.logs.length;
  let bytes = encode(kept);
  while (bytes.byteLength > maxBytes && kept > 0) bytes = encode(--kept);
  if (bytes.byteLength > maxBytes && stack) {
    stack = undefined;
    bytes = encode(kept);
  }
  return encodeBase64url(bytes);
}

/** Where a `console` call was made: the frames of the first Error among its arguments, or of the call (`here`, made in the console method: its first frame is skipped). */
function callSite(args: readonly unknown[], here: Error): string | undefined {
  const error = args.find((a) => a instanceof Error);
  const frames = error ? stackFrames(error, LOG_LIMITS.atFrames) : stackFrames(here, LOG_LIMITS.atFrames + 1)?.split('\n').slice(1).join('\n');
  return frames ? frames.slice(0, LOG_LIMITS.atChars) : undefined;
}

/**
 * The frames of what a handler threw (the `at …` lines of its stack, V8's form in workerd and the
 * browser), cut to LOG_LIMITS; undefined for a throw without them. The thrown value is the app's: its
 * `stack` may be anything, or a getter that throws.
 */
export function thrownFrames(thrown: unknown): string | undefined {
  return stackFrames(thrown, LOG_LIMITS.stackFrames)?.slice(0, LOG_LIMITS.stackChars);
}

/** The first `count` frames (`at …` lines) of a value's stack, each cut to a line's length. */
function stackFrames(thrown: unknown, count: number): string | undefined {
  let stack: unknown;
  try {
    stack = typeof thrown === 'object' && thrown !== null ? (thrown as { stack?: unknown }).stack : undefined;
  } catch {
    return undefined;
  }
  if (typeof stack !== 'string') return undefined;
  const frames: string[] = [];
  // Lazily: a message of megabytes before the frames costs one scan, not a copy per line.
  for (const match of stack.matchAll(/^[ \t]*(at [^\n]*)$/gm)) {
    frames.push(match[1]!.slice(0, LOG_LIMITS.lineChars));
    if (frames.length >= count) break;
  }
  return frames.length ? frames.join('\n') : undefined;
}

/** The report of a header, or an empty one when it is not what encodeCallReport makes (checked, cut again to LOG_LIMITS). */
export function decodeCallReport(header: string | null): CallReport {
  const empty: CallReport = { logs: [] };
  if (!header || header.length > REPORT_HEADER_CHARS) return empty;
  const bytes = decodeBase64url(header);
  if (typeof bytes === 'string') return empty;
  try {
    const parsed = JSON.parse(new TextDecoder().decode(bytes)) as { logs?: unknown; error?: unknown; stack?: unknown } | null;
    if (typeof parsed !== 'object' || parsed === null || !Array.isArray(parsed.logs)) return empty;
    const logs: LogLine[] = [];
    for (const item of parsed.logs.slice(0, LOG_LIMITS.lines + 1)) {
      const { level, message, at } = (item ?? {}) as Partial<LogLine>;
      if (typeof message === 'string' && LEVELS.includes(level as LogLevel)) logs.push({ level: level as LogLevel, message: message.slice(0, LOG_LIMITS.lineChars), ...(typeof at === 'string' && at ? { at: at.slice(0, LOG_LIMITS.atChars) } : {}) });
    }
    const { code, message, errorId } = (typeof parsed.error === 'object' && parsed.error !== null ? parsed.error : {}) as Record<string, unknown>;
    const error = typeof code === 'string' && typeof message === 'string' ? { code: code.slice(0, 100), message: message.slice(0, LOG_LIMITS.lineChars), ...(typeof errorId === 'string' ? { errorId: errorId.slice(0, 100) } : {}) } : undefined;
    const stack = typeof parsed.stack === 'string' && parsed.stack ? parsed.stack.slice(0, LOG_LIMITS.stackChars) : undefined;
    return { logs, ...(error ? { error } : {}), ...(stack ? { stack } : {}) };
  } catch {
    return empty;
  }
}
