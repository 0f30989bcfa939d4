/**
 * Test code: in-memory implementations of the session's compiler and runtime interfaces, a project,
 * and a way to wait on a session's state under fake timers.
 *
 * `MemoryCompiler` "builds" a project by concatenating its files: `src/server/**` into the server
 * bundle, `src/client/**` into the client bundle; a line `// error: <message>` in a file is a type
 * error there (DG1002 at that line). A compile can be held (`hold()`) to finish later, to see what a
 * newer edit does to it. `MemoryRuntime` keeps what it was started with; `commit` is a write the app
 * made, answered once every listener (the session's save) resolved; `refuse` makes starts fail.
 */
import { vi } from 'vitest';
import { diagnostic, type Diagnostic } from '../../core/diagnostics';
import type { CompileResult } from '../compiler-client';
import { PROJECT_FORMAT, type Project } from '../projects/store';
import type { InspectQuery } from '../../../worker/protocol/runtime';
import type { Commit, CommittedState } from '../runtime/durable-log';
import type { JournalBatch } from '../../core/runtime';
import type { InspectAnswer, SessionCompiler, SessionRuntime, SessionState } from './session-state';
import type { StateStore } from '../state-store';

const encoder = new TextEncoder();

export function testProject(files: Record<string, string> = {}): Project {
  return {
    format: PROJECT_FORMAT,
    id: 'p_test',
    title: 'test',
    files: {
      'app.manifest.json': '{"name":"test"}',
      'src/server/index.ts': 'export const server = 1;',
      'src/client/main.tsx': 'export const client = 1;',
      ...files,
    },
    openTabs: ['src/client/main.tsx'],
    activeFile: 'src/client/main.tsx',
    persona: 'alice',
    createdAt: 1,
    updatedAt: 1,
  };
}

const timings = { analyze: 0, focusCheck: 0, typecheck: 0, bundle: 0, total: 1 };

export class MemoryCompiler implements SessionCompiler {
  /** Each compile's files and mode, in order. */
  readonly calls: { files: Record<string, string>; mode: string; skipTypecheck: boolean; quick?: boolean }[] = [];
  /** Answer a first build that skips its check as the page's quick preview would (marked `quick`, its server code starting `// quick`), unless refused. */
  quickPreviews = false;
  #held: (() => void)[] = [];
  #holding = false;

  /** Compiles from now on wait until `release()`. */
  hold(): void {
    this.#holding = true;
  }

  release(): void {
    this.#holding = false;
    for (const resume of this.#held.splice(0)) resume();
  }

  async compile(input: Record<string, string | Uint8Array>, mode: string, _focus?: string, options: { skipTypecheck?: boolean; quick?: boolean } = {}): Promise<CompileResult | undefined> {
    const files = Object.fromEntries(Object.entries(input).filter((e): e is [string, string] => typeof e[1] === 'string'));
    this.calls.push({ files, mode, skipTypecheck: options.skipTypecheck ?? false, ...(options.quick !== undefined ? { quick: options.quick } : {}) });
    const quick = this.quickPreviews && mode === 'preview' && options.skipTypecheck === true && options.quick !== false;
    if (this.#holding) await new Promise<void>((resume) => this.#held.push(resume));
    const diagnostics: Diagnostic[] = [];
    for (const [file, text] of Object.entries(files)) {
      text.split('\n').forEach((line, index) => {
        const error = /\/\/ error: (.*)/.exec(line);
        if (error && !(mode === 'preview' && options.skipTypecheck)) diagnostics.push(diagnostic('DG1002', error[1]!, { file, span: { line: index + 1, column: 1 } }));
      });
    }
    if (mode === 'check' || diagnostics.some((d) => d.severity === 'error')) return { diagnostics, timings };
    const bundle = (prefix: string) =>
      Object.entries(files)
        .filter(([path]) => path.startsWith(prefix))
        .map(([path, text]) => `// ${path}\n${text}`)
        .join('\n');
    if (quick) return { diagnostics: [], timings, quick: true, files: { 'server/index.js': encoder.encode(`// quick\n${bundle('src/server/')}`), 'client/app.js': encoder.encode(`// quick\n${bundle('src/client/')}`) } };
    return { diagnostics, timings, files: { 'server/index.js': encoder.encode(bundle('src/server/')), 'client/app.js': encoder.encode(bundle('src/client/')) } };
  }
}

type StartedApp = Parameters<SessionRuntime['start']>[0];

export class MemoryRuntime implements SessionRuntime {
  readonly starts: StartedApp[] = [];
  committedState: CommittedState | undefined;
  phase = 'idle';
  /** A start is refused with this error when it returns one. */
  refuse: ((app: StartedApp) => Error | undefined) | undefined;
  readonly #listeners = new Set<(commit: Commit) => void | Promise<void>>();

  async start(app: StartedApp): Promise<void> {
    const refused = this.refuse?.(app);
    if (refused) {
      this.phase = 'failed';
      throw refused;
    }
    this.starts.push(app);
    this.committedState = app.state;
    this.phase = 'running';
  }

  onCommit(listener: (commit: Commit) => void | Promise<void>): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** A write the app made (its journal batch): answered (resolved) once every listener finished with it. */
  async write(batch: JournalBatch): Promise<void> {
    this.committedState = { ...this.committedState, journal: [...(this.committedState?.journal ?? []), batch] };
    for (const listener of this.#listeners) await listener({ kind: 'journal', batch });
  }

  /** The app's whole database became `state` (a checkpoint): resolved once every listener finished with it. */
  async commit(state: Uint8Array): Promise<void> {
    this.committedState = { checkpoint: state, journal: [] };
    for (const listener of this.#listeners) await listener({ kind: 'checkpoint', state });
  }

  async flush(): Promise<void> {}

  /** `import-state` takes `{"records": {"todos": 2}}` (the counts become the state's bytes); anything else is refused. */
  async inspect<K extends InspectQuery['kind']>(query: Extract<InspectQuery, { kind: K }>): Promise<InspectAnswer<K>> {
    if (query.kind !== 'import-state') return { kind: 'refused', message: `not here: ${query.kind}` } as InspectAnswer<K>;
    try {
      const { text } = query as Extract<InspectQuery, { kind: 'import-state' }>;
      const counts = (JSON.parse(text) as { records: Record<string, number> }).records;
      if (!counts || typeof counts !== 'object') throw new Error('no records');
      await this.commit(encoder.encode(JSON.stringify(counts)));
      return { kind: 'import-state', counts } as InspectAnswer<K>;
    } catch (error) {
      return { kind: 'refused', message: (error as Error).message, diagnostic: { code: 'DG1824', severity: 'error', message: 'bad', detail: { code: 'state_import_invalid' } } } as InspectAnswer<K>;
    }
  }
}

/**
 * Runs the fake timers (and the promises they release) until `predicate(state)` holds; fails after
 * 200 rounds. Install fake timers first (`vi.useFakeTimers()`).
 */
export async function until<S extends object>(store: StateStore<S>, predicate: (state: S) => boolean): Promise<S> {
  for (let round = 0; round < 200; round++) {
    if (predicate(store.state)) return store.state;
    await vi.advanceTimersByTimeAsync(10);
  }
  throw new Error(`the condition never held; state: ${JSON.stringify(store.state, (_key, value: unknown) => (value instanceof Uint8Array ? `<${value.length} bytes>` : value)).slice(0, 600)}`);
}

export const built = (state: SessionState): boolean => state.compile === 'ready' && state.generation !== undefined;
