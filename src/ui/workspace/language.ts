/**
 * The editor's TypeScript features, answered by the compiler worker's language service over the files
 * of the last compile (see `CompilerClient.completions`, `.quickinfo`, `.format`): completions while
 * typing and the type of the symbol under the pointer.
 *
 * Every request carries the edited file's current text, so the worker answers over exactly the
 * document the offset is in. Stale answers are dropped: a completion query aborted by CodeMirror
 * (the user kept typing) cancels its request, a newer request of the same kind supersedes a queued
 * one in the worker, and an answer that arrives after the document changed is discarded.
 */
import { autocompletion, type Completion, type CompletionContext, type CompletionResult, type CompletionSource } from '@codemirror/autocomplete';
import type { EditorState, Extension } from '@codemirror/state';
import { EditorView, hoverTooltip, type Tooltip } from '@codemirror/view';
import type { Completions, CompletionItem, LanguageQuery, QuickInfo, TextEdit } from '../compiler-client';

/** What the editor needs from a language server; `CompilerClient` provides it. */
export interface LanguageServices {
  completions(query: LanguageQuery): Promise<Completions | undefined>;
  quickinfo(query: LanguageQuery): Promise<QuickInfo | undefined>;
  format?(query: Omit<LanguageQuery, 'offset'>): Promise<TextEdit[] | undefined>;
}

/** Files the worker's TypeScript program holds and answers for. */
const TYPESCRIPT_FILE = /\.(tsx?|mts|cts|jsx?|mjs|cjs)$/;

export function hasTypeScriptFeatures(path: string): boolean {
  return TYPESCRIPT_FILE.test(path);
}

/** TypeScript's ScriptElementKind → the CodeMirror completion type (its icon). */
const KIND_TYPES: Record<string, string> = {
  keyword: 'keyword',
  script: 'namespace',
  module: 'namespace',
  'external module name': 'namespace',
  class: 'class',
  'local class': 'class',
  interface: 'interface',
  type: 'type',
  'type parameter': 'type',
  'primitive type': 'type',
  enum: 'enum',
  'enum member': 'constant',
  var: 'variable',
  'local var': 'variable',
  let: 'variable',
  parameter: 'variable',
  alias: 'variable',
  const: 'constant',
  function: 'function',
  'local function': 'function',
  method: 'method',
  constructor: 'class',
  getter: 'property',
  setter: 'property',
  property: 'property',
  accessor: 'property',
  string: 'text',
  directory: 'namespace',
  'JSX attribute': 'property',
};

/** A file's text for the worker: the edited document, so offsets refer to what is on screen. */
function snapshot(path: string, state: EditorState): Record<string, string> {
  return { [path]: state.doc.toString() };
}

/** Completions are asked for after `.`, inside a word, inside quotes (operation names, import paths) or on request. */
function wantsCompletions(context: CompletionContext): boolean {
  if (context.explicit) return true;
  if (context.matchBefore(/[\w$]+$/)) return true;
  const before = context.state.sliceDoc(Math.max(0, context.pos - 1), context.pos);
  return before === '.' || before === "'" || before === '"' || before === '/';
}

function toCompletion(item: CompletionItem, ranks: Map<string, number>): Completion {
  const rank = ranks.get(item.sortText ?? '') ?? 0;
  const completion: Completion = {
    label: item.label,
    type: KIND_TYPES[item.kind] ?? 'variable',
    // TypeScript's relevance first (locals before globals), then the label.
    boost: Math.max(-99, -rank * 10),
    sortText: `${item.sortText ?? ''}\u0000${item.label}`,
  };
  if (item.detail) completion.detail = item.detail;
  if (item.deprecated) completion.boost = -99;
  if (item.insert !== undefined || item.range) {
    const insert = item.insert ?? item.label;
    const range = item.range;
    completion.apply = range
      ? (view, _completion, _from, to) => view.dispatch({ changes: { from: range.from, to: Math.max(to, range.to), insert }, selection: { anchor: range.from + insert.length }, userEvent: 'input.complete' })
      : insert;
  }
  return completion;
}

/** A completion source asking the worker for TypeScript's completions at the cursor. */
export function typescriptCompletionSource(path: string, services: () => LanguageServices | undefined): CompletionSource {
  return async (context: CompletionContext): Promise<CompletionResult | null> => {
    const server = services();
    if (!server || !wantsCompletions(context)) return null;
    const controller = new AbortController();
    // Aborted when the user types on and the result could not be reused: cancel the worker's request too.
    context.addEventListener('abort', () => controller.abort(), { onDocChange: true });
    let result: Completions | undefined;
    try {
      result = await server.completions({ path, offset: context.pos, files: snapshot(path, context.state), signal: controller.signal });
    } catch {
      return null;
    }
    if (!result || context.aborted || result.items.length === 0) return null;
    const ranks = new Map([...new Set(result.items.map((i) => i.sortText ?? ''))].sort().map((s, i) => [s, i] as const));
    const inString = result.from < context.pos && /['"`/]/.test(context.state.sliceDoc(result.from, context.pos));
    return {
      from: result.from,
      options: result.items.map((item) => toCompletion(item, ranks)),
      // Typing more of an identifier narrows this list locally instead of asking again.
      validFor: inString ? /^[^'"`]*$/ : /^[\w$]*$/,
    };
  };
}

function renderQuickInfo(info: QuickInfo): HTMLElement {
  const dom = document.createElement('div');
  dom.className = 'ws-hover';
  dom.setAttribute('data-testid', 'quickinfo');
  const signature = document.createElement('pre');
  signature.className = 'ws-hover-signature';
  signature.textContent = info.text ?? '';
  dom.append(signature);
  if (info.documentation) {
    const documentation = document.createElement('div');
    documentation.className = 'ws-hover-doc';
    documentation.textContent = info.documentation;
    dom.append(documentation);
  }
  return dom;
}

/** A hover tooltip with the type of the symbol under the pointer (TypeScript's quick info). */
export function typescriptHover(path: string, services: () => LanguageServices | undefined): Extension {
  return hoverTooltip(
    async (view: EditorView, pos: number, side: -1 | 1): Promise<Tooltip | null> => {
      const server = services();
      const word = view.state.wordAt(pos);
      if (!server || !word || (word.from === pos && side < 0) || (word.to === pos && side > 0)) return null;
      const doc = view.state.doc;
      let info: QuickInfo | undefined;
      try {
        info = await server.quickinfo({ path, offset: word.from, files: snapshot(path, view.state) });
      } catch {
        return null;
      }
      // Superseded by a newer hover, or the document changed meanwhile: the answer is stale.
      if (!info?.text || view.state.doc !== doc) return null;
      const shown = info;
      return { pos: shown.from ?? word.from, end: shown.to ?? word.to, above: true, create: () => ({ dom: renderQuickInfo(shown) }) };
    },
    { hideOnChange: true, hoverTime: 350 },
  );
}

/** TypeScript completions and hover for `path`; `services` is read at each request (it may change). */
export function typescriptFeatures(path: string, services: () => LanguageServices | undefined): Extension {
  return [autocompletion({ override: [typescriptCompletionSource(path, services)], activateOnTypingDelay: 80 }), typescriptHover(path, services)];
}

/** Applies edits computed over `doc` when the document has not changed since; false when stale. */
export function applyEdits(view: EditorView, doc: EditorState['doc'], edits: readonly TextEdit[]): boolean {
  if (view.state.doc !== doc) return false;
  if (edits.length) view.dispatch({ changes: edits.map((e) => ({ from: e.from, to: e.to, insert: e.insert })), userEvent: 'format', scrollIntoView: true });
  return true;
}

/** TypeScript's formatter over the document, through the worker; resolves false when it could not apply. */
export async function formatTypeScript(view: EditorView, path: string, services: LanguageServices | undefined): Promise<boolean> {
  if (!services?.format) return false;
  const doc = view.state.doc;
  const edits = await services.format({ path, files: snapshot(path, view.state) }).catch(() => undefined);
  return edits ? applyEdits(view, doc, edits) : false;
}
