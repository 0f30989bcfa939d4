/**
 * Embed mode (`?embed`, `?embed=readonly`): a compact editor and the preview, for teaching pages and
 * docs that iframe the playground, over a collapsible strip of Problems, Console and Tests (the
 * playground's own, session-panels.tsx). No project list, no other panels. An editable embed of a share
 * link opens the visitor's own copy, kept across reloads of the embedding page (kept-embed.ts); a
 * read-only one shows the code highlighted but not editable, and is a scratch project kept only in the
 * page (nothing is written to IndexedDB). Either can reset the app's data. The app runs sandboxed as ever.
 */
import { useMemo, useState } from 'preact/hooks';
import { problemsOf } from '../diagnostic-list';
import { SessionPanel, SessionTabs, useSessionPanels, type SessionPanelName } from '../playground/session-panels';
import { LessonPane, useLesson } from '../lesson/use-lesson';
import { tabListKeys } from '../tab-list';
import type { CompilerClient } from '../compiler-client';
import { PersonaSwitcher, PreviewPane } from '../playground/preview-pane';
import { takePreviewFrame, useProjectSession } from '../playground/use-project-session';
import { isTemplateFiles } from '../projects/known-good';
import { isKeptEmbed, type Project } from '../projects/store';
import { MemoryProjectStore } from '../session/project-store';
import { CodeEditor } from '../workspace/editor';
import type { CommittedState } from '../runtime/durable-log';
import { SHARE_ROUTE } from '../../core/share';
import { buildShareLink } from '../share/share';
import { embedLinkOf, startOverEmbed } from './kept-embed';

export type EmbedMode = 'edit' | 'readonly';

/** `?embed` → 'edit', `?embed=readonly` → 'readonly', no `embed` parameter → undefined. */
export function embedMode(search: string): EmbedMode | undefined {
  const params = new URLSearchParams(search);
  if (!params.has('embed')) return undefined;
  return params.get('embed') === 'readonly' ? 'readonly' : 'edit';
}

export interface EmbedViewProps {
  project: Project;
  state?: CommittedState;
  pendingImport?: string;
  /** False for a project from a share link: a scratch copy. */
  persist: boolean;
  mode: EmbedMode;
  compiler: CompilerClient;
  theme: 'light' | 'dark';
  /** The full playground's URL for this project (opens in a new tab). */
  openHref: string;
}

export function EmbedView({ project, state, pendingImport, persist, mode, compiler, theme, openHref }: EmbedViewProps) {
  // A scratch project is kept in the page only: its store is memory.
  const store = useMemo(() => (persist ? undefined : new MemoryProjectStore(isTemplateFiles)), [project.id]);
  const made = useProjectSession(project, compiler, state, { ...(store ? { store } : {}), ...(pendingImport !== undefined ? { pendingImport } : {}) });
  const { session, runtime, firstPreview } = made;
  const { project: current, compile, generation, diagnostics } = session.state;
  const files = Object.keys(current.files).sort();
  const active = current.activeFile && current.files[current.activeFile] !== undefined ? current.activeFile : files.includes('src/client/main.tsx') ? 'src/client/main.tsx' : files[0];
  const { checked } = session.state;
  const problems = problemsOf(diagnostics);
  const errors = problems.filter((d) => d.severity === 'error');
  // A long first error is cut to the bar's width: the whole of it is the status's title, and in Problems.
  const status = compile === 'ready' ? 'Ready' : compile === 'failed' ? `Build failed${errors[0] ? `: ${errors[0].code} ${errors[0].message}` : ''}` : compile === 'loading' ? 'Loading the compiler…' : 'Compiling…';
  const panels = useSessionPanels(session, runtime, compiler);
  // A lesson's link embedded editable shows the lesson beside the editor, its progress kept with the copy (src/ui/lesson).
  const lesson = useLesson(session, compiler);
  const showLesson = mode === 'edit' && lesson.state.lesson !== undefined;
  // The strip starts folded to its tabs (their counts still show): the editor and the preview keep the room.
  const [panel, setPanel] = useState<SessionPanelName>('problems');
  const [open, setOpen] = useState(false);
  const showPanel = (name: SessionPanelName) => (setPanel(name), setOpen(true));
  // Tests run in sandboxes of their own on a copy of the files: a read-only embed runs them too.
  const runTests = (scope?: { file?: string; name?: string }) => {
    showPanel('tests');
    void panels.tests.run(scope);
  };
  // Read-only, the same editor: highlighted, line numbers, problems marked; no edit taken.
  const editor = active && (
    <CodeEditor
      path={active}
      value={current.files[active]!}
      onChange={(text) => session.edit(active, text)}
      diagnostics={diagnostics.filter((d) => d.file === active)}
      services={compiler}
      theme={theme}
      files={files}
      revealAt={panels.reveal}
      onRunTests={() => runTests()}
      readOnly={mode === 'readonly'}
      views={session.views}
      onView={(path, view) => session.setView(path, view)}
    />
  );
  // A kept copy of a link (kept-embed.ts): Start over goes back to the link's files.
  const link = persist && isKeptEmbed(project.id) ? embedLinkOf(project.id) : undefined;
  const kept = link !== undefined && mode === 'edit';
  const startOver = () => {
    if (!link || !confirm("Start over from the lesson's files? Your changes here are deleted.")) return;
    startOverEmbed(project.id);
    location.replace(`${SHARE_ROUTE}${link}`);
  };
  // The full playground opens the files as they are now (a share link of them), not the link's.
  const openWithEdits = (event: MouseEvent) => {
    if (mode !== 'edit') return;
    event.preventDefault();
    void buildShareLink(session, false).then((built) => window.open(built.ok ? built.url : openHref, '_blank', 'noopener'));
  };

  return (
    <div class={`embed ${mode}${open ? ' panels-open' : ''}`} data-theme={theme} data-testid="embed">
      <div class="embed-bar">
        <strong class="embed-title">{current.title}</strong>
        <select aria-label="File" value={active} onChange={(e) => session.openFile((e.target as HTMLSelectElement).value)}>
          {files.map((path) => (
            <option key={path} value={path}>
              {path}
            </option>
          ))}
        </select>
        {mode === 'readonly' && <span class="badge">read-only</span>}
        <PersonaSwitcher persona={current.persona} split={false} onPersona={(p) => session.setPersona(p)} />
        <span class={`compile-status ${compile === 'ready' ? 'ok' : compile === 'failed' ? 'error' : 'busy'}`} data-testid="compile-status" role="status" title={status}>
          {status}
        </span>
        {kept && (
          <button type="button" class="link" onClick={startOver} title="Delete your changes here and start again from the lesson's files">
            Start over
          </button>
        )}
        <button type="button" class="link" onClick={() => void session.resetData()} title="Drop the app's data and start empty (a recovery copy is kept)">
          Reset data
        </button>
        {session.state.recovery && (
          <button type="button" class="link" onClick={() => void session.restoreRecovery()} title={`Bring back the data the last reset dropped (${new Date(session.state.recovery.savedAt).toLocaleTimeString()})`}>
            Undo reset
          </button>
        )}
        <a href={openHref} target="_blank" rel="noopener" class="link" onClick={openWithEdits}>
          Open in the playground ↗
        </a>
      </div>
      <div class={`embed-body${showLesson ? ' with-lesson' : ''}`}>
        {showLesson && (
          <div class="embed-lesson">
            <LessonPane lesson={lesson} files={files} onOpen={(path) => session.openFile(path)} />
          </div>
        )}
        <div class="embed-editor">
          {!editor ? (
            <p class="muted">No files.</p>
          ) : mode === 'readonly' ? (
            <div class="embed-code" data-testid="embed-code">
              {editor}
            </div>
          ) : (
            editor
          )}
        </div>
        <div class="embed-preview">
          <PreviewPane
            generation={generation}
            personas={[current.persona]}
            runtime={runtime}
            crashOf={panels.crashOf}
            onOpen={panels.openAt}
            takeFrame={(persona, container) => takePreviewFrame(made, persona, container)}
            onPersona={(_, to) => session.setPersona(to)}
            events={{ onConsole: panels.onConsole, onLoaded: () => firstPreview.open(), onError: (message) => (firstPreview.open(), session.log('preview.error', { message })) }}
          />
        </div>
      </div>
      <div class={`embed-panels ${open ? 'open' : 'collapsed'}`} data-testid="embed-panels">
        <div class="panel-bar">
          <div role="tablist" aria-label="Panels" class="panel-tabs" onKeyDown={tabListKeys}>
            <SessionTabs selected={panel} onSelect={showPanel} panels={panels} problems={problems} checked={checked} />
          </div>
          <span class="panel-actions">
            <button type="button" class="icon-button" onClick={() => setOpen(!open)} aria-label={open ? 'Collapse the panel' : 'Expand the panel'} aria-expanded={open} title={open ? 'Collapse the panel' : 'Expand the panel'}>
              {open ? '⌄' : '⌃'}
            </button>
          </span>
        </div>
        {open && (
          <div class="embed-panel" role="tabpanel" aria-label={panel === 'problems' ? 'Problems' : panel === 'console' ? 'Console' : 'Tests'}>
            <SessionPanel name={panel} panels={panels} problems={problems} checked={checked} files={current.files} onRun={runTests} />
          </div>
        )}
      </div>
    </div>
  );
}
