/**
 * How to leave the editor by keyboard. Tab indents in the editor (indentWithTab), so Tab alone does not
 * move focus on; CodeMirror lets Escape then Tab leave it. A line at the editor's foot says so while the
 * editor has focus, and the editable content is described by it for screen readers (WAI-ARIA's advice
 * for a widget that keeps Tab).
 */
import type { Extension } from '@codemirror/state';
import { EditorView, showPanel } from '@codemirror/view';

export const LEAVE_HINT = 'Tab indents. To leave the editor: Esc, then Tab.';

let made = 0;

/** The hint as a panel of the editor's own (hidden by CSS unless the editor is focused), described-by linked. */
export function leaveHint(): Extension {
  const id = `editor-leave-hint-${++made}`;
  return [
    showPanel.of(() => {
      const dom = document.createElement('div');
      dom.className = 'cm-leave-hint';
      dom.id = id;
      dom.textContent = LEAVE_HINT;
      return { dom, top: false };
    }),
    EditorView.contentAttributes.of({ 'aria-describedby': id }),
  ];
}
