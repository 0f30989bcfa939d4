/**
 * The playground: the start page (templates and projects) or one open project, chosen by the URL hash
 * (`#/p/<id>`), so a reload comes back to the same project. A project is open in one tab at a time.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { CompilerClient } from './compiler-client';
import { Gallery } from './playground/gallery';
import { Playground } from './playground/playground';
import { acquireLease, type LeaseHolder } from './projects/lease';
import { loadProject, loadState, newProjectId, PROJECT_FORMAT, saveProject, type Project } from './projects/store';
import type { PlaygroundTemplate } from './projects/templates';
import './workspace/workspace.css';

declare global {
  /** The compiler, for the end-to-end tests and the benchmarks. */
  var __platformCompiler: CompilerClient | undefined;
}

type Route = { page: 'home' } | { page: 'project'; id: string };

function route(): Route {
  const match = /^#\/p\/([A-Za-z0-9_-]+)$/.exec(location.hash);
  return match ? { page: 'project', id: match[1]! } : { page: 'home' };
}

type Opened =
  | { kind: 'loading' }
  | { kind: 'open'; project: Project; state?: Uint8Array; release(): void }
  | { kind: 'missing' }
  | { kind: 'held'; project: Project; holder?: LeaseHolder };

function projectFrom(template: PlaygroundTemplate): Project {
  const now = Date.now();
  return { format: PROJECT_FORMAT, id: newProjectId(), title: template.title, template: template.id, files: { ...template.files }, openTabs: [], persona: 'alice', createdAt: now, updatedAt: now };
}

export function App() {
  const compiler = useMemo(() => (globalThis.__platformCompiler ??= new CompilerClient()), []);
  const [current, setCurrent] = useState<Route>(route);
  const [opened, setOpened] = useState<Opened>({ kind: 'loading' });
  const [theme, setTheme] = useState<'light' | 'dark'>(() => (localStorage.getItem('platform-theme') as 'light' | 'dark' | null) ?? (matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light'));

  useEffect(() => {
    const onHash = () => setCurrent(route());
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);
  useEffect(() => {
    localStorage.setItem('platform-theme', theme);
    document.documentElement.dataset.theme = theme;
  }, [theme]);

  useEffect(() => {
    if (current.page !== 'project') return;
    let live = true;
    let release: (() => void) | undefined;
    setOpened({ kind: 'loading' });
    void (async () => {
      const project = await loadProject(current.id);
      if (!live) return;
      if (!project) return setOpened({ kind: 'missing' });
      const lease = await acquireLease(project.id, document.title);
      if (!live) return lease.held && lease.release();
      if (!lease.held) return setOpened({ kind: 'held', project, ...(lease.holder ? { holder: lease.holder } : {}) });
      release = lease.release;
      const state = await loadState(project.id);
      setOpened({ kind: 'open', project, ...(state ? { state } : {}), release: lease.release });
    })();
    return () => {
      live = false;
      release?.();
    };
  }, [current.page === 'project' ? current.id : '']);

  const create = async (template: PlaygroundTemplate) => {
    const project = projectFrom(template);
    await saveProject(project);
    location.hash = `#/p/${project.id}`;
  };
  const copy = async (project: Project) => {
    const now = Date.now();
    const duplicate: Project = { ...project, id: newProjectId(), title: `${project.title} (copy)`, createdAt: now, updatedAt: now };
    await saveProject(duplicate);
    location.hash = `#/p/${duplicate.id}`;
  };

  const title = current.page === 'project' && opened.kind === 'open' ? opened.project.title : undefined;
  useEffect(() => {
    document.title = title ? `${title} · Platform Playground` : 'Platform Playground';
  }, [title]);

  return (
    <div class="shell" data-theme={theme}>
      <header class="topbar">
        <a href="#/" class="brand" aria-label="Projects and templates">
          <img src="/favicon.svg" alt="" width="22" height="22" />
          <h1>Platform Playground</h1>
        </a>
        {title && <span class="project-title">{title}</span>}
        <button type="button" class="link theme-toggle" onClick={() => setTheme(theme === 'dark' ? 'light' : 'dark')} aria-label="Switch between light and dark">
          {theme === 'dark' ? 'Light' : 'Dark'} theme
        </button>
      </header>
      <main class="main">
        {current.page === 'home' ? (
          <Gallery onCreate={(t) => void create(t)} onOpen={(id) => (location.hash = `#/p/${id}`)} />
        ) : opened.kind === 'loading' ? (
          <p class="muted page-message">Opening the project…</p>
        ) : opened.kind === 'missing' ? (
          <div class="page-message" role="alert">
            <p>There is no such project in this browser.</p>
            <a href="#/">Back to the templates and projects</a>
          </div>
        ) : opened.kind === 'held' ? (
          <div class="page-message" role="alert" data-testid="lease-held">
            <p>
              <strong>{opened.project.title}</strong> is open in another tab
              {opened.holder ? ` (since ${new Date(opened.holder.since).toLocaleTimeString()})` : ''}. A project is edited in one tab at a time, so neither
              tab overwrites the other.
            </p>
            <p>
              <button type="button" onClick={() => void copy(opened.project)}>
                Open a copy here
              </button>{' '}
              <a href="#/">Back to the templates and projects</a>
            </p>
          </div>
        ) : (
          <Playground key={opened.project.id} project={opened.project} state={opened.state} compiler={compiler} theme={theme} />
        )}
      </main>
    </div>
  );
}
