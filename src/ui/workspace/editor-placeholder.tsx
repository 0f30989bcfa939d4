/**
 * A file's text as the editor will show it, drawn as plain text while the editor (CodeMirror) is not
 * built yet: the same font, line height and line-number gutter, so the editor takes its place without
 * the text moving. Reaching for it (a pointer, the keyboard's focus) asks for the editor at once.
 */

/** Lines drawn: more than any editor pane shows before it scrolls. */
const LINES = 200;

export function EditorPlaceholder({ path, text, onActivate }: { path: string; text: string; onActivate(): void }) {
  const lines = text.split('\n', LINES);
  return (
    <div class="ws-editor editor-placeholder" data-testid="editor-placeholder" data-path={path} tabIndex={0} aria-label={`${path} (the editor is loading)`} onPointerDown={onActivate} onFocus={onActivate}>
      <pre class="editor-placeholder-gutter" aria-hidden="true">
        {lines.map((_, i) => i + 1).join('\n')}
      </pre>
      <pre class="editor-placeholder-text">{lines.join('\n')}</pre>
    </div>
  );
}
