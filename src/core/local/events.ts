/** The `platform.dev.v0` events of `platform dev` and `platform preview`, and their readable lines. */
import { diagnostic, type Diagnostic, type DiagnosticInit } from '../diagnostics/index.ts';
import type { CallRecord } from '../deploy/index.ts';
import { DEV_PROTOCOL, formatEvent, type TestEvent } from '../testing/index.ts';
import type { LocalMode } from './paths.ts';

export { DEV_PROTOCOL };

export type DevEvent =
  /** Serving: `url` is the discovery URL (wait for this event rather than sleeping). */
  | { protocol: typeof DEV_PROTOCOL; kind: 'preview.ready'; mode: LocalMode; url: string; urls: string[]; persona: string; generation: number; artifactId?: string }
  /** The runtime was restarted (a new server generation, or back on the last good one): its URLs replace the old ones. */
  | { protocol: typeof DEV_PROTOCOL; kind: 'server.restarted'; mode: LocalMode; url: string; urls: string[]; generation: number; reason: string }
  | { protocol: typeof DEV_PROTOCOL; kind: 'compile.start'; generation: number; changed: string[] }
  /** A failed rebuild (DG1602 to DG1605 only), Diagnostic-shaped; `diagnostics` are the ones that caused it (the compiler's, or an unusable env file's DG5134). */
  | ({ protocol: typeof DEV_PROTOCOL; kind: 'compile.diagnostic'; generation: number; diagnostics: Diagnostic[] } & CompileDiagnostic)
  /** A new generation serves; `diagnostics` are its warnings; `phases` say where `durationMs` went. */
  | { protocol: typeof DEV_PROTOCOL; kind: 'compile.ready'; generation: number; durationMs: number; phases: CompilePhases; restarted: boolean; diagnostics: Diagnostic[] }
  /** A call the app served that failed or wrote with `console` (others are only in `platform logs`). */
  | { protocol: typeof DEV_PROTOCOL; kind: 'server.call'; mode: LocalMode; call: CallRecord }
  /** The server stopped (Ctrl-C, or it could not go on). */
  | { protocol: typeof DEV_PROTOCOL; kind: 'server.stopped'; mode: LocalMode; reason: string }
  /** The tests, run on the generation that serves once the files are quiet: `platform test`'s events, with that generation. */
  | (TestEvent & { generation: number });

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

type Payload<K extends DevEvent['kind']> = Omit<Extract<DevEvent, { kind: K }>, 'protocol' | 'kind'>;

/** Makes an event of a kind. */
export function devEvent<K extends DevEvent['kind']>(kind: K, payload: Payload<K>): DevEvent {
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
      if (event.kind === 'test.run.finish') return [`  tests of generation ${event.generation}: ${formatEvent(event)}`, ...event.diagnostics.map((d) => `    ${diagnosticLine(d).replace(/\n/g, '\n    ')}`)].join('\n');
      return `  ${formatEvent(event).replace(/\n/g, '\n  ')}`;
    default: {
      const unknown: never = event;
      return String(unknown);
    }
  }
}
