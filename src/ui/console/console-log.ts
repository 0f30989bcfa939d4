/**
 * The Console panel's lines: what the app's client code (each preview), its server handlers and its
 * tests write with `console`, and the errors they throw, each with its source, persona and, where a
 * stack frame maps through the bundle's source map, the app file and line. Everything here came from
 * the app's code: it is kept as text, cut to size, and never evaluated.
 */
import type { TraceMap } from '@jridgewell/trace-mapping';
import type { Span } from '../../core/diagnostics';
import { consoleLevels, type LogLevel, type PersonaName } from '../../core/runtime';
import { loadModuleMap, locate } from '../../core/testing';

export type ConsoleSource = 'client' | 'server' | 'test';

export interface ConsoleEntry {
  id: number;
  at: number;
  source: ConsoleSource;
  persona?: PersonaName;
  level: LogLevel;
  message: string;
  /** What was running: `query todos.list`, `GET /api/files`, a test's name. */
  context?: string;
  /** Where in the app's files, when a stack frame maps there. */
  location?: { file: string; span: Span };
  /** An uncaught error (not a console line). */
  uncaught?: boolean;
}

/** Lines kept; older ones drop off (a loop that logs cannot grow the page without bound). */
export const CONSOLE_LIMITS = { entries: 500, messageChars: 2000 } as const;

/** A level the app's side sent, or `log` for anything else. */
export function consoleLevel(value: unknown): LogLevel {
  return consoleLevels.includes(value as LogLevel) ? (value as LogLevel) : 'log';
}

/**
 * The bundle's name in stacks we map. A client bundle runs in the preview under a blob: URL; the server
 * bundle is named by the runtime sandbox (`//# sourceURL=platform-app/server/index.js`), whose own code
 * runs under a blob: URL too: its frames (the runtime's, above the handler's) must not be read as the bundle's.
 */
const BUNDLE = 'platform-app.js';
const MODULE_URL = {
  client: /blob:[^\s()]+?(?=:\d+:\d+)/g,
  server: /platform-app\/server\/index\.js(?=:\d+:\d+)/g,
} as const;

/** Source maps parsed, by their text: the latest few bundles' (client and server of a generation or two). */
const maps = new Map<string, TraceMap>();

/**
 * The app file and line of the first frame of `stack` inside the app's own code, through the source map
 * of the `bundle` it ran in (`sourceMap` as esbuild wrote it); undefined when no frame maps there. The
 * one mapper of the app's stacks: client crashes and console lines, server failures and console lines.
 */
export function locateInBundle(stack: string | undefined, sourceMap: string | undefined, bundle: 'client' | 'server'): { file: string; span: Span } | undefined {
  if (!stack || !sourceMap) return undefined;
  let map = maps.get(sourceMap);
  if (!map) {
    try {
      map = loadModuleMap(BUNDLE, sourceMap).map;
    } catch {
      return undefined;
    }
    if (maps.size >= 4) maps.delete(maps.keys().next().value!);
    maps.set(sourceMap, map);
  }
  return locate(stack.slice(0, 20_000).replace(MODULE_URL[bundle], BUNDLE), { url: BUNDLE, map });
}

export class ConsoleLog {
  #entries: ConsoleEntry[] = [];
  #next = 1;
  readonly #listeners = new Set<() => void>();

  get entries(): readonly ConsoleEntry[] {
    return this.#entries;
  }

  add(entry: Omit<ConsoleEntry, 'id' | 'at'>): ConsoleEntry {
    const message = entry.message.length > CONSOLE_LIMITS.messageChars ? `${entry.message.slice(0, CONSOLE_LIMITS.messageChars - 1)}…` : entry.message;
    const added: ConsoleEntry = { ...entry, message, id: this.#next++, at: Date.now() };
    this.#entries = [...this.#entries.slice(-(CONSOLE_LIMITS.entries - 1)), added];
    for (const listener of this.#listeners) listener();
    return added;
  }

  clear(): void {
    this.#entries = [];
    for (const listener of this.#listeners) listener();
  }

  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
