/** The `platform.dev.v0` events of `platform dev` and `platform preview`, and their readable lines. */
import { diagnostic, type Diagnostic, type DiagnosticInit } from '../diagnostics/index.ts';
import type { CallRecord } from '../deploy/index.ts';
import { DEV_PROTOCOL, formatEvent, type TestEvent } from '../testing/index.ts';
import type { LocalMode } from './paths.ts';

export { DEV_PROTOCOL };

/**
 * The `platform.dev.v0` events: what `platform dev` streams (tooling.md, Events) and what the
 * playground's event log says besides (`PlaygroundEvent`), one union that both emit.
 */
export type DevEvent = DevStreamEvent | PlaygroundEvent;

/** What `platform dev` and `platform preview` stream (and the playground's log shares: the compile loop's events, the tests'). */
export type DevStreamEvent =
  /** Serving: `url` is the discovery URL (wait for this event rather than sleeping). */
  | { protocol: typeof DEV_PROTOCOL; kind: 'preview.ready'; mode: LocalMode; url: string; urls: string[]; persona: string; generation: number; artifactId?: string }
  /** The runtime was restarted (a new server generation, or back on the last good one): its URLs replace the old ones. */
  | { protocol: typeof DEV_PROTOCOL; kind: 'server.restarted'; mode: LocalMode; url: string; urls: string[]; generation: number; reason: string }
  | { protocol: typeof DEV_PROTOCOL; kind: 'compile.start'; generation: number; changed: string[] }
  /** A failed rebuild (DG1602 to DG1605 only), Diagnostic-shaped; `diagnostics` are the ones that caused it (the compiler's, or an unusable env file's DG5134). */
  | ({ protocol: typeof DEV_PROTOCOL; kind: 'compile.diagnostic'; generation: number; diagnostics: Diagnostic[] } & CompileDiagnostic)
  /**
   * A new generation serves; `diagnostics` are its warnings; `phases` say where `durationMs` went
   * (`platform dev`). The playground says besides what the build kept of the one before
   * (`client`/`server`: `kept`), whether the runtime kept running (`runtime: 'kept'`), and a first
   * build previewed before its type check (`typecheck: 'after'`).
   */
  | { protocol: typeof DEV_PROTOCOL; kind: 'compile.ready'; generation: number; durationMs: number; phases?: CompilePhases; restarted: boolean; diagnostics: Diagnostic[] } & ReadyDetails
  /** A call the app served that failed or wrote with `console` (others are only in `platform logs`). */
  | { protocol: typeof DEV_PROTOCOL; kind: 'server.call'; mode: LocalMode; call: CallRecord }
  /** The server stopped (Ctrl-C, or it could not go on). */
  | { protocol: typeof DEV_PROTOCOL; kind: 'server.stopped'; mode: LocalMode; reason: string }
  /** The tests, run on the generation that serves once the files are quiet: `platform test`'s events, with that generation. */
  | (TestEvent & { generation: number });

/** An event's fields but its protocol and kind. */
export type DevEventPayload<K extends DevEvent['kind']> = Omit<Extract<DevEvent, { kind: K }>, 'protocol' | 'kind'>;

/** What the playground's event log says that no command streams: its stored builds, previews, runtime, data and files. */
export type PlaygroundEvent =
  /** The last good build an earlier session kept serves (`while: 'starting'`: shown as the session begins). */
  | { protocol: typeof DEV_PROTOCOL; kind: 'compile.restored'; generation: number; savedAt: string; while?: 'starting' }
  /** A first build, previewed before its type check, was found broken by it and taken down. */
  | { protocol: typeof DEV_PROTOCOL; kind: 'compile.taken-down'; generation: number; errors: number }
  | { protocol: typeof DEV_PROTOCOL; kind: 'runtime.restarted'; reason: string }
  /** A call a preview made: who, what, how it ended, how long it took. */
  | { protocol: typeof DEV_PROTOCOL; kind: 'runtime.call'; persona: string; operation: string; status: number; durationMs: number }
  | { protocol: typeof DEV_PROTOCOL; kind: 'runtime.error'; persona: string; operation: string; code: string; message: string; file?: string; line?: number }
  /** A preview loaded a generation (`page: 'kept'`: the same page, its queries run again). */
  | { protocol: typeof DEV_PROTOCOL; kind: 'preview.loaded'; generation: number | undefined; page?: 'kept' }
  | { protocol: typeof DEV_PROTOCOL; kind: 'preview.live'; message: string }
  | { protocol: typeof DEV_PROTOCOL; kind: 'preview.error'; message: string }
  | { protocol: typeof DEV_PROTOCOL; kind: 'preview.notice'; message: string }
  | { protocol: typeof DEV_PROTOCOL; kind: 'preview.unresponsive'; message: string }
  /** A deleted file or folder brought back. */
  | { protocol: typeof DEV_PROTOCOL; kind: 'files.restored'; name: string; files: number }
  | { protocol: typeof DEV_PROTOCOL; kind: 'state.imported'; counts: Record<string, number> }
  | { protocol: typeof DEV_PROTOCOL; kind: 'state.import.refused'; code: string; message: string; detailCode?: string }
  | { protocol: typeof DEV_PROTOCOL; kind: 'state.reset'; recoveryCopy: number }
  | { protocol: typeof DEV_PROTOCOL; kind: 'state.restored'; savedAt: string }
  /** The test panel's runs: `platform test`'s events, with the file each came from. */
  | (TestEvent & { testFile?: string });

/** What the playground's `compile.ready` says besides (see the event). */
export interface ReadyDetails {
  client?: 'kept';
  server?: 'kept';
  runtime?: 'kept';
  typecheck?: 'after';
}

/** The codes a `compile.diagnostic` may carry (tooling.md, Events): a failed rebuild, DG1602 to DG1605. */
export type CompileEventCode = 'DG1602' | 'DG1603' | 'DG1604' | 'DG1605';

/** The diagnostic a `compile.diagnostic` event is: another code is a type error, so no event carries one. */
export type CompileDiagnostic = Omit<Diagnostic, 'code'> & { code: CompileEventCode };

/** Makes the head of a `compile.diagnostic` event. */
export function compileDiagnostic(code: CompileEventCode, message: string, init: DiagnosticInit = {}): CompileDiagnostic {
  return { ...diagnostic(code, message, init), code };
}

/** Milliseconds of a rebuild by phase: reading the project, type-checking, bundling, and the new generation taking over. */
export interface CompilePhases {
  analyze: number;
  typecheck: number;
  bundle: number;
  promote: number;
}

/** Makes an event of a kind. */
export function devEvent<K extends DevEvent['kind']>(kind: K, payload: DevEventPayload<K>): DevEvent {
  return { protocol: DEV_PROTOCOL, kind, ...payload } as unknown as DevEvent;
}

function diagnosticLine(d: Diagnostic): string {
  const location = d.file ? `${d.file}${d.span ? `:${d.span.line}:${d.span.column}` : ''}: ` : '';
  return `${location}${d.severity} ${d.code}: ${d.message}${d.hint ? `\n    hint: ${d.hint}` : ''}`;
}

/** One readable line (or a few) for an event, as `platform dev` prints them without `--json`. */
export function formatDevEvent(event: DevEvent): string {
  switch (event.kind) {
    case 'preview.ready':
      return `➜ ${event.mode} server ready at ${event.url} (as ${event.persona}${event.artifactId ? `, ${event.artifactId.slice(0, 19)}…` : ''})`;
    case 'server.restarted':
      return `↻ runtime restarted (${event.reason}); serving at ${event.url}`;
    case 'compile.start':
      return `… rebuilding${event.changed.length ? ` (${event.changed.slice(0, 3).join(', ')}${event.changed.length > 3 ? ', …' : ''})` : ''}`;
    case 'compile.diagnostic': {
      const { protocol: _p, kind: _k, generation: _g, diagnostics, ...head } = event;
      return [diagnosticLine(head as Diagnostic), ...diagnostics.map((d) => `  ${diagnosticLine(d).replace(/\n/g, '\n  ')}`)].join('\n');
    }
    case 'compile.ready':
      return [`✓ generation ${event.generation} serving (${event.durationMs} ms${event.restarted ? ', runtime restarted' : ''})`, ...event.diagnostics.map(diagnosticLine)].join('\n');
    case 'server.call': {
      const { call } = event;
      const failure = call.error ? `  ${call.error.code}: ${call.error.message}` : '';
      return [`← ${call.method} ${call.path} ${call.status} (${call.durationMs} ms)${failure}`, ...call.logs.map((line) => `    [${line.level}] ${line.message}`)].join('\n');
    }
    case 'server.stopped':
      return `■ ${event.mode} server stopped: ${event.reason}`;
    case 'test.case.pass':
    case 'test.case.fail':
    case 'test.run.finish':
      if (event.kind === 'test.run.finish') return [`  tests${'generation' in event ? ` of generation ${event.generation}` : ''}: ${formatEvent(event)}`, ...event.diagnostics.map((d) => `    ${diagnosticLine(d).replace(/\n/g, '\n    ')}`)].join('\n');
      return `  ${formatEvent(event).replace(/\n/g, '\n  ')}`;
    case 'compile.restored':
    case 'compile.taken-down':
    case 'runtime.restarted':
    case 'runtime.call':
    case 'runtime.error':
    case 'preview.loaded':
    case 'preview.live':
    case 'preview.error':
    case 'preview.notice':
    case 'preview.unresponsive':
    case 'files.restored':
    case 'state.imported':
    case 'state.import.refused':
    case 'state.reset':
    case 'state.restored': {
      // The playground's own: no command prints them; their fields, as the playground's log shows them.
      const { protocol: _p, kind, ...fields } = event;
      return `${kind} ${Object.entries(fields).map(([key, value]) => `${key}=${typeof value === 'object' ? JSON.stringify(value) : String(value)}`).join(' ')}`;
    }
    default: {
      const unknown: never = event;
      return String(unknown);
    }
  }
}
