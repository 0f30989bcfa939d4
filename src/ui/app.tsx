/**
 * The playground: the start page (templates and projects) or one open project, chosen by the URL hash
 * (`#/p/<id>`), so a reload comes back to the same project. A project is open in one tab at a time.
 * A share link (`#/share/v1.…`) opens as a new project; `?embed` shows the compact embed view; a zip
 * or a folder dropped anywhere opens as a new project.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { CompilerClient } from './compiler-client';
import { Gallery } from './playground/gallery';
import { Playground } from './playground/playground';
import { LeasePage } from './projects/lease-page';
import { ProjectTitle } from './projects/project-actions';
import { newProjectId, PROJECT_FORMAT, saveProject, type Project } from './projects/store';
import { useOpenProject } from './projects/use-open-project';
import type { PlaygroundTemplate } from './projects/templates';
import { EmbedView, embedMode } from './embed/embed-view';
import { shareFragment } from '../core/share';
import { readShareLink, saveLinkedProject, type OpenedLink } from './share/share';
import { keptEmbed } from './embed/kept-embed';
import { openDropped, openZipFile, type Opened as OpenedFiles } from './share/zip-files';
import './workspace/workspace.css';
import { useMediaQuery } from './playground/use-media-query';
import { dropNewProjectSession, startNewProjectSession } from './playground/use-project-session';

declare global {
  /** The compiler, for the end-to-end tests and the benchmarks. */
  var __platformCompiler: CompilerClient | undefined;
}

type Route = { page: 'home' } | { page: 'project'; id: string } | { page: 'share'; fragment: string };

function route(): Route {
  const fragment = shareFragment(location.hash);
  if (fragment !== undefined) return { page: 'share', fragment };
  const match = /^#\/p\/([A-Za-z0-9_-]+)$/.exec(location.hash);
  return match ? { page: 'project', id: match[1]! } : { page: 'home' };
}

function projectFrom(template: PlaygroundTemplate): Project {
  const now = Date.now();
  return { format: PROJECT_FORMAT, id: newProjectId(), title: template.title, template: template.id, files: { ...template.files }, openTabs: [], persona: 'alice', createdAt: now, updatedAt: now };
}

/** The theme the toggle chose in an earlier visit, if any. */
function storedTheme(): 'light' | 'dark' | undefined {
  try {
    const stored = localStorage.getItem('platform-theme');
    return stored === 'light' || stored === 'dark' ? stored : undefined;
  } catch {
    return undefined;
  }
}

export function App() {
  const compiler = useMemo(() => {
    const client = (globalThis.__platformCompiler ??= new CompilerClient());
    // A share link's first preview is the quick preview: its worker starts with the page.
    if (route().page === 'share') client.prepareQuickPreview();
    return client;
  }, []);
  const [current, setCurrent] = useState<Route>(route);
  const { opened, takeOver, renamed } = useOpenProject(current.page === 'project' ? current.id : undefined);
  const embed = useMemo(() => embedMode(location.search), []);
  /** A share link being read, or read: its error, or (in embed mode) its scratch project. */
  const [shared, setShared] = useState<OpenedLink | undefined>();
  const [dropped, setDropped] = useState<{ code?: string; message: string; tone: 'info' | 'error' } | undefined>();
  const [dragging, setDragging] = useState(false);
  // The system's theme until the toggle chooses one; the choice is kept (platform-theme).
  const system = useMediaQuery('(prefers-color-scheme: dark)') ? 'dark' : 'light';
  const [chosen, setChosen] = useState<'light' | 'dark' | undefined>(() => storedTheme());
  const theme = chosen ?? system;
  const setTheme = (next: 'light' | 'dark') => {
    setChosen(next);
    try {
      localStorage.setItem('platform-theme', next);
    } catch {
      // Storage refused: the choice holds for this page only.
    }
  };

  useEffect(() => {
    const onHash = () => setCurrent(route());
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);
  useEffect(() => {
    document.documentElement.dataset.theme = theme;
  }, [theme]);

  // A share link: read it (nothing is written for a bad one), then save it as a new project and go
  // there; the history entry of the link is replaced, so Back and reload do not make another copy.
  // In embed mode it stays a scratch project in this page.
  const fragment = current.page === 'share' ? current.fragment : undefined;
  useEffect(() => {
    if (fragment === undefined) return undefined;
    // A linked project is never a template as shipped (no prebuilt preview): its first preview is the
    // page's quick preview (src/ui/quick-preview.ts), and the compiler starts once that is up, as after
    // a template's; a project the quick preview declines starts it with its first build.
    let live = true;
    setShared(undefined);
    void (async () => {
      const read = await readShareLink(fragment);
      if (!live) return;
      if (read.ok) compiler.prepareQuickPreview(read.project.files);
      if (!read.ok || embed === 'readonly') return setShared(read);
      if (embed) {
        // An editable embed opens the visitor's copy for this link and embedding page, made on the first
        // visit (kept-embed.ts); the page's address keeps `?embed`. Where the browser refuses the frame
        // its storage, the copy is a scratch one, kept only in the page.
        const id = await keptEmbed(fragment, read, document.referrer).catch(() => undefined);
        if (!live) return;
        if (id === undefined) return setShared(read);
        location.replace(`#/p/${id}`);
        return;
      }
      // With no data to import, its first build and runtime start now, as a new template project's do,
      // while it is stored and its workspace drawn.
      if (read.state === undefined) startNewProjectSession(read.project, compiler);
      try {
        await saveLinkedProject(read);
      } catch (error) {
        dropNewProjectSession();
        throw error;
      }
      if (live) location.replace(`#/p/${read.project.id}`);
      else dropNewProjectSession();
    })();
    return () => {
      live = false;
    };
  }, [fragment]);

  const openFiles = async (work: Promise<OpenedFiles>) => {
    // As for a share link: the first preview is the quick preview when it can be; the compiler starts after it.
    compiler.prepareQuickPreview();
    const result = await work;
    if (!result.ok) return setDropped({ tone: 'error', code: result.error.code, message: result.error.message });
    compiler.prepareQuickPreview(result.project.files);
    // As for a link: a project with no data to import starts its session now (openZipFile stored any data as a pending import).
    if (result.data === undefined) startNewProjectSession(result.project, compiler);
    try {
      await saveProject(result.project);
    } catch (error) {
      dropNewProjectSession();
      throw error;
    }
    setDropped(result.skipped.length ? { tone: 'info', message: `Opened ${result.project.title}; left out: ${result.skipped.slice(0, 10).join(', ')}${result.skipped.length > 10 ? ` and ${result.skipped.length - 10} more` : ''}.` } : undefined);
    location.hash = `#/p/${result.project.id}`;
  };
  const hasFiles = (event: DragEvent) => !embed && (event.dataTransfer?.types.includes('Files') ?? false);
  // Capture phase: the editor would otherwise take a dropped file as text to insert.
  const onDragOver = (event: DragEvent) => {
    if (!hasFiles(event)) return;
    event.preventDefault();
    event.stopPropagation();
    setDragging(true);
  };
  const onDrop = (event: DragEvent) => {
    if (!hasFiles(event)) return;
    event.preventDefault();
    event.stopPropagation();
    setDragging(false);
    void openFiles(openDropped(event.dataTransfer!));
  };

  const create = async (template: PlaygroundTemplate) => {
    const project = projectFrom(template);
    // Its first build and runtime start now, while it is stored and its workspace drawn.
    startNewProjectSession(project, compiler);
    try {
      await saveProject(project);
    } catch (error) {
      dropNewProjectSession();
      throw error;
    }
    performance.mark('platform:project-stored');
    location.hash = `#/p/${project.id}`;
  };

  const title = current.page === 'project' && opened.kind === 'open' ? opened.project.title : current.page === 'share' && shared?.ok ? shared.project.title : undefined;
  useEffect(() => {
    document.title = title ? `${title} · Platform Playground` : 'Platform Playground';
  }, [title]);

  if (embed) {
    const full = `${location.origin}${location.pathname}${location.hash}`;
    return (
      <div class="shell embed-shell" data-theme={theme}>
        {current.page === 'share' && shared?.ok ? (
          <EmbedView key={shared.project.id} project={shared.project} {...(shared.state !== undefined ? { pendingImport: shared.state } : {})} persist={false} mode={embed} compiler={compiler} theme={theme} openHref={full} />
        ) : current.page === 'project' && opened.kind === 'open' ? (
          <EmbedView key={opened.project.id} project={opened.project} state={opened.state} persist={embed === 'edit'} mode={embed} compiler={compiler} theme={theme} openHref={full} />
        ) : current.page === 'share' && shared && !shared.ok ? (
          <ShareLinkError error={shared.error} />
        ) : current.page === 'home' ? (
          <p class="page-message">
            Nothing to show: embed a project with a share link, <code>?embed#/share/v1.…</code> (or <code>?embed=readonly</code>).
          </p>
        ) : opened.kind === 'missing' || opened.kind === 'held' ? (
          <p class="page-message" role="alert">
            {opened.kind === 'missing' ? 'There is no such project in this browser.' : 'This project is open in another tab.'}
          </p>
        ) : (
          <p class="muted page-message">Opening the project…</p>
        )}
      </div>
    );
  }

  return (
    <div class={`shell ${dragging ? 'dragging' : ''}`} data-theme={theme} onDragOverCapture={onDragOver} onDragLeave={(e) => !e.relatedTarget && setDragging(false)} onDropCapture={onDrop}>
      <header class="topbar">
        <a href="#/" class="brand" title="Projects and templates">
          <img src="/favicon.svg" alt="" width="22" height="22" />
          <h1>Platform Playground</h1>
        </a>
        {current.page === 'project' && opened.kind === 'open' ? <ProjectTitle key={opened.project.id} id={opened.project.id} title={opened.project.title} onRenamed={renamed} /> : title && <span class="project-title">{title}</span>}
        <label class="link open-zip" title="Open a project's zip as a new project (or drop a zip or a folder anywhere)">
          Open zip…
          <input
            type="file"
            accept=".zip,application/zip"
            class="visually-hidden"
            data-testid="open-zip"
            onChange={(e) => {
              const input = e.target as HTMLInputElement;
              const file = input.files?.[0];
              input.value = '';
              if (file) void openFiles(openZipFile(file));
            }}
          />
        </label>
        <button type="button" class="link theme-toggle" onClick={() => setTheme(theme === 'dark' ? 'light' : 'dark')} title="Switch between light and dark">
          {theme === 'dark' ? 'Light' : 'Dark'} theme
        </button>
      </header>
      {dropped && (
        <div class={`notice banner ${dropped.tone}`} role={dropped.tone === 'error' ? 'alert' : 'status'} data-testid="open-result" data-code={dropped.code}>
          {dropped.code && <strong>{dropped.code}: </strong>}
          {dropped.message}
          <button type="button" class="link" aria-label="Dismiss" onClick={() => setDropped(undefined)}>
            ×
          </button>
        </div>
      )}
      {dragging && <div class="drop-overlay">Drop a zip or a folder to open it as a new project</div>}
      <main class="main">
        {current.page === 'share' ? (
          shared && !shared.ok ? <ShareLinkError error={shared.error} /> : <p class="muted page-message">Opening the shared project…</p>
        ) : current.page === 'home' ? (
          <Gallery onCreate={(t) => void create(t)} />
        ) : opened.kind === 'loading' ? (
          <p class="muted page-message">Opening the project…</p>
        ) : opened.kind === 'missing' ? (
          <div class="page-message" role="alert">
            <p>There is no such project in this browser.</p>
            <a href="#/">Back to the templates and projects</a>
          </div>
        ) : opened.kind === 'held' ? (
          <LeasePage project={opened.project} holder={opened.holder} moved={opened.moved} onTakeOver={takeOver} />
        ) : (
          <Playground key={opened.project.id} project={opened.project} state={opened.state} {...(opened.pendingImport !== undefined ? { pendingImport: opened.pendingImport } : {})} compiler={compiler} theme={theme} />
        )}
      </main>
    </div>
  );
}

/** A link that cannot be opened: its code and message; nothing was written. */
function ShareLinkError({ error }: { error: { code: string; message: string } }) {
  return (
    <div class="page-message" role="alert" data-testid="share-error" data-code={error.code}>
      <h2>This share link cannot be opened</h2>
      <p>
        <code>{error.code}</code>: {error.message}
      </p>
      <p class="muted">Nothing was changed: no project was made, and your projects are as they were.</p>
      <a href="#/">Back to the templates and projects</a>
    </div>
  );
}
