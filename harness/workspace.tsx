/** @jsxImportSource preact */
/**
 * A harness for the workspace components (e2e/workspace.spec.ts): file tree, tabs, editor and split
 * panes over an in-memory copy of the base app, checked by the compiler worker 250 ms after typing
 * stops. Not part of the playground; it shows how the pieces fit together.
 */
import { render } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { baseApp } from '../src/core/analyze/__fixtures__/base-app';
import { sortDiagnostics, type Diagnostic, type Span } from '../src/core/diagnostics';
import { CompilerClient } from '../src/ui/compiler-client';
import { CodeEditor, type EditorTheme } from '../src/ui/workspace/editor';
import { FileTree } from '../src/ui/workspace/file-tree';
import { installDocumentShortcuts } from '../src/ui/workspace/shortcuts';
import { SplitPane } from '../src/ui/workspace/split-pane';
import { Tabs } from '../src/ui/workspace/tabs';
import '../src/ui/workspace/workspace.css';

const QUIET_WINDOW_MS = 250;
/** `?compiler=off`: the UI alone, for tests that do not need diagnostics, completions or hover. */
const WITH_COMPILER = new URLSearchParams(location.search).get('compiler') !== 'off';
const SIZES_KEY = 'workspace-harness:sizes';

type Files = Record<string, string>;

interface Compiled {
  files: Files;
  diagnostics: Diagnostic[];
}

declare global {
  /** What the end-to-end tests read and drive. */
  var __workspace:
    | {
        files(): Files;
        compiler: CompilerClient | undefined;
        saves: number;
        runs: number;
        /** Whether the last Mod-s keydown reached the page with its default prevented. */
        lastSavePrevented: boolean | undefined;
        sizes(): { tree: number; problems: number };
      }
    | undefined;
}

function loadSizes(): { tree: number; problems: number } {
  try {
    const stored = JSON.parse(localStorage.getItem(SIZES_KEY) ?? '{}') as Partial<{ tree: number; problems: number }>;
    return { tree: stored.tree ?? 240, problems: stored.problems ?? 420 };
  } catch {
    return { tree: 240, problems: 420 };
  }
}

function Harness() {
  const compiler = useMemo(() => (WITH_COMPILER ? new CompilerClient() : undefined), []);
  const [files, setFiles] = useState<Files>(baseApp);
  const [saved, setSaved] = useState<Files>(baseApp);
  const [tabs, setTabs] = useState<string[]>(['src/client/main.tsx']);
  const [active, setActive] = useState<string | undefined>('src/client/main.tsx');
  const [theme, setTheme] = useState<EditorTheme>('light');
  const [compiled, setCompiled] = useState<Compiled | undefined>(undefined);
  const [status, setStatus] = useState(WITH_COMPILER ? 'Loading the compiler…' : 'Compiler off');
  const [reveal, setReveal] = useState<Span | undefined>(undefined);
  const [sizes, setSizes] = useState(loadSizes);
  const [saves, setSaves] = useState(0);
  const [runs, setRuns] = useState(0);
  const filesRef = useRef(files);
  filesRef.current = files;

  const debug = (globalThis.__workspace ??= { files: () => filesRef.current, compiler, saves: 0, runs: 0, lastSavePrevented: undefined, sizes: () => loadSizes() });
  debug.files = () => filesRef.current;
  debug.saves = saves;
  debug.runs = runs;

  // Check 250 ms after the last change; keep only results for the files on screen.
  useEffect(() => {
    if (!compiler) return undefined;
    let current = true;
    const snapshot = files;
    const timer = setTimeout(() => {
      void compiler.ready
        .then(() => {
          if (!current) return undefined;
          setStatus('Checking…');
          return compiler.compile(snapshot, 'check', active);
        })
        .then((result) => {
          if (!result || filesRef.current !== snapshot) return;
          setCompiled({ files: snapshot, diagnostics: sortDiagnostics(result.diagnostics) });
          const errors = result.diagnostics.filter((d) => d.severity === 'error').length;
          setStatus(errors ? `${errors} error${errors === 1 ? '' : 's'}` : 'No problems');
        })
        .catch((error: unknown) => setStatus(`Compiler unavailable: ${error instanceof Error ? error.message : String(error)}`));
    }, QUIET_WINDOW_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [files, compiler]);

  const save = () => {
    setSaved(filesRef.current);
    setSaves((n) => n + 1);
  };
  const runTests = () => setRuns((n) => n + 1);

  const handlers = useRef({ onSave: save, onRunTests: runTests });
  handlers.current = { onSave: save, onRunTests: runTests };
  useEffect(() => installDocumentShortcuts(() => handlers.current), []);
  // Records whether Mod-s reached the page with the browser's save prevented (by the editor or the page handler).
  useEffect(() => {
    const listener = (event: KeyboardEvent) => {
      if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === 's') globalThis.__workspace!.lastSavePrevented = event.defaultPrevented;
    };
    window.addEventListener('keydown', listener);
    return () => window.removeEventListener('keydown', listener);
  }, []);

  const open = (path: string) => {
    setTabs((list) => (list.includes(path) ? list : [...list, path]));
    setActive(path);
  };
  const close = (path: string) => {
    setTabs((list) => {
      const index = list.indexOf(path);
      const next = list.filter((p) => p !== path);
      setActive((a) => (a === path ? (next[index] ?? next[index - 1]) : a));
      return next;
    });
  };
  const create = (path: string) => {
    setFiles((f) => ({ ...f, [path]: '' }));
    setSaved((f) => ({ ...f, [path]: '' }));
    open(path);
  };
  const rename = (from: string, to: string) => {
    const move = (f: Files) => {
      const { [from]: text, ...rest } = f;
      return { ...rest, [to]: text ?? '' };
    };
    setFiles(move);
    setSaved(move);
    setTabs((list) => list.map((p) => (p === from ? to : p)));
    setActive((a) => (a === from ? to : a));
  };
  /** A file, or a folder with everything under it (FileTree reports a folder once). */
  const remove = (path: string) => {
    const gone = (p: string) => p === path || p.startsWith(`${path}/`);
    const drop = (f: Files) => Object.fromEntries(Object.entries(f).filter(([p]) => !gone(p)));
    for (const file of Object.keys(files).filter(gone)) close(file);
    setFiles(drop);
    setSaved(drop);
  };

  const persist = (key: 'tree' | 'problems') => (size: number) => {
    setSizes((s) => {
      const next = { ...s, [key]: size };
      localStorage.setItem(SIZES_KEY, JSON.stringify(next));
      return next;
    });
  };

  const paths = useMemo(() => Object.keys(files).sort(), [files]);
  const diagnostics = compiled?.diagnostics ?? [];
  // The open file's diagnostics; the same array while nothing changed, so the editor keeps mapping them.
  const fileDiagnostics = useMemo(() => diagnostics.filter((d) => d.file === active), [compiled, active]);
  const value = active !== undefined ? files[active] : undefined;

  return (
    <div class="ws harness" data-theme={theme}>
      <header class="harness-bar">
        <strong>Workspace harness</strong>
        <span class="harness-status" data-testid="compile-status" role="status">
          {status}
        </span>
        <span data-testid="saves">Saved {saves}×</span>
        <span data-testid="runs">Test runs {runs}</span>
        <button type="button" class="ws-button" aria-pressed={theme === 'dark'} onClick={() => setTheme((t) => (t === 'dark' ? 'light' : 'dark'))}>
          Dark theme
        </button>
      </header>
      <div class="harness-main">
        <SplitPane direction="horizontal" size={sizes.tree} onSizeChange={persist('tree')} min={160} max={480} label="Resize the file tree">
          <FileTree files={paths} selected={active} onSelect={open} onCreate={create} onRename={rename} onDelete={remove} />
          <SplitPane direction="vertical" size={sizes.problems} onSizeChange={persist('problems')} min={120} minSecond={80} label="Resize the problems panel">
            <div class="harness-editor">
              <Tabs tabs={tabs.map((path) => ({ path, dirty: files[path] !== saved[path] }))} active={active} onSelect={setActive} onClose={close} panelId="harness-editor" />
              <div id="harness-editor" role="tabpanel" class="harness-editor-body">
                {active !== undefined && value !== undefined ? (
                  <CodeEditor
                    path={active}
                    value={value}
                    onChange={(text, path) => setFiles((f) => ({ ...f, [path]: text }))}
                    diagnostics={fileDiagnostics}
                    services={compiler}
                    theme={theme}
                    onSave={save}
                    onRunTests={runTests}
                    revealAt={reveal}
                    files={paths}
                  />
                ) : (
                  <p class="harness-blank">Open a file from the tree.</p>
                )}
              </div>
            </div>
            <section class="harness-problems" aria-label="Problems">
              <h2>Problems ({diagnostics.length})</h2>
              {diagnostics.length === 0 && <p class="harness-blank">No problems.</p>}
              <ul>
                {diagnostics.map((d, i) => (
                  <li key={i} class={d.severity}>
                    <button
                      type="button"
                      onClick={() => {
                        if (!d.file) return;
                        open(d.file);
                        if (d.span) setReveal({ ...d.span });
                      }}
                    >
                      <code>{d.code}</code> {d.file}
                      {d.span ? `:${d.span.line}:${d.span.column}` : ''} — {d.message}
                    </button>
                  </li>
                ))}
              </ul>
            </section>
          </SplitPane>
        </SplitPane>
      </div>
    </div>
  );
}

render(<Harness />, document.getElementById('app')!);
