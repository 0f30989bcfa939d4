/** The workspace of one open project: files, tabs and editor; previews as personas; problems and events. */
import { rovingTab, tabListKeys } from '../tab-list';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Diagnostic } from '../../core/diagnostics';
import type { PersonaName } from '../../core/runtime';
import type { CompilerClient, LoadProgress } from '../compiler-client';
import { staleNote } from './compile-status';
import { previewEvents } from './preview-events';
import { PlaygroundToolbar } from './playground-toolbar';
import { CodeEditor } from '../workspace/editor';
import { EditorPlaceholder } from '../workspace/editor-placeholder';
import { DeletedNotice } from '../workspace/deleted-notice';
import { FileTree } from '../workspace/file-tree';
import { SplitPane } from '../workspace/split-pane';
import { Tabs } from '../workspace/tabs';
import type { Project } from '../projects/store';
import { MANIFEST_FILE } from '../../core/manifest';
import type { BuiltArtifact } from '../deploy/deploy-api';
import { installDocumentShortcuts } from '../workspace/shortcuts';
import { EventsPanel } from './panels';
import { PreviewPane } from './preview-pane';
import { takePreviewFrame, useProjectSession } from './use-project-session';
import { isSessionPanel, SessionPanel, SessionTabs, useSessionPanels } from './session-panels';
import type { FirstPreview } from './first-preview';
import { isTemplateFiles } from '../projects/known-good';
import { useMediaQuery } from './use-media-query';
import { loadLayout, saveLayout, secondPersona, type Layout, type PanelName } from './layout';
import { PRESENTER_FONT_PX, usePresenter } from './presenter';
import { lazyComponent } from '../lazy';
import { LessonPane, useLesson } from '../lesson/use-lesson';
import { problemsOf } from '../diagnostic-list';
import type { CommittedState } from '../runtime/durable-log';


/** True from the first time `open` is true. */
function useOpened(open: boolean): boolean {
  const opened = useRef(false);
  if (open) opened.current = true;
  return opened.current;
}

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

/** The manifest's `name`, if the manifest parses. */
function manifestName(files: Record<string, string>): string | undefined {
  try {
    const name = (JSON.parse(files[MANIFEST_FILE] ?? '') as { name?: unknown }).name;
    return typeof name === 'string' ? name : undefined;
  } catch {
    return undefined;
  }
}

/** Every bundle and the artifact record, for a deploy; or the diagnostics that stopped the build. */
async function buildArtifact(compiler: CompilerClient, files: Record<string, string>): Promise<BuiltArtifact | { diagnostics: Diagnostic[] }> {
  const result = await compiler.compile(files, 'build');
  if (result?.artifactId && result.record && result.files) return { artifactId: result.artifactId, record: result.record, files: result.files };
  return { diagnostics: result?.diagnostics ?? [] };
}

// Panels most sessions never open load when first shown: xterm.js alone is a third of the page's script.
/** Below this width the workspace shows one pane at a time (docs/playground.md, "Layout"). */
export const NARROW = '(max-width: 720px)';

const DataPanel = lazyComponent(() => import('../data/data-panel').then((m) => m.DataPanel), 'data browser');
const DeployPanel = lazyComponent(() => import('../deploy/deploy-panel').then((m) => m.DeployPanel), 'deploy panel');
const TerminalPanel = lazyComponent(() => import('../terminal').then((m) => m.TerminalPanel), 'terminal');

export function Playground({ project, state, pendingImport, compiler, theme }: { project: Project; state?: CommittedState; pendingImport?: string; compiler: CompilerClient; theme: 'light' | 'dark' }) {
  const made = useProjectSession(project, compiler, state, { ...(pendingImport !== undefined ? { pendingImport } : {}) });
  const { session, runtime, firstPreview } = made;
  // A rename in the header or the list: the share link and the bug report carry the new name.
  useEffect(() => session.retitle(project.title), [session, project.title]);
  const panels = useSessionPanels(session, runtime, compiler);
  const { tests } = panels;
  // A project with a lesson (lesson/<step>/step.md) shows it beside the editor (src/ui/lesson).
  const lesson = useLesson(session, compiler);
  const [layout, setLayoutState] = useState<Layout>(() => loadLayout(project.id));
  const setLayout = (change: Partial<Layout>) =>
    setLayoutState((before) => {
      const next = { ...before, ...change };
      saveLayout(project.id, next);
      return next;
    });
  const { split, panel, panelState } = layout;
  // A narrow screen (a phone) shows one of files, code and preview at a time, chosen by tabs; a project opens on its preview.
  const narrow = useMediaQuery(NARROW);
  const [view, setView] = useState<'files' | 'code' | 'preview'>('preview');
  const setPanel = (name: PanelName) => setLayout({ panel: name, ...(panelState === 'collapsed' ? { panelState: 'open' as const } : {}) });
  /** Whether the Events said that the manifest allows no live connection (said once, not per preview load). */
  const liveOffSaid = useRef(false);
  const terminalOpened = useOpened(panel === 'terminal');
  const [progress, setProgress] = useState<LoadProgress>({ loaded: 0, total: 0 });
  useEffect(() => compiler.onProgress(setProgress), [compiler]);
  const [focusEditor, setFocusEditor] = useState<object | undefined>();
  const [showShortcuts, setShowShortcuts] = useState(false);
  const presenter = usePresenter();
  const { presenting } = presenter;
  // The editor is built after the rest of the workspace: the preview (its frame, the runtime's answer, the client's first frame) goes first.
  // A template's files as shipped build from the prebuilt bundles, and a link's or a zip's are the quick preview's: either preview is on its way as the workspace opens.
  const [previewStarting] = useState(() => session.state.generation !== undefined || isTemplateFiles(session.state.project.files) || compiler.quickPreviewing);
  const [editorShown, showEditor] = useEditorShown(firstPreview, previewStarting);

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
  const active = current.activeFile;
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
            <div class="side-column">
              {hasLesson && (
                <div role="tablist" aria-label="Side" class="side-tabs" onKeyDown={tabListKeys}>
                  {(['lesson', 'files'] as const).map((name) => (
                    <button type="button" role="tab" key={name} aria-selected={layout.side === name} tabIndex={rovingTab(layout.side === name)} onClick={() => setLayout({ side: name })}>
                      {name === 'lesson' ? 'Lesson' : 'Files'}
                    </button>
                  ))}
                </div>
              )}
              {showLesson ? (
                <LessonPane lesson={lesson} files={files} onOpen={(path) => (session.openFile(path), setView('code'))} />
              ) : (
            <FileTree
              files={files}
              selected={active}
              onSelect={(path) => (session.openFile(path), setView('code'))}
              onCreate={(path) => {
                session.createFile(path);
                // Typing goes into the new file.
                setView('code');
                setFocusEditor({});
              }}
              onRename={(from, to) => session.renamePath(from, to)}
              onDelete={(path) => session.deletePath(path)}
            />
              )}
            </div>
            <SplitPane direction="horizontal" size={presenting ? presenter.editorWidth : layout.editor} onSizeChange={presenting ? presenter.setEditorWidth : (editor) => setLayout({ editor })} label="Resize the editor">
              <div class="editor-column">
                <Tabs tabs={current.openTabs.map((path) => ({ path }))} active={active} onSelect={(path) => session.openFile(path)} onClose={(path) => session.closeFile(path)} panelId="editor" />
                <div id="editor" class="editor-host">
                  {!editorShown ? (
                    active && current.files[active] !== undefined && (
                      <EditorPlaceholder
                        path={active}
                        text={current.files[active]!}
                        view={session.views[active]}
                        onActivate={() => {
                          showEditor();
                          setFocusEditor({});
                        }}
                      />
                    )
                  ) : active && current.files[active] !== undefined ? (
                    <CodeEditor
                      path={active}
                      value={current.files[active]!}
                      onChange={(text) => session.edit(active, text)}
                      diagnostics={diagnostics.filter((d) => d.file === active)}
                      services={compiler}
                      theme={theme}
                      onSave={() => void session.save()}
                      onRunTests={() => runTests()}
                      onPresent={presenter.toggle}
                      revealAt={panels.reveal}
                      files={files}
                      wrap={layout.wrap}
                      {...(presenting ? { fontPx: PRESENTER_FONT_PX } : {})}
                      focusOn={focusEditor}
                      views={session.views}
                      onView={(path, view) => session.setView(path, view)}
                    />
                  ) : (
                    <p class="muted empty-editor">Open a file from the tree.</p>
                  )}
                </div>
              </div>
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
        <div class={`bottom-panels ${panelState}`} data-testid="bottom-panel" data-state={panelState}>
          <div class="panel-bar">
            <div role="tablist" aria-label="Panels" class="panel-tabs" onKeyDown={tabListKeys}>
              <SessionTabs selected={panel} onSelect={setPanel} panels={panels} problems={problems} checked={checked} />
              <button type="button" role="tab" aria-selected={panel === 'events'} tabIndex={rovingTab(panel === 'events')} onClick={() => setPanel('events')}>
                Events
              </button>
              <button type="button" role="tab" aria-selected={panel === 'data'} tabIndex={rovingTab(panel === 'data')} onClick={() => setPanel('data')}>
                Data
              </button>
              <button type="button" role="tab" aria-selected={panel === 'deploy'} tabIndex={rovingTab(panel === 'deploy')} onClick={() => setPanel('deploy')}>
                Deploy
              </button>
              <button type="button" role="tab" aria-selected={panel === 'terminal'} tabIndex={rovingTab(panel === 'terminal')} onClick={() => setPanel('terminal')}>
                Terminal
              </button>
            </div>
            <span class="panel-actions">
              <button type="button" class="icon-button" onClick={() => setLayout({ panelState: panelState === 'maximised' ? 'open' : 'maximised' })} aria-label={panelState === 'maximised' ? 'Restore the panel' : 'Maximise the panel'} title={panelState === 'maximised' ? 'Restore the panel' : 'Maximise the panel'}>
                {panelState === 'maximised' ? '▭' : '▢'}
              </button>
              <button type="button" class="icon-button" onClick={() => setLayout({ panelState: panelState === 'collapsed' ? 'open' : 'collapsed' })} aria-label={panelState === 'collapsed' ? 'Expand the panel' : 'Collapse the panel'} aria-expanded={panelState !== 'collapsed'} title={panelState === 'collapsed' ? 'Expand the panel' : 'Collapse the panel'}>
                {panelState === 'collapsed' ? '⌃' : '⌄'}
              </button>
            </span>
          </div>
          {panelState === 'collapsed' ? null : isSessionPanel(panel) ? (
            <SessionPanel name={panel} panels={panels} problems={problems} checked={checked} files={current.files} onRun={runTests} />
          ) : panel === 'data' ? (
            <DataPanel session={session} runtime={runtime} persona={current.persona} />
          ) : panel === 'deploy' ? (
            <DeployPanel projectId={current.id} projectName={manifestName(current.files) ?? current.title} buildArtifact={() => buildArtifact(compiler, current.files)} />
          ) : panel === 'terminal' ? null : (
            <EventsPanel events={session.state.events} />
          )}
          {/* Once opened, the terminal stays (hidden on other tabs): its scrollback and history live on. */}
          {terminalOpened && (
            <div class="terminal-slot" hidden={panel !== 'terminal' || panelState === 'collapsed'}>
              <TerminalPanel files={() => session.state.project.files} compiler={compiler} theme={theme} onDependencies={(modules) => session.setDependencies(modules)} />
            </div>
          )}
        </div>
      </SplitPane>
      {session.state.deleted && <DeletedNotice deletion={session.state.deleted} onUndo={() => session.undoDelete()} onDismiss={() => session.dismissDeleted()} />}
    </div>
  );
}
