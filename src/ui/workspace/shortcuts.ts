/**
 * The workspace's keyboard shortcuts, in the editor (a CodeMirror keymap) and on the page when the
 * editor is not focused (a document-level handler):
 *
 * - Mod-s: save (`onSave`); the browser's "Save page" dialog is always prevented.
 * - Shift-Alt-f: format the file. JSON is re-indented with 2 spaces here; TypeScript and TSX use
 *   TypeScript's own formatter in the compiler worker (see language.ts): no formatter dependency.
 *   Other files, and JSON that does not parse, are left as they are.
 * - Mod-Enter: run the tests (`onRunTests`), from anywhere on the page (the file tree leaves it alone).
 * - ?: the list of shortcuts (`onHelp`), on the page only: never while typing in a field or the editor.
 * - Shift-Alt-p: presenter mode in and out (`onPresent`), from anywhere on the page.
 *
 * Mod is Cmd on macOS and Ctrl elsewhere.
 */
import { Prec, type Extension } from '@codemirror/state';
import { keymap, type Command, type EditorView } from '@codemirror/view';
import { formatTypeScript, hasTypeScriptFeatures, type LanguageServices } from './language';

export interface ShortcutHandlers {
  onSave?(): void;
  /** Format the active file (document level; inside the editor, the editor formats itself). */
  onFormat?(): void;
  onRunTests?(): void;
  /** Show the list of shortcuts. */
  onHelp?(): void;
  /** Presenter mode in or out. */
  onPresent?(): void;
}

export type Shortcut = 'save' | 'format' | 'run-tests' | 'help' | 'present';

/** Whether a key event's target takes text (a field, a select, the editor): "?" is typed there, not a shortcut. */
function typingIn(target: EventTarget | null): boolean {
  const element = target instanceof Element ? target : null;
  return !!element?.closest('input, textarea, select, [contenteditable=""], [contenteditable="true"]');
}

const isMac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent);

/** Which shortcut a key event is, if any (by physical key for Shift-Alt-f, which macOS turns into `Ï`). */
export function shortcutOf(event: KeyboardEvent): Shortcut | undefined {
  const mod = isMac ? event.metaKey && !event.ctrlKey : event.ctrlKey && !event.metaKey;
  if (mod && !event.altKey && !event.shiftKey && event.key.toLowerCase() === 's') return 'save';
  if (mod && !event.altKey && !event.shiftKey && event.key === 'Enter') return 'run-tests';
  if (event.shiftKey && event.altKey && !event.ctrlKey && !event.metaKey && event.code === 'KeyF') return 'format';
  if (event.shiftKey && event.altKey && !event.ctrlKey && !event.metaKey && event.code === 'KeyP') return 'present';
  if (event.key === '?' && !event.ctrlKey && !event.metaKey && !event.altKey && !typingIn(event.target)) return 'help';
  return undefined;
}

/** JSON re-indented with 2 spaces and a final newline; undefined when the text is not valid JSON. */
export function formatJson(text: string): string | undefined {
  try {
    return `${JSON.stringify(JSON.parse(text), null, 2)}\n`;
  } catch {
    return undefined;
  }
}

/** Replaces the document by `next` as one change covering only what differs, so the cursor stays put. */
function replaceDifference(view: EditorView, next: string): void {
  const current = view.state.doc.toString();
  if (current === next) return;
  let start = 0;
  while (start < current.length && start < next.length && current[start] === next[start]) start++;
  let end = 0;
  while (end < current.length - start && end < next.length - start && current[current.length - 1 - end] === next[next.length - 1 - end]) end++;
  view.dispatch({ changes: { from: start, to: current.length - end, insert: next.slice(start, next.length - end) }, userEvent: 'format' });
}

/**
 * Formats the document of `path`: JSON here, TypeScript through the worker's formatter. Returns
 * whether a formatter applied (the document may have been formatted already).
 */
export async function formatDocument(view: EditorView, path: string, services: LanguageServices | undefined): Promise<boolean> {
  if (path.endsWith('.json')) {
    const next = formatJson(view.state.doc.toString());
    if (next === undefined) return false;
    replaceDifference(view, next);
    return true;
  }
  if (hasTypeScriptFeatures(path)) return formatTypeScript(view, path, services);
  return false;
}

/** The editor's format command for `path` (asynchronous for TypeScript; the key is always taken, unless the editor is read-only). */
export function formatCommand(path: () => string, services: () => LanguageServices | undefined): Command {
  return (view) => {
    if (view.state.readOnly) return false;
    void formatDocument(view, path(), services());
    return true;
  };
}

/**
 * The shortcuts inside the editor, above CodeMirror's defaults (Mod-Enter would insert a blank line).
 * `handlers` is read at each key press, so it may change without reconfiguring the editor.
 */
export function shortcutKeymap(handlers: () => ShortcutHandlers, format: Command): Extension {
  return Prec.highest(
    keymap.of([
      {
        key: 'Mod-s',
        preventDefault: true,
        run: () => {
          handlers().onSave?.();
          return true;
        },
      },
      { key: 'Shift-Alt-f', preventDefault: true, run: format },
      {
        key: 'Mod-Enter',
        preventDefault: true,
        run: () => {
          const run = handlers().onRunTests;
          run?.();
          return run !== undefined;
        },
      },
      {
        key: 'Shift-Alt-p',
        run: () => {
          const present = handlers().onPresent;
          present?.();
          return present !== undefined;
        },
      },
    ]),
  );
}

/**
 * The shortcuts on the page, for when the editor is not focused. Events the editor already handled
 * (default prevented) are left alone. Returns the function that removes the handler.
 */
export function installDocumentShortcuts(handlers: () => ShortcutHandlers, target: Document | HTMLElement = document): () => void {
  const listener = (event: Event) => {
    const key = event as KeyboardEvent;
    if (key.defaultPrevented) return;
    const shortcut = shortcutOf(key);
    if (!shortcut) return;
    const current = handlers();
    if (shortcut === 'save') {
      // Even without a handler: the browser's "Save page" would save the playground, not the file.
      key.preventDefault();
      current.onSave?.();
    } else if (shortcut === 'format' && current.onFormat) {
      key.preventDefault();
      current.onFormat();
    } else if (shortcut === 'run-tests' && current.onRunTests) {
      key.preventDefault();
      current.onRunTests();
    } else if (shortcut === 'help' && current.onHelp) {
      key.preventDefault();
      current.onHelp();
    } else if (shortcut === 'present' && current.onPresent) {
      key.preventDefault();
      current.onPresent();
    }
  };
  target.addEventListener('keydown', listener);
  return () => target.removeEventListener('keydown', listener);
}
