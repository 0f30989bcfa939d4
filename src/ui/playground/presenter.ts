/**
 * Presenter mode, for teaching from a projector (issue 33): the editor's type larger, the preview given
 * most of the width, and the chrome hidden (the page's header, the file tree, the bottom panel and the
 * toolbar's other controls; playground.tsx and styles.css). Shift-Alt-p or the toolbar's Present button
 * goes in; the same key or Exit comes out, and everything is as it was: nothing of it is stored with the
 * layout.
 */
import { useCallback, useLayoutEffect, useRef, useState } from 'preact/hooks';

/** The editor's text size while presenting (13 px otherwise: editor-metrics.ts). */
export const PRESENTER_FONT_PX = 20;
/** The editor's share of the width while presenting; the preview has the rest. */
const PRESENTER_EDITOR_SHARE = 0.4;

export function usePresenter() {
  const [presenting, setPresenting] = useState(false);
  /** The editor's width while presenting (its handle still resizes it, for this time only). */
  const [editorWidth, setEditorWidth] = useState(0);
  const presentButton = useRef<HTMLButtonElement>(null);
  const exitButton = useRef<HTMLButtonElement>(null);
  const toggled = useRef(false);
  const now = useRef(presenting);
  now.current = presenting;
  /** The same function for the component's life (a shortcut handler installed once keeps working). */
  const toggle = useCallback(() => {
    toggled.current = true;
    if (!now.current) setEditorWidth(Math.round(innerWidth * PRESENTER_EDITOR_SHARE));
    setPresenting(!now.current);
  }, []);
  // The button pressed goes away with the mode: the focus goes to the one that took its place, rather
  // than falling to the page's body. A keystroke from the editor leaves the focus where it was.
  useLayoutEffect(() => {
    if (!toggled.current) return;
    toggled.current = false;
    const focused = document.activeElement;
    if (!focused || focused === document.body) (presenting ? exitButton : presentButton).current?.focus();
  }, [presenting]);
  return { presenting, toggle, editorWidth, setEditorWidth, presentButton, exitButton };
}
