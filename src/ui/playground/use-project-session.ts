/** One open project's session and its runtime sandbox, made once per project and torn down with the view. */
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { CompilerClient } from '../compiler-client';
import type { Project } from '../projects/store';
import { RuntimeHost } from '../runtime/runtime-host';
import { PreviewFrame } from '../preview/preview-frame';
import type { PersonaName } from '../../core/runtime';
import { browserProjectStore } from '../session/browser-project-store';
import type { ProjectStore } from '../session/project-store';
import { ProjectSession } from './project-session';
import { FirstPreview } from './first-preview';
import { whenIdle } from '../idle';
import type { CommittedState } from '../runtime/durable-log';

export interface UseSessionOptions {
  /** Where the project is kept: the browser's IndexedDB unless another store is given. */
  store?: ProjectStore;
  /** A platform.state-export.v0 document (JSON text) to import once the runtime first starts. */
  pendingImport?: string;
}

interface Made {
  session: ProjectSession;
  runtime: RuntimeHost;
  /** Opened by the view when the first preview is up: the spare sandbox and the compiler's start wait for it. */
  firstPreview: FirstPreview;
  /** The first preview's frame, loaded as the session was made, until the pane takes it (takePreviewFrame). */
  parkedFrame?: PreviewFrame | undefined;
}

/** Where preview frames loaded ahead wait, hidden, until a pane takes them. */
let parking: HTMLElement | undefined;

/**
 * A hidden preview frame for this runtime whose document loads now, while the project is stored and
 * opened (a session started at a click) or while the runtime starts; the pane moves it in with its
 * document (`moveBefore`) and starts the client there at once. None where a frame cannot move without
 * reloading.
 */
function parkedPreviewFrame(persona: PersonaName, runtime: RuntimeHost): PreviewFrame | undefined {
  if (!PreviewFrame.movable) return undefined;
  if (!parking?.isConnected) {
    parking = document.createElement('div');
    parking.hidden = true;
    document.body.appendChild(parking);
  }
  return new PreviewFrame(parking, persona, runtime, {}, { spare: true });
}

function makeSession(project: Project, compiler: CompilerClient, state: CommittedState | undefined, options: UseSessionOptions): Made {
  const firstPreview = new FirstPreview();
  // Each write is exported before its answer and answered once saved (session-data.ts): nothing acknowledged is lost.
  // The sandbox kept for a restart is loaded once the first preview is up, not beside it (it shares the preview's process).
  const runtime = new RuntimeHost({ commitDelayMs: 0, sparesAfter: firstPreview.shown });
  // The sandbox loads while the compiler starts: the first preview does not wait for it.
  runtime.prepare();
  const session = new ProjectSession(project, compiler, runtime, state, { store: options.store ?? browserProjectStore(project.id), ...(options.pendingImport !== undefined ? { pendingImport: options.pendingImport } : {}) });
  // A first build that failed shows no preview: nothing waits for one.
  const off = session.subscribe(() => session.state.compile === 'failed' && firstPreview.open());
  void firstPreview.shown.then(off);
  // The compiler worker (about 1.5 s of a core) starts after the first preview, unless a build needs it before.
  void firstPreview.shown.then(() => whenIdle(() => compiler.start()));
  // The first preview's frame loads its document now, beside the runtime's start.
  return { session, runtime, firstPreview, parkedFrame: parkedPreviewFrame(project.persona, runtime) };
}

function end({ session, runtime, firstPreview, parkedFrame }: Made): void {
  parkedFrame?.destroy();
  firstPreview.dispose();
  session.dispose();
  runtime.stop();
}

/** A new project's session started as the project was made, until its view opens it. */
let early: { id: string; made: Made } | undefined;

/**
 * Starts a new project's session (its first build and runtime) as it is made, while the project is
 * stored and its workspace drawn: the view that opens the project takes it. Only for a project just
 * made in this page, with no data and no pending import, whose files this page holds; nothing in it
 * can be lost before the view opens (no one has edited it yet).
 */
export function startNewProjectSession(project: Project, compiler: CompilerClient): void {
  dropNewProjectSession();
  early = { id: project.id, made: makeSession(project, compiler, undefined, {}) };
}

/** Ends a session started for a new project that will not be opened here (storing it failed). */
export function dropNewProjectSession(): void {
  if (early) end(early.made);
  early = undefined;
}

/**
 * The session's frame loaded ahead, moved into `container` for the first preview as `persona` (once;
 * undefined: the pane makes its own).
 */
export function takePreviewFrame(made: Made, persona: PersonaName, container: HTMLElement): PreviewFrame | undefined {
  const frame = made.parkedFrame;
  made.parkedFrame = undefined;
  if (frame && frame.persona === persona && frame.moveTo(container)) return frame;
  frame?.destroy();
  return undefined;
}

/** The session started for this new project, if any, when the view opens it as it was made. */
function takeNewProjectSession(id: string, state: CommittedState | undefined, options: UseSessionOptions): Made | undefined {
  if (early?.id !== id) return undefined;
  const made = early.made;
  early = undefined;
  if (state === undefined && options.store === undefined && options.pendingImport === undefined) return made;
  end(made);
  return undefined;
}

export function useProjectSession(project: Project, compiler: CompilerClient, state: CommittedState | undefined, options: UseSessionOptions): Made {
  const made = useMemo(() => takeNewProjectSession(project.id, state, options) ?? makeSession(project, compiler, state, options), [project.id]);
  const { session, runtime } = made;
  const [, rerender] = useState(0);
  useEffect(() => session.subscribe(() => rerender((n) => n + 1)), [session]);
  useEffect(() => {
    const off = runtime.onRestart((reason) => session.log('runtime.restarted', { reason }));
    return () => {
      off();
      end(made);
    };
  }, [session, runtime]);
  return made;
}
