/** The list of the playground's keyboard shortcuts (the "?" key, or Shortcuts in the toolbar): a modal dialog, closed by Escape. */
import { useEffect, useRef } from 'preact/hooks';

const mod = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent) ? '⌘' : 'Ctrl';

/** What each key does; the keys are src/ui/workspace/shortcuts.ts's and CodeMirror's (search, history, comments). */
export const SHORTCUTS: ReadonlyArray<readonly [keys: string, what: string]> = [
  [`${mod}+S`, 'Save the project'],
  [`${mod}+Enter`, 'Run the tests (from anywhere on the page)'],
  ['Shift+Alt+F', 'Format the file'],
  ['Shift+Alt+P', 'Presenter mode: larger type, a larger preview, no chrome (again to leave)'],
  [`${mod}+F`, 'Search and replace in the file'],
  [`F3 / ${mod}+G`, 'Next match'],
  [`${mod}+D`, 'Select the next occurrence'],
  [`${mod}+Alt+G`, 'Go to line'],
  [`${mod}+/`, 'Comment or uncomment the line'],
  [`${mod}+Z / ${mod}+Shift+Z`, 'Undo / redo'],
  ['Ctrl+Space', 'Complete'],
  ['F2 (file tree)', 'Rename the file or folder'],
  ['Delete (file tree)', 'Delete the file or folder'],
  ['Arrow keys (a resize handle)', 'Resize the pane (Shift: by 50 px)'],
  ['?', 'This list'],
];

export function ShortcutsDialog({ onClose }: { onClose(): void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const element = dialog.current!;
    if (!element.open) element.showModal();
    const closed = () => onClose();
    element.addEventListener('close', closed);
    return () => element.removeEventListener('close', closed);
  }, []);
  return (
    <dialog ref={dialog} class="shortcuts-dialog" aria-labelledby="shortcuts-title">
      <div class="share-head">
        <h2 id="shortcuts-title">Keyboard shortcuts</h2>
        <button type="button" class="link" aria-label="Close" onClick={() => dialog.current?.close()}>
          ×
        </button>
      </div>
      <table>
        <tbody>
          {SHORTCUTS.map(([keys, what]) => (
            <tr key={keys}>
              <th scope="row">
                <kbd>{keys}</kbd>
              </th>
              <td>{what}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </dialog>
  );
}
