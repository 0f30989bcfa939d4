/**
 * The editor's text metrics, in one place: CodeMirror's theme (editor.tsx) and the plain text drawn
 * while the editor is not built yet (editor-placeholder.tsx), which must line up with it exactly.
 */
export const EDITOR_FONT_PX = 13;
export const EDITOR_LINE_HEIGHT = 1.55;
export const EDITOR_FONT_FAMILY = "ui-monospace, 'SF Mono', Menlo, Consolas, monospace";
