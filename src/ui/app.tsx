/**
 * The playground shell. For now it edits and checks an app's manifest with the same core the CLI uses;
 * the workspace, compiler, runtime and preview arrive on this frame.
 */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { sortDiagnostics, type Diagnostic } from '../core/diagnostics';
import { MemoryFileSystem } from '../core/fs';
import { checkManifest, MANIFEST_FILE } from '../core/manifest';
import { DiagnosticList } from './diagnostic-list';
import { STARTER_FILES, STARTER_MANIFEST } from './starter-manifest';

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

export function App() {
  const [text, setText] = useState(STARTER_MANIFEST);
  const [diagnostics, setDiagnostics] = useState<Diagnostic[]>([]);
  const editor = useRef<HTMLTextAreaElement>(null);
  const files = useMemo(() => new MemoryFileSystem(STARTER_FILES), []);

  useEffect(() => {
    let current = true;
    files.write(MANIFEST_FILE, text);
    void checkManifest(files).then((result) => {
      if (current) setDiagnostics(sortDiagnostics(result.diagnostics));
    });
    return () => {
      current = false;
    };
  }, [text, files]);

  const select = (d: Diagnostic) => {
    const area = editor.current;
    if (!area || !d.span) return;
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
      </header>
      <main class="workspace">
        <section class="pane editor-pane" aria-label="Editor">
          <div class="pane-title">
            <span class="file-name">{MANIFEST_FILE}</span>
            <button type="button" class="link" onClick={() => setText(STARTER_MANIFEST)}>
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
            Checked in your browser by the same core as <code>platform check</code>. The schema is served at{' '}
            <a href="/app.manifest.schema.json">/app.manifest.schema.json</a>.
          </p>
        </section>
      </main>
    </div>
  );
}
