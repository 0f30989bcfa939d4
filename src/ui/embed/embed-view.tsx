/**
 * Embed mode (`?embed`, `?embed=readonly`): a compact editor and the preview, for teaching pages and
 * docs that iframe the playground. No project list, no panels. An editable embed of a share link opens
 * the visitor's own copy, kept across reloads of the embedding page (kept-embed.ts); a read-only one is
 * a scratch project kept only in the page (nothing is written to IndexedDB). The app runs sandboxed as ever.
 */
import { useMemo } from 'preact/hooks';
import { problemsOf } from '../diagnostic-list';
import type { CompilerClient } from '../compiler-client';
import { PersonaSwitcher, PreviewPane } from '../playground/preview-pane';
import { takePreviewFrame, useProjectSession } from '../playground/use-project-session';
import { isTemplateFiles } from '../projects/known-good';
import { isKeptEmbed, type Project } from '../projects/store';
import { MemoryProjectStore } from '../session/project-store';
import { CodeEditor } from '../workspace/editor';
import type { CommittedState } from '../runtime/durable-log';
import { buildShareLink, SHARE_ROUTE } from '../share/share';
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
  const errors = problemsOf(diagnostics).filter((d) => d.severity === 'error');
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
    <div class={`embed ${mode}`} data-theme={theme} data-testid="embed">
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
        <PersonaSwitcher persona={current.persona} split={false} onPersona={(p) => session.setPersona(p)} onSplit={() => undefined} />
        <span class={`compile-status ${compile === 'ready' ? 'ok' : compile === 'failed' ? 'error' : 'busy'}`} data-testid="compile-status" role="status">
          {compile === 'ready' ? 'Ready' : compile === 'failed' ? `Build failed${errors[0] ? `: ${errors[0].code} ${errors[0].message}` : ''}` : compile === 'loading' ? 'Loading the compiler…' : 'Compiling…'}
        </span>
        {kept && (
          <button type="button" class="link" onClick={startOver} title="Delete your changes here and start again from the lesson's files">
            Start over
          </button>
        )}
        <a href={openHref} target="_blank" rel="noopener" class="link" onClick={openWithEdits}>
          Open in the playground ↗
        </a>
      </div>
      <div class="embed-body">
        <div class="embed-editor">
          {!active ? (
            <p class="muted">No files.</p>
          ) : mode === 'readonly' ? (
            <pre class="embed-code" role="region" tabIndex={0} aria-label={active} data-testid="embed-code">
              {current.files[active]}
            </pre>
          ) : (
            <CodeEditor path={active} value={current.files[active]!} onChange={(text) => session.edit(active, text)} diagnostics={diagnostics.filter((d) => d.file === active)} services={compiler} theme={theme} files={files} views={session.views} onView={(path, view) => session.setView(path, view)} />
          )}
        </div>
        <div class="embed-preview">
          <PreviewPane generation={generation} personas={[current.persona]} runtime={runtime} takeFrame={(persona, container) => takePreviewFrame(made, persona, container)} onPersona={(_, to) => session.setPersona(to)} events={{ onLoaded: () => firstPreview.open(), onError: (message) => (firstPreview.open(), session.log('preview.error', { message })) }} />
        </div>
      </div>
    </div>
  );
}
