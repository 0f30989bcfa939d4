/**
 * The playground's editor column: the open files' tabs and the editor of the active one. CodeMirror is
 * built after the rest of the workspace (the preview goes first); until then the file shows as text.
 */
import { useEffect, useState } from 'preact/hooks';
import type { Span } from '../../core/diagnostics';
import type { CompilerClient } from '../compiler-client';
import { CodeEditor } from '../workspace/editor';
import { EditorPlaceholder } from '../workspace/editor-placeholder';
import { Tabs } from '../workspace/tabs';
import type { FirstPreview } from './first-preview';
import { PRESENTER_FONT_PX } from './presenter';
import type { ProjectSession } from './project-session';

/** How long the editor waits at most for the first preview the workspace's first commit started. */
const EDITOR_WAIT_MS = 1000;

/**
 * Whether the editor (CodeMirror: the workspace's longest piece of main-thread work, 60 to 130 ms)
 * is built. When a preview is on its way as the workspace opens (`previewStarting`: the build was
 * ready, or comes from a template's prebuilt bundles or the quick preview), the editor waits for that preview to be up (`firstPreview`, at most
 * EDITOR_WAIT_MS): built before, it held the main thread while the preview frame's document loaded
 * and its client's first frame was reported. Otherwise it is built one task after the first commit.
 * The second value builds it at once (a person reaching for the file's text).
 */
function useEditorShown(firstPreview: FirstPreview, previewStarting: boolean): [boolean, () => void] {
  const [shown, setShown] = useState(false);
  useEffect(() => {
    let live = true;
    const timers: ReturnType<typeof setTimeout>[] = [];
    // One task later: the effects and messages already queued go first.
    const show = () => live && timers.push(setTimeout(() => setShown(true)));
    if (!previewStarting || firstPreview.opened) show();
    else {
      void firstPreview.shown.then(show);
      timers.push(
        setTimeout(() => {
          // Said for the tests (e2e/first-preview.spec.ts): the editor did not wait for a slow preview.
          if (!firstPreview.opened) performance.mark('platform:editor-wait-ended');
          show();
        }, EDITOR_WAIT_MS),
      );
    }
    return () => {
      live = false;
      timers.forEach(clearTimeout);
    };
  }, []);
  return [shown, () => setShown(true)];
}

export interface EditorPaneProps {
  session: ProjectSession;
  compiler: CompilerClient;
  theme: 'light' | 'dark';
  /** The preview the workspace's first commit started, and whether one was on its way then. */
  firstPreview: FirstPreview;
  previewStarting: boolean;
  /** The project's paths, sorted. */
  files: string[];
  wrap: boolean;
  presenting: boolean;
  onPresent(): void;
  onRunTests(): void;
  /** Where a problem or a console line asked to show (the editor scrolls there). */
  revealAt: Span | undefined;
  /** A new object each time typing should go into the editor; `onFocus` asks for it. */
  focusOn: object | undefined;
  onFocus(): void;
}

export function EditorPane(props: EditorPaneProps) {
  const { session, compiler, theme, files, presenting } = props;
  const [editorShown, showEditor] = useEditorShown(props.firstPreview, props.previewStarting);
  const { project: current, diagnostics } = session.state;
  const active = current.activeFile;
  const text = active === undefined ? undefined : current.files[active];
  return (
    <div class="editor-column">
      <Tabs tabs={current.openTabs.map((path) => ({ path }))} active={active} onSelect={(path) => session.openFile(path)} onClose={(path) => session.closeFile(path)} panelId="editor" />
      <div id="editor" class="editor-host">
        {active === undefined || text === undefined ? (
          editorShown && <p class="muted empty-editor">Open a file from the tree.</p>
        ) : !editorShown ? (
          <EditorPlaceholder
            path={active}
            text={text}
            view={session.views[active]}
            onActivate={() => {
              showEditor();
              props.onFocus();
            }}
          />
        ) : (
          <CodeEditor
            path={active}
            value={text}
            onChange={(changed) => session.edit(active, changed)}
            diagnostics={diagnostics.filter((d) => d.file === active)}
            services={compiler}
            theme={theme}
            onSave={() => void session.save()}
            onRunTests={props.onRunTests}
            onPresent={props.onPresent}
            revealAt={props.revealAt}
            files={files}
            wrap={props.wrap}
            {...(presenting ? { fontPx: PRESENTER_FONT_PX } : {})}
            focusOn={props.focusOn}
            views={session.views}
            onView={(path, view) => session.setView(path, view)}
          />
        )}
      </div>
    </div>
  );
}
