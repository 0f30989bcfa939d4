/** The workspace of one open project: files, tabs and editor; previews as personas; problems and events. */
import { rovingTab, tabListKeys } from '../tab-list';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { PersonaName } from '../../core/runtime';
import type { CompilerClient, LoadProgress } from '../compiler-client';
import { staleNote } from './compile-status';
import { previewEvents } from './preview-events';
import { PlaygroundToolbar } from './playground-toolbar';
import { DeletedNotice } from '../workspace/deleted-notice';
import { SplitPane } from '../workspace/split-pane';
import type { Project } from '../projects/store';
import { installDocumentShortcuts } from '../workspace/shortcuts';
import { PreviewPane } from './preview-pane';
import { EditorPane } from './editor-pane';
import { BottomPanels } from './bottom-panels';
import { SideColumn } from './side-column';
import { takePreviewFrame, useProjectSession } from './use-project-session';
import { useSessionPanels } from './session-panels';
import { isTemplateFiles } from '../projects/known-good';
import { useMediaQuery } from './use-media-query';
import { loadLayout, saveLayout, secondPersona, type Layout, type PanelName } from './layout';
import { usePresenter } from './presenter';
import { useLesson } from '../lesson/use-lesson';
import { problemsOf } from '../diagnostic-list';
import type { CommittedState } from '../runtime/durable-log';

/** Below this width the workspace shows one pane at a time (docs/playground.md, "Layout"). */
export const NARROW = '(max-width: 720px)';

/** The project's layout (kept per project, layout.ts) and its change, saved as it is made. */
function useLayout(projectId: string): [Layout, (change: Partial<Layout>) => void] {
  const [layout, setLayoutState] = useState<Layout>(() => loadLayout(projectId));
  const setLayout = (change: Partial<Layout>) =>
    setLayoutState((before) => {
      const next = { ...before, ...change };
      saveLayout(projectId, next);
      return next;
    });
  return [layout, setLayout];
}

export function Playground({ project, state, pendingImport, compiler, theme }: { project: Project; state?: CommittedState; pendingImport?: string; compiler: CompilerClient; theme: 'light' | 'dark' }) {
  const made = useProjectSession(project, compiler, state, { ...(pendingImport !== undefined ? { pendingImport } : {}) });
  const { session, runtime, firstPreview } = made;
  // A rename in the header or the list: the share link and the bug report carry the new name.
  useEffect(() => session.retitle(project.title), [session, project.title]);
  const panels = useSessionPanels(session, runtime, compiler);
  const { tests } = panels;
  // A project with a lesson (lesson/<step>/step.md) shows it beside the editor (src/ui/lesson).
  const lesson = useLesson(session, compiler);
  const [layout, setLayout] = useLayout(project.id);
  const { split, panelState } = layout;
  // A narrow screen (a phone) shows one of files, code and preview at a time, chosen by tabs; a project opens on its preview.
  const narrow = useMediaQuery(NARROW);
  const [view, setView] = useState<'files' | 'code' | 'preview'>('preview');
  const setPanel = (name: PanelName) => setLayout({ panel: name, ...(panelState === 'collapsed' ? { panelState: 'open' as const } : {}) });
  /** Whether the Events said that the manifest allows no live connection (said once, not per preview load). */
  const liveOffSaid = useRef(false);
  const [progress, setProgress] = useState<LoadProgress>({ loaded: 0, total: 0 });
  useEffect(() => compiler.onProgress(setProgress), [compiler]);
  const [focusEditor, setFocusEditor] = useState<object | undefined>();
  const [showShortcuts, setShowShortcuts] = useState(false);
  const presenter = usePresenter();
  const { presenting } = presenter;
  // The editor is built after the rest of the workspace: the preview (its frame, the runtime's answer, the client's first frame) goes first.
  // A template's files as shipped build from the prebuilt bundles, and a link's or a zip's are the quick preview's: either preview is on its way as the workspace opens.
  const [previewStarting] = useState(() => session.state.generation !== undefined || isTemplateFiles(session.state.project.files) || compiler.quickPreviewing);

  const runTests = (scope?: { file?: string; name?: string }) => {
    setPanel('tests');
    void tests.run(scope);
  };
  useEffect(() => installDocumentShortcuts(() => ({ onSave: () => void session.save(), onRunTests: () => runTests(), onHelp: () => setShowShortcuts(true), onPresent: presenter.toggle })), [session, tests]);
  useEffect(() => {
    if (!session.state.project.activeFile) session.openFile(session.state.project.files['src/client/main.tsx'] !== undefined ? 'src/client/main.tsx' : 'app.manifest.json');
  }, [session]);

  const { project: current, diagnostics, generation } = session.state;
  const hasLesson = lesson.state.lesson !== undefined;
  const showLesson = hasLesson && layout.side === 'lesson';
  const files = Object.keys(current.files).sort();
  const second = secondPersona(current.persona, layout.second);
  const personas: PersonaName[] = split ? [current.persona, second] : [current.persona];
  const problems = problemsOf(diagnostics);
  const { checked, takenDown } = session.state;
  // A reopened project's last good build shows at once, while this session's first build is made.
  const stale = staleNote(session.state);

  return (
    <div class={`playground${presenting ? ' presenting' : ''}`} data-theme={theme}>
      <PlaygroundToolbar
        session={session}
        runtime={runtime}
        tests={tests.state}
        layout={layout}
        setLayout={setLayout}
        second={second}
        presenter={presenter}
        progress={progress}
        showShortcuts={showShortcuts}
        setShowShortcuts={setShowShortcuts}
      />
      <SplitPane
        direction="vertical"
        anchor="second"
        size={layout.panelHeight}
        onSizeChange={(panelHeight) => setLayout({ panelHeight })}
        min={80}
        minSecond={0}
        label="Resize the bottom panel"
        class="playground-main"
        {...(presenting ? { fold: 'second' as const } : panelState === 'open' ? {} : { fold: panelState === 'collapsed' ? ('second' as const) : ('first' as const) })}
      >
        <div class={`workspace-area${narrow ? ` narrow view-${view}` : ''}`}>
          {narrow && (
            <div role="tablist" aria-label="Workspace" class="view-tabs" onKeyDown={tabListKeys}>
              {(['files', 'code', 'preview'] as const).map((name) => (
                <button type="button" role="tab" key={name} aria-selected={view === name} tabIndex={rovingTab(view === name)} onClick={() => setView(name)}>
                  {name === 'files' ? (hasLesson ? 'Lesson' : 'Files') : name === 'code' ? 'Code' : 'Preview'}
                </button>
              ))}
            </div>
          )}
          <SplitPane
            direction="horizontal"
            size={showLesson ? layout.lesson : layout.tree}
            onSizeChange={(width) => setLayout(showLesson ? { lesson: width } : { tree: width })}
            label={showLesson ? 'Resize the lesson' : 'Resize the file tree'}
            {...(presenting && !narrow ? { fold: 'first' as const } : {})}
          >
            <SideColumn
              session={session}
              lesson={lesson}
              side={layout.side}
              onSide={(side) => setLayout({ side })}
              files={files}
              onOpened={(created) => {
                setView('code');
                // Typing goes into a new file.
                if (created) setFocusEditor({});
              }}
            />
            <SplitPane direction="horizontal" size={presenting ? presenter.editorWidth : layout.editor} onSizeChange={presenting ? presenter.setEditorWidth : (editor) => setLayout({ editor })} label="Resize the editor">
              <EditorPane
                session={session}
                compiler={compiler}
                theme={theme}
                firstPreview={firstPreview}
                previewStarting={previewStarting}
                files={files}
                wrap={layout.wrap}
                presenting={presenting}
                onPresent={presenter.toggle}
                onRunTests={() => runTests()}
                revealAt={panels.reveal}
                focusOn={focusEditor}
                onFocus={() => setFocusEditor({})}
              />
              <PreviewPane
                generation={generation}
                personas={personas}
                runtime={runtime}
                crashOf={panels.crashOf}
                onOpen={panels.openAt}
                device={layout.device}
                onDevice={(device) => setLayout({ device })}
                projectId={current.id}
                takeFrame={(persona, container) => takePreviewFrame(made, persona, container)}
                onPersona={(from, to) => (from === current.persona ? session.setPersona(to) : setLayout({ second: to }))}
                {...(stale ? { staleNote: stale } : {})}
                {...(takenDown && !generation ? { emptyNote: 'The build previewed while the type check ran was taken down: the check found errors (see Problems). The preview comes back with the next build that checks.' } : {})}
                events={previewEvents({ log: (kind, fields) => session.log(kind, fields), firstPreview, onConsole: panels.onConsole }, generation?.number, liveOffSaid)}
              />
            </SplitPane>
          </SplitPane>
        </div>
        <BottomPanels
          session={session}
          runtime={runtime}
          compiler={compiler}
          theme={theme}
          panels={panels}
          layout={layout}
          setLayout={setLayout}
          onPanel={setPanel}
          onRunTests={runTests}
          problems={problems}
          checked={checked}
        />
      </SplitPane>
      {session.state.deleted && <DeletedNotice deletion={session.state.deleted} onUndo={() => session.undoDelete()} onDismiss={() => session.dismissDeleted()} />}
    </div>
  );
}
