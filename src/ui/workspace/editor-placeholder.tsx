/**
 * A file's text as the editor will show it, drawn as plain text while the editor (CodeMirror) is not
 * built yet: the same font, line height and line-number gutter, and the scroll a reload restores
 * (file-views.ts), so the editor takes its place without the text moving. Reaching for it (a pointer,
 * the keyboard's focus) asks for the editor at once.
 */
import { useLayoutEffect, useRef } from 'preact/hooks';
import { EDITOR_FONT_FAMILY, EDITOR_FONT_PX, EDITOR_LINE_HEIGHT } from './editor-metrics';
import type { FileView } from './file-views';

/** Lines drawn: more than any editor pane shows before it scrolls. */
const LINES = 200;
/** The editor's line height, and its content's top padding (CodeMirror's). */
const LINE_PX = EDITOR_FONT_PX * EDITOR_LINE_HEIGHT;
const PADDING_PX = 4;
const FONT = `${EDITOR_FONT_PX}px/${EDITOR_LINE_HEIGHT} ${EDITOR_FONT_FAMILY}`;

export function EditorPlaceholder({ path, text, view, onActivate }: { path: string; text: string; view?: FileView | undefined; onActivate(): void }) {
  const host = useRef<HTMLDivElement>(null);
  // Where the editor will scroll to: the kept view's first line at the top (less how far it was above),
  // as CodeMirror's scrollIntoView puts it, and its horizontal scroll.
  const firstLine = view ? text.slice(0, Math.min(view.top, text.length)).split('\n').length - 1 : 0;
  const lines = text.split('\n', firstLine + LINES);
  useLayoutEffect(() => {
    if (!view || !host.current) return;
    host.current.scrollTop = PADDING_PX + firstLine * LINE_PX + view.topOffset;
    host.current.scrollLeft = view.left;
  }, []);
  return (
    <div class="ws-editor editor-placeholder" ref={host} data-testid="editor-placeholder" data-path={path} tabIndex={0} aria-label={`${path} (the editor is loading)`} style={{ font: FONT }} onPointerDown={onActivate} onFocus={onActivate}>
      <pre class="editor-placeholder-gutter" aria-hidden="true">
        {lines.map((_, i) => i + 1).join('\n')}
      </pre>
      <pre class="editor-placeholder-text">{lines.join('\n')}</pre>
    </div>
  );
}
