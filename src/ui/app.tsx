/**
 * The playground shell: edit the app's manifest, checked instantly on this thread and compiled (types,
 * bundles, artifact) in the compiler worker. The workspace, runtime and preview arrive on this frame.
 */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { sortDiagnostics, type Diagnostic } from '../core/diagnostics';
import { MemoryFileSystem } from '../core/fs';
import { checkManifest, MANIFEST_FILE } from '../core/manifest';
import { CompilerClient, type CompileResult } from './compiler-client';
import { DiagnosticList } from './diagnostic-list';
import { STARTER_FILES } from './starter-project';

/** How long typing must pause before the compiler runs. */
const QUIET_WINDOW_MS = 250;

/** The offset of a 1-based line and column in text. */
function offsetOf(text: string, line: number, column: number): number {
  let offset = 0;
  for (let l = 1; l < line; l++) {
    const next = text.indexOf('\n', offset);
    if (next < 0) break;
    offset = next + 1;
  }
  return offset + column - 1;
}

type CompileState =
  | { kind: 'loading' }
  | { kind: 'compiling' }
  | { kind: 'done'; text: string; result: CompileResult }
  | { kind: 'unavailable'; message: string };

declare global {
  /** The compiler, for the end-to-end tests and the benchmarks. */
  var __platformCompiler: CompilerClient | undefined;
}

export function App() {
  const starter = STARTER_FILES[MANIFEST_FILE]!;
  const [text, setText] = useState(starter);
  const [manifestDiagnostics, setManifestDiagnostics] = useState<Diagnostic[]>([]);
  const [compile, setCompile] = useState<CompileState>({ kind: 'loading' });
  const editor = useRef<HTMLTextAreaElement>(null);
  const files = useMemo(() => new MemoryFileSystem(STARTER_FILES), []);
  const compiler = useMemo(() => (globalThis.__platformCompiler ??= new CompilerClient()), []);

  // Instant feedback on this thread while the compiler works.
  useEffect(() => {
    let current = true;
    files.write(MANIFEST_FILE, text);
    void checkManifest(files).then((result) => {
      if (current) setManifestDiagnostics(result.diagnostics);
    });
    return () => {
      current = false;
    };
  }, [text, files]);

  useEffect(() => {
    let current = true;
    const timer = setTimeout(() => {
      void compiler.ready
        .then(() => {
          if (!current) return undefined;
          setCompile({ kind: 'compiling' });
          return compiler.compile({ ...STARTER_FILES, [MANIFEST_FILE]: text }, 'build', MANIFEST_FILE);
        })
        .then((result) => {
          if (current && result) setCompile({ kind: 'done', text, result });
        })
        .catch((error: unknown) => {
          if (current) setCompile({ kind: 'unavailable', message: error instanceof Error ? error.message : String(error) });
        });
    }, QUIET_WINDOW_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [text, compiler]);

  const compiled = compile.kind === 'done' && compile.text === text ? compile.result : undefined;
  const diagnostics = sortDiagnostics(compiled ? compiled.diagnostics : manifestDiagnostics);

  const select = (d: Diagnostic) => {
    const area = editor.current;
    if (!area || !d.span || d.file !== MANIFEST_FILE) return;
    const start = offsetOf(text, d.span.line, d.span.column);
    area.focus();
    area.setSelectionRange(start, start + (d.span.length ?? 1));
  };

  const errors = diagnostics.filter((d) => d.severity === 'error').length;
  return (
    <div class="shell">
      <header class="topbar">
        <img src="/favicon.svg" alt="" width="22" height="22" />
        <h1>Platform Playground</h1>
        <span class="badge">preview</span>
        <CompileStatus state={compile} current={compiled} />
      </header>
      <main class="workspace">
        <section class="pane editor-pane" aria-label="Editor">
          <div class="pane-title">
            <span class="file-name">{MANIFEST_FILE}</span>
            <button type="button" class="link" onClick={() => setText(starter)}>
              Reset
            </button>
          </div>
          <textarea
            ref={editor}
            class="code-editor"
            spellcheck={false}
            aria-label={MANIFEST_FILE}
            value={text}
            onInput={(event) => setText((event.target as HTMLTextAreaElement).value)}
          />
        </section>
        <section class="pane problems-pane" aria-label="Problems">
          <div class="pane-title">
            <span>Problems</span>
            <span class={`count ${errors ? 'has-errors' : ''}`} data-testid="problem-count">
              {diagnostics.length}
            </span>
          </div>
          <DiagnosticList diagnostics={diagnostics} onSelect={select} />
          <p class="about">
            Checked and compiled in your browser by the same core as <code>platform check</code> and <code>platform build</code>. The schema is
            served at <a href="/app.manifest.schema.json">/app.manifest.schema.json</a>.
          </p>
        </section>
      </main>
    </div>
  );
}

function CompileStatus({ state, current }: { state: CompileState; current: CompileResult | undefined }) {
  let text: string;
  let tone = 'busy';
  if (state.kind === 'loading') text = 'Loading the compiler…';
  else if (state.kind === 'unavailable') {
    text = `Compiler unavailable: ${state.message}`;
    tone = 'error';
  } else if (!current) text = 'Compiling…';
  else if (current.artifactId) {
    text = `Built ${current.artifactId.slice(0, 19)}… in ${Math.round(current.timings.total)} ms`;
    tone = 'ok';
  } else {
    text = `Not built: fix the errors (${Math.round(current.timings.total)} ms)`;
    tone = 'error';
  }
  return (
    <span class={`compile-status ${tone}`} role="status" aria-live="polite" data-testid="compile-status" title={current?.artifactId}>
      {text}
    </span>
  );
}
