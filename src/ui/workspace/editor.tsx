/**
 * `<CodeEditor>`: a CodeMirror 6 editor for one file at a time.
 *
 * One EditorView lives as long as the component; each file has its own EditorState, kept in a cache
 * by path, so switching tabs swaps documents with their undo history, selection and scroll intact.
 * A host that keeps `views` (file-views.ts) gets each file's cursor and scroll back after a reload:
 * `onView` reports them as they settle and when the page goes away; `views` places a file shown for
 * the first time. Props are read through a ref by the extensions (change, save, language services), so new callbacks
 * never rebuild the editor. `value` is the file's text as the host knows it: when it differs from the
 * document (a reset, a rename onto an old path), the document is updated without calling `onChange`.
 *
 * Languages: TypeScript (`.ts`), TSX (`.tsx`) and JavaScript through lang-javascript, with completions
 * and hover from the compiler worker (language.ts); JSON through lang-json; `app.manifest.json` also
 * gets completion, hover and validation from src/core/manifest/app.manifest.schema.json (codemirror-json-schema,
 * loaded on first use: it brings a Markdown renderer, YAML and JSON5 parsers the other files do not need).
 * Other files are plain text.
 *
 * Read-only (`readOnly`): the same highlighting, line numbers, diagnostics, hover and search, the text
 * selectable and copyable and the content still one tab stop (so the keyboard can scroll it), but no
 * edit is taken (EditorState.readOnly) and the content is not contenteditable (EditorView.editable);
 * Tab is not taken either, so the line on how to leave the editor is left out.
 *
 * Diagnostics: the host passes the compiler's diagnostics of this file; they are converted to
 * CodeMirror's (1-based line and column → offsets) against the document when they change, then mapped
 * through edits until the next ones arrive. Pass diagnostics computed from the text on screen (or keep
 * passing the previous array while a compile runs): a new array is positioned on the current text.
 */
import { autocompletion, closeBrackets, closeBracketsKeymap, completionKeymap } from '@codemirror/autocomplete';
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { javascript } from '@codemirror/lang-javascript';
import { json, jsonLanguage, jsonParseLinter } from '@codemirror/lang-json';
import { bracketMatching, defaultHighlightStyle, foldGutter, foldKeymap, HighlightStyle, indentOnInput, syntaxHighlighting } from '@codemirror/language';
import { linter, lintKeymap, type Diagnostic as LintDiagnostic, type LintSource } from '@codemirror/lint';
import { highlightSelectionMatches, search, searchKeymap } from '@codemirror/search';
import { Compartment, Prec, EditorSelection, EditorState, StateEffect, StateField, Annotation, type Extension, type Text } from '@codemirror/state';
import { oneDark } from '@codemirror/theme-one-dark';
import {
  crosshairCursor,
  drawSelection,
  dropCursor,
  EditorView,
  highlightActiveLine,
  highlightActiveLineGutter,
  highlightSpecialChars,
  hoverTooltip,
  keymap,
  lineNumbers,
  rectangularSelection,
  type ViewUpdate,
} from '@codemirror/view';
import { useLayoutEffect, useRef } from 'preact/hooks';
import type { Diagnostic, Span } from '../../core/diagnostics';
import { hasTypeScriptFeatures, typescriptFeatures, type LanguageServices } from './language';
import type { FileView, FileViews } from './file-views';
import { EDITOR_FONT_FAMILY, EDITOR_FONT_PX, EDITOR_LINE_HEIGHT } from './editor-metrics';
import { formatCommand, shortcutKeymap } from './shortcuts';
import { leaveHint } from './leave-hint';

export type EditorTheme = 'light' | 'dark';

export interface CodeEditorProps {
  /** The project-relative path of the file shown. */
  path: string;
  /** The file's text. */
  value: string;
  /** Called with the whole text after each edit made in the editor, and the path of the edited file. */
  onChange(text: string, path: string): void;
  /** The compiler's diagnostics of this file. */
  diagnostics?: readonly Diagnostic[];
  /** TypeScript completions, hover and formatting (a `CompilerClient` will do). */
  services?: LanguageServices;
  theme: EditorTheme;
  /** Mod-s in the editor. */
  onSave?(): void;
  /** Mod-Enter in the editor. */
  onRunTests?(): void;
  /** Shift-Alt-p in the editor (presenter mode). */
  onPresent?(): void;
  /** Selects this range and scrolls it into view; a new object reveals again. */
  revealAt?: Span | undefined;
  /** The project's files: cached documents of other paths are dropped (a deleted file's history goes with it). */
  files?: readonly string[];
  /** The editor's accessible name; the path by default. */
  label?: string;
  /** Long lines wrap at the editor's width instead of scrolling sideways. */
  wrap?: boolean;
  /** The text's size in pixels (presenter mode's is larger); EDITOR_FONT_PX by default. */
  fontPx?: number;
  /** Focuses the editor; a new object focuses again (after creating a file, typing goes into it). */
  focusOn?: object | undefined;
  /** Shows the text without taking edits (an embed's read-only view); read as each file is first shown, so fixed for the editor's life. */
  readOnly?: boolean;
  /** Cursors and scroll kept from an earlier page (file-views.ts): a file shown for the first time starts there. */
  views?: Readonly<FileViews>;
  /** Where a file's cursor and scroll now are: after they move (coalesced), when another file is shown and when the page goes away. */
  onView?(path: string, view: FileView): void;
}

/** How long after the cursor or the scroll last moved its place is reported. */
const VIEW_REPORT_MS = 150;

const MANIFEST_FILE = 'app.manifest.json';

/** Marks changes that come from props (not typing), so they do not echo back through `onChange`. */
const external = Annotation.define<boolean>();

/** The compiler's diagnostics, mapped through edits; the linter below shows them. */
const setCompilerDiagnostics = StateEffect.define<readonly LintDiagnostic[]>();
const compilerDiagnostics = StateField.define<readonly LintDiagnostic[]>({
  create: () => [],
  update(value, tr) {
    for (const effect of tr.effects) if (effect.is(setCompilerDiagnostics)) return effect.value;
    if (!tr.docChanged || value.length === 0) return value;
    return value.map((d) => {
      const from = tr.changes.mapPos(d.from, 1);
      return { ...d, from, to: Math.max(from, tr.changes.mapPos(d.to, -1)) };
    });
  },
});

const compilerLinter = linter((view) => view.state.field(compilerDiagnostics), {
  delay: 120,
  needsRefresh: (update: ViewUpdate) => update.transactions.some((tr) => tr.effects.some((e) => e.is(setCompilerDiagnostics))),
  // One problem, one marker: a schema message where the compiler reports the same range is left out.
  markerFilter: withoutSchemaEchoes,
  tooltipFilter: withoutSchemaEchoes,
});

function withoutSchemaEchoes(diagnostics: readonly LintDiagnostic[]): LintDiagnostic[] {
  const compiler = diagnostics.filter((d) => d.source?.startsWith('DG'));
  return diagnostics.filter((d) => d.source?.startsWith('DG') || !compiler.some((c) => c.from <= d.to && d.from <= c.to));
}

/** A 1-based line and column → an offset in `doc`, clamped to the line. */
function offsetOf(doc: Text, line: number, column: number): number {
  const l = doc.line(Math.min(Math.max(1, line), doc.lines));
  return Math.min(l.from + Math.max(0, column - 1), l.to);
}

function rangeOf(doc: Text, span: Span): { from: number; to: number } {
  const from = offsetOf(doc, span.line, span.column);
  if (span.length) return { from, to: Math.min(doc.length, from + span.length) };
  // No length: the word there, or one character.
  let to = from;
  const text = doc.lineAt(from);
  while (to < text.to && /[\w$]/.test(doc.sliceString(to, to + 1))) to++;
  return { from, to: to > from ? to : Math.min(text.to, from + 1) };
}

function toLintDiagnostics(doc: Text, diagnostics: readonly Diagnostic[]): LintDiagnostic[] {
  return diagnostics.map((d) => {
    const { from, to } = d.span ? rangeOf(doc, d.span) : { from: 0, to: Math.min(doc.length, doc.line(1).to) };
    return {
      from,
      to,
      severity: d.severity,
      source: d.code,
      message: `${d.code} ${d.message}`,
      renderMessage: () => {
        const dom = document.createElement('div');
        dom.className = 'ws-lint-message';
        const code = document.createElement('strong');
        code.textContent = d.code;
        dom.append(code, ` ${d.message}`);
        if (d.hint) {
          const hint = document.createElement('div');
          hint.className = 'ws-lint-hint';
          hint.textContent = `Hint: ${d.hint}`;
          dom.append(hint);
        }
        return dom;
      },
    } satisfies LintDiagnostic;
  });
}

/** Light: CodeMirror's default highlighting on the workspace's colours. Dark: One Dark on the same. */
const baseTheme = EditorView.theme({
  '&': { height: '100%', fontSize: `${EDITOR_FONT_PX}px`, backgroundColor: 'var(--ws-editor-bg)', color: 'var(--ws-text)' },
  '.cm-scroller': { fontFamily: EDITOR_FONT_FAMILY, lineHeight: String(EDITOR_LINE_HEIGHT) },
  '.cm-gutters': { backgroundColor: 'var(--ws-editor-bg)', color: 'var(--ws-muted)', borderRight: '1px solid var(--ws-border)' },
  '&.cm-focused': { outline: 'none' },
  '.cm-tooltip': { maxWidth: '560px' },
});
/**
 * CodeMirror's default highlighting with its three colours under 4.5:1 on the editor's background
 * darkened (axe's color-contrast): types #085 (4.37:1), regular expressions and escapes #e40 (3.72:1),
 * invalid text #f00 (3.87:1). Every other colour is the default's.
 */
const READABLE: Record<string, string> = { '#085': '#007048', '#e40': '#c03000', '#f00': '#d00' };
const lightHighlight = HighlightStyle.define(defaultHighlightStyle.specs.map((spec) => (typeof spec.color === 'string' && READABLE[spec.color] ? { ...spec, color: READABLE[spec.color] } : spec)));
const lightTheme: Extension = [syntaxHighlighting(lightHighlight, { fallback: true })];
const darkTheme: Extension = [oneDark, EditorView.theme({ '&': { backgroundColor: 'var(--ws-editor-bg)' }, '.cm-gutters': { backgroundColor: 'var(--ws-editor-bg)' } }, { dark: true })];
const noWrap: Extension = [];
/** A read-only editor: no edit is taken, and the content is not contenteditable. */
const readOnly: Extension = [EditorState.readOnly.of(true), EditorView.editable.of(false)];
const wrapOf = (wrap: boolean | undefined): Extension => (wrap ? EditorView.lineWrapping : noWrap);

/** The editor's text size as an extension, one object per size (a compartment is reconfigured only when it changes). */
const sizes = new Map<number, Extension>([[EDITOR_FONT_PX, []]]);
function sizeOf(px: number = EDITOR_FONT_PX): Extension {
  let size = sizes.get(px);
  // Above baseTheme's size (a theme's precedence is its place among the extensions).
  if (!size) sizes.set(px, (size = Prec.highest(EditorView.theme({ '&': { fontSize: `${px}px` } }))));
  return size;
}

/** Puts `extension` in `compartment` of the editor's state unless it is there already. */
function reconfigure(editor: EditorView, compartment: Compartment, extension: Extension): void {
  if (compartment.get(editor.state) !== extension) editor.dispatch({ effects: compartment.reconfigure(extension) });
}
const themeOf = (theme: EditorTheme) => (theme === 'dark' ? darkTheme : lightTheme);

/** Where the manifest's JSON Schema support goes once loaded. */
const manifestSupport = new Compartment();
let manifestSupportLoading: Promise<Extension> | undefined;

/** Completion, hover and validation from the manifest's JSON Schema (loaded once, on first use). */
function loadManifestSupport(): Promise<Extension> {
  manifestSupportLoading ??= Promise.all([import('codemirror-json-schema'), import('../../core/manifest/app.manifest.schema.json', { with: { type: 'json' } })]).then(
    ([{ handleRefresh, jsonCompletion, jsonSchemaHover, jsonSchemaLinter, stateExtensions }, { default: schema }]) => {
      const validate = jsonSchemaLinter();
      // Validation once the text parses: a syntax error is reported by the parse linter and the compiler.
      const schemaLinter: LintSource = (view) => {
        try {
          JSON.parse(view.state.doc.toString());
        } catch {
          return [];
        }
        return validate(view);
      };
      return [linter(schemaLinter, { needsRefresh: handleRefresh }), jsonLanguage.data.of({ autocomplete: jsonCompletion() }), hoverTooltip(jsonSchemaHover()), stateExtensions(schema)];
    },
    (error: unknown) => {
      // Offline or a failed chunk: the manifest stays plain JSON (the compiler still checks it); retry next time.
      manifestSupportLoading = undefined;
      throw error;
    },
  );
  return manifestSupportLoading;
}

function languageOf(path: string, services: () => LanguageServices | undefined): Extension {
  if (path === MANIFEST_FILE) return [json(), linter(jsonParseLinter()), manifestSupport.of([]), autocompletion()];
  if (path.endsWith('.json')) return [json(), linter(jsonParseLinter()), autocompletion()];
  if (hasTypeScriptFeatures(path)) {
    const typescript = /\.(tsx?|mts|cts)$/.test(path);
    const jsx = /\.(tsx|jsx)$/.test(path);
    return [javascript({ typescript, jsx }), typescriptFeatures(path, services)];
  }
  return [];
}

interface Cached {
  state: EditorState;
  /**
   * Texts sent through `onChange` that the host has not passed back as `value` yet. The host renders
   * after a few keystrokes have landed, so a `value` found here is an echo of an older text, not a
   * change from outside: applying it would undo what was typed since.
   */
  emitted: string[];
  /** The diagnostics last positioned in this document (their JSON), so equal ones are not re-positioned. */
  diagnosticsKey: string;
  /** Where the file was scrolled when another one was shown (restored when it is shown again). */
  scroll?: StateEffect<unknown>;
  /** A view kept from an earlier page, to scroll to when the file is first shown. */
  restore?: FileView | undefined;
}

export function CodeEditor(props: CodeEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | undefined>(undefined);
  const current = useRef(props);
  current.current = props;
  const cache = useRef(new Map<string, Cached>());
  const shownPath = useRef<string | undefined>(undefined);
  const themeCompartment = useRef(new Compartment());
  const wrapCompartment = useRef(new Compartment());
  const sizeCompartment = useRef(new Compartment());

  const createState = (path: string, text: string, selection?: EditorSelection): EditorState => {
    const services = () => current.current.services;
    return EditorState.create({
      doc: text,
      ...(selection ? { selection } : {}),
      extensions: [
        lineNumbers(),
        highlightActiveLineGutter(),
        highlightSpecialChars(),
        history(),
        foldGutter(),
        drawSelection(),
        dropCursor(),
        EditorState.allowMultipleSelections.of(true),
        indentOnInput(),
        bracketMatching(),
        closeBrackets(),
        rectangularSelection(),
        crosshairCursor(),
        highlightActiveLine(),
        highlightSelectionMatches(),
        // Search and replace in the editor's own panel (Mod-f opens it, at the top of the editor).
        search({ top: true }),
        EditorState.tabSize.of(2),
        shortcutKeymap(
          () => current.current,
          formatCommand(() => path, services),
        ),
        keymap.of([...closeBracketsKeymap, ...defaultKeymap, ...searchKeymap, ...historyKeymap, ...foldKeymap, ...completionKeymap, ...lintKeymap, indentWithTab]),
        compilerDiagnostics,
        compilerLinter,
        languageOf(path, services),
        baseTheme,
        themeCompartment.current.of(themeOf(current.current.theme)),
        wrapCompartment.current.of(wrapOf(current.current.wrap)),
        sizeCompartment.current.of(sizeOf(current.current.fontPx)),
        // tabindex 0: the same one tab stop an editable content has anyway, said where axe looks for it (it
        // does not count contenteditable as focusable, and flagged the scroller: scrollable-region-focusable).
        EditorView.contentAttributes.of({ 'aria-label': current.current.label ?? path, 'data-path': path, tabindex: '0' }),
        // Read-only, Tab is not taken (it moves the focus on), so the hint on leaving the editor is not shown.
        current.current.readOnly ? readOnly : leaveHint(),
        EditorView.updateListener.of((update) => {
          if (update.selectionSet && shownPath.current === path) viewMoved();
          if (!update.docChanged || shownPath.current !== path) return;
          if (update.transactions.every((tr) => tr.annotation(external))) return;
          const text = update.state.doc.toString();
          const entry = cache.current.get(path);
          if (entry) {
            entry.emitted.push(text);
            if (entry.emitted.length > 50) entry.emitted.shift();
          }
          current.current.onChange(text, path);
        }),
      ],
    });
  };

  /** Shows `path`: its cached state (text brought up to `value`) or a new one. */
  const show = (editor: EditorView, path: string, value: string) => {
    if (shownPath.current !== undefined) {
      const previous = cache.current.get(shownPath.current);
      if (previous) {
        previous.state = editor.state;
        previous.scroll = editor.scrollSnapshot();
      }
      reportView();
    }
    let entry = cache.current.get(path);
    if (!entry) {
      // A file kept from an earlier page opens where its cursor and scroll were (clamped: the text may have changed).
      const kept = current.current.views?.[path];
      const at = (offset: number) => Math.min(offset, value.length);
      entry = { state: createState(path, value, kept && EditorSelection.single(at(kept.anchor), at(kept.head))), diagnosticsKey: '[]', emitted: [] };
      if (kept) entry.restore = kept;
      cache.current.set(path, entry);
      if (path === MANIFEST_FILE) {
        void loadManifestSupport().then((support) => {
          const effects = manifestSupport.reconfigure(support);
          const cached = cache.current.get(path);
          if (!cached) return;
          if (shownPath.current === path && view.current) view.current.dispatch({ effects });
          else cached.state = cached.state.update({ effects }).state;
        }, () => undefined);
      }
    }
    const switched = shownPath.current !== path;
    shownPath.current = path;
    editor.setState(entry.state);
    syncValue(editor, value);
    // Each file keeps its own scroll position; one shown for the first time starts at its top left, or
    // where an earlier page left it.
    if (switched && entry.scroll) editor.dispatch({ effects: entry.scroll });
    else if (switched && entry.restore) restoreScroll(editor, entry.restore);
    else if (switched) editor.scrollDOM.scrollTo({ top: 0, left: 0 });
    entry.restore = undefined;
    reconfigure(editor, themeCompartment.current, themeOf(current.current.theme));
    reconfigure(editor, wrapCompartment.current, wrapOf(current.current.wrap));
    reconfigure(editor, sizeCompartment.current, sizeOf(current.current.fontPx));
  };

  /** Scrolls to a kept view: its first line as far above the top as it was, and its horizontal scroll. */
  const restoreScroll = (editor: EditorView, kept: FileView) => {
    const top = Math.min(kept.top, editor.state.doc.length);
    editor.dispatch({ effects: EditorView.scrollIntoView(top, { y: 'start', yMargin: -kept.topOffset }) });
    editor.requestMeasure({ read: () => undefined, write: () => void (editor.scrollDOM.scrollLeft = kept.left) });
  };

  /** The shown file's cursor and scroll, as kept. */
  const viewOf = (editor: EditorView): FileView => {
    const { anchor, head } = editor.state.selection.main;
    // The document's height at the top of the view: the line there and how far its top is above.
    const height = Math.max(0, editor.scrollDOM.getBoundingClientRect().top - editor.documentTop);
    const block = editor.lineBlockAtHeight(height);
    return { anchor, head, top: block.from, topOffset: Math.round(height - block.top), left: Math.round(editor.scrollDOM.scrollLeft) };
  };

  const reportTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  /** Reports the shown file's view now (a pending report is done with). */
  const reportView = () => {
    clearTimeout(reportTimer.current);
    reportTimer.current = undefined;
    const editor = view.current;
    const path = shownPath.current;
    if (editor && path !== undefined && current.current.onView) current.current.onView(path, viewOf(editor));
  };
  /** The cursor or the scroll moved: reported once they rest. */
  const viewMoved = () => {
    if (!current.current.onView || reportTimer.current !== undefined) return;
    reportTimer.current = setTimeout(reportView, VIEW_REPORT_MS);
  };

  /** Brings the document to `value` with one change over the part that differs, unless `value` is an echo. */
  const syncValue = (editor: EditorView, value: string) => {
    const entry = shownPath.current === undefined ? undefined : cache.current.get(shownPath.current);
    const doc = editor.state.doc.toString();
    if (entry) {
      const echo = entry.emitted.lastIndexOf(value);
      if (doc === value) entry.emitted.length = 0;
      else if (echo >= 0) {
        entry.emitted.splice(0, echo + 1);
        return;
      } else entry.emitted.length = 0;
    }
    if (doc === value) return;
    let start = 0;
    while (start < doc.length && start < value.length && doc[start] === value[start]) start++;
    let end = 0;
    while (end < doc.length - start && end < value.length - start && doc[doc.length - 1 - end] === value[value.length - 1 - end]) end++;
    editor.dispatch({ changes: { from: start, to: doc.length - end, insert: value.slice(start, value.length - end) }, annotations: external.of(true) });
  };

  // Layout effects: the view follows a render before the next input event can reach the old document.
  // One view for the component's life.
  useLayoutEffect(() => {
    const editor = new EditorView({ parent: host.current! });
    view.current = editor;
    show(editor, props.path, props.value);
    editor.scrollDOM.addEventListener('scroll', viewMoved, { passive: true });
    // For `npm run bench` (bench/playground.ts): when the editor was built, beside the preview's marks.
    performance.mark('platform:editor-ready');
    // A page that goes away keeps where the cursor was (the host's store writes at once).
    window.addEventListener('pagehide', reportView);
    return () => {
      window.removeEventListener('pagehide', reportView);
      if (reportTimer.current !== undefined) reportView();
      editor.destroy();
      view.current = undefined;
      shownPath.current = undefined;
    };
  }, []);

  // The order of these effects matters: the file first, then its text, diagnostics and reveal.
  useLayoutEffect(() => {
    const editor = view.current;
    if (editor && shownPath.current !== props.path) show(editor, props.path, props.value);
  }, [props.path]);

  useLayoutEffect(() => {
    const editor = view.current;
    if (editor && shownPath.current === props.path) syncValue(editor, props.value);
  }, [props.value, props.path]);

  useLayoutEffect(() => {
    const editor = view.current;
    if (!editor) return;
    reconfigure(editor, themeCompartment.current, themeOf(props.theme));
  }, [props.theme]);

  useLayoutEffect(() => {
    const editor = view.current;
    if (editor) reconfigure(editor, wrapCompartment.current, wrapOf(props.wrap));
  }, [props.wrap]);

  useLayoutEffect(() => {
    const editor = view.current;
    if (editor) reconfigure(editor, sizeCompartment.current, sizeOf(props.fontPx));
  }, [props.fontPx]);

  // After the file's own effects, so the focus lands in the file now shown.
  useLayoutEffect(() => {
    if (props.focusOn) view.current?.focus();
  }, [props.focusOn]);

  useLayoutEffect(() => {
    const editor = view.current;
    const entry = cache.current.get(props.path);
    if (!editor || !entry || shownPath.current !== props.path) return;
    const diagnostics = props.diagnostics ?? [];
    const key = JSON.stringify(diagnostics);
    if (key === entry.diagnosticsKey) return;
    entry.diagnosticsKey = key;
    editor.dispatch({ effects: setCompilerDiagnostics.of(toLintDiagnostics(editor.state.doc, diagnostics)) });
  }, [props.diagnostics, props.path]);

  useLayoutEffect(() => {
    const editor = view.current;
    const span = props.revealAt;
    if (!editor || !span) return;
    const { from, to } = rangeOf(editor.state.doc, span);
    editor.dispatch({ selection: { anchor: from, head: to }, effects: EditorView.scrollIntoView(from, { y: 'center' }) });
    editor.focus();
  }, [props.revealAt]);

  // Forget the documents of files that no longer exist.
  useLayoutEffect(() => {
    if (!props.files) return;
    const exists = new Set(props.files);
    for (const path of cache.current.keys()) if (!exists.has(path) && path !== shownPath.current) cache.current.delete(path);
  }, [props.files]);

  return <div class="ws-editor" ref={host} data-testid="code-editor" data-path={props.path} />;
}
