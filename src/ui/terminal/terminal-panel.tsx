/**
 * The Terminal panel: an xterm.js terminal running `platform <command>` against the current project,
 * in a WebContainer when one booted, otherwise in the browser; the bar above it says which, and why.
 */
import '@xterm/xterm/css/xterm.css';
import './terminal.css';
import { Terminal } from '@xterm/xterm';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { pageEnvironment, type NodeEnvironment } from '../../adapters/webcontainer';
import type { CompilerClient, CommandTestRun } from '../compiler-client';
import { runTestsInSandbox } from '../tests/test-runner';
import { LineEditor } from './line-editor';
import { modeOf, Shell, type ShellIo } from './shell';
import type { TestEvent } from '../../core/testing';

const PROMPT = '\x1b[32m$\x1b[0m ';
const ANSI = /\x1b\[[0-9;?]*[A-Za-z]/g;
/** `.terminal-host`'s padding in terminal.css (left 8, top and bottom 2). */
const HOST_PADDING = { horizontal: 8, vertical: 4 };
/** xterm's default vertical scrollbar width (the fit addon subtracts the same). */
const SCROLLBAR_WIDTH = 14;

export interface TerminalPanelProps {
  /** The project's files as they are now (read when a command starts). */
  files(): Record<string, string>;
  compiler: Pick<CompilerClient, 'command'>;
  /** The Node environment; the page's WebContainer by default. */
  environment?: NodeEnvironment;
  /** Called with the app's installed packages (node_modules/…) after `npm install` in the WebContainer. */
  onDependencies?(files: Record<string, Uint8Array>): void;
  theme?: 'light' | 'dark';
}

/** `platform test`'s tests in sandboxes of their own; `only` (a test name) in every file. */
async function* sandboxTests(run: CommandTestRun, signal: AbortSignal): AsyncGenerator<TestEvent> {
  const prepared = { manifest: run.manifest, serverCode: run.serverCode, tests: run.tests };
  const scopes = run.only === undefined ? [{}] : run.tests.map((t) => ({ only: { file: t.file, name: run.only! } }));
  for (const scope of scopes) {
    for await (const { event } of runTestsInSandbox(prepared, { ...scope, signal })) yield event;
  }
}

export function TerminalPanel({ files, compiler, environment, onDependencies, theme = 'light' }: TerminalPanelProps) {
  const env = useMemo(() => environment ?? pageEnvironment(), [environment]);
  const host = useRef<HTMLDivElement>(null);
  const [mode, setMode] = useState(() => modeOf(env.status));
  const [lastOutput, setLastOutput] = useState('');
  const props = useRef({ files, compiler, onDependencies });
  props.current = { files, compiler, onDependencies };

  useEffect(() => {
    const shell = new Shell({
      files: () => props.current.files(),
      compiler: { command: (...args) => props.current.compiler.command(...args) },
      environment: env,
      runTests: sandboxTests,
      onDependencies: (deps) => props.current.onDependencies?.(deps),
    });
    const update = () => setMode(shell.mode);
    const off = env.onStatus(update);
    update();
    // Booting contacts StackBlitz: only once someone opens the terminal, and once per page.
    void env.boot();

    const term = new Terminal({ cursorBlink: true, fontSize: 12, fontFamily: 'ui-monospace, Menlo, monospace', scrollback: 5000, rows: 12, theme: theme === 'dark' ? { background: '#1e1e1e' } : { background: '#ffffff', foreground: '#1f2328', cursor: '#1f2328', selectionBackground: '#b6d7ff' } });
    term.open(host.current!);
    const fit = () => {
      const element = host.current;
      const cell = (term as unknown as { _core?: { _renderService?: { dimensions?: { css: { cell: { width: number; height: number } } } } } })._core?._renderService?.dimensions?.css.cell;
      if (!element || !cell?.width || !cell.height) return;
      // The host's padding (terminal.css) and xterm's vertical scrollbar, which overlays the last columns otherwise.
      const width = element.clientWidth - HOST_PADDING.horizontal - SCROLLBAR_WIDTH;
      term.resize(Math.max(20, Math.floor(width / cell.width)), Math.max(4, Math.floor((element.clientHeight - HOST_PADDING.vertical) / cell.height)));
    };
    const observer = new ResizeObserver(fit);
    observer.observe(host.current!);

    const editor = new LineEditor(PROMPT);
    let running: AbortController | undefined;
    let transcript = '';
    const io: ShellIo = {
      write: (text) => {
        transcript += text;
        term.write(text.replace(/(?<!\r)\n/g, '\r\n'));
      },
      clear: () => term.clear(),
      size: () => ({ cols: term.cols, rows: term.rows }),
    };
    term.writeln('Type help for the commands; platform <command> runs against this project.');
    term.write(PROMPT);
    const input = term.onData((data) => {
      if (running) {
        // While a command runs, Ctrl-C stops it; other keys wait for the prompt.
        if (data === '\x03') running.abort();
        return;
      }
      const effect = editor.input(data);
      term.write(effect.echo);
      if (effect.submit === undefined) return;
      const run = new AbortController();
      running = run;
      transcript = '';
      void shell.run(effect.submit, io, run.signal).then((code) => {
        if (run.signal.aborted) term.write('^C\r\n');
        running = undefined;
        setLastOutput(`${transcript.replace(ANSI, '').replace(/\r/g, '').trimEnd()}\n[exit ${run.signal.aborted ? 130 : code}]`);
        term.write(PROMPT);
      });
    });
    // The terminal takes the focus as it opens, except from its tab: a keyboard moving along the panel
    // tabs (src/ui/tab-list.ts) stays on them, as the tabs pattern has it; Tab goes into the panel.
    if (!(document.activeElement instanceof HTMLElement && document.activeElement.getAttribute('role') === 'tab')) term.focus();
    return () => {
      running?.abort();
      input.dispose();
      observer.disconnect();
      off();
      term.dispose();
    };
  }, [env]);

  return (
    <div class={`terminal-panel ${theme}`}>
      <div class={`terminal-mode ${mode.kind}`} data-testid="terminal-mode" data-mode={mode.kind} role="status">
        {mode.text}
      </div>
      <div class="terminal-host" ref={host} />
      {/* The last command's output as text, for screen readers (xterm's rows are not read well). */}
      <pre class="visually-hidden" aria-live="polite" data-testid="terminal-last-output">
        {lastOutput}
      </pre>
    </div>
  );
}
