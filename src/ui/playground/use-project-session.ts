/** One open project's session and its runtime sandbox, made once per project and torn down with the view. */
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { CompilerClient } from '../compiler-client';
import type { Project } from '../projects/store';
import { RuntimeHost } from '../runtime/runtime-host';
import { browserProjectStore } from '../session/browser-project-store';
import type { ProjectStore } from '../session/project-store';
import { ProjectSession } from './project-session';

export interface UseSessionOptions {
  /** Where the project is kept: the browser's IndexedDB unless another store is given. */
  store?: ProjectStore;
  /** A platform.state-export.v0 document (JSON text) to import once the runtime first starts. */
  pendingImport?: string;
}

interface Made {
  session: ProjectSession;
  runtime: RuntimeHost;
}

function makeSession(project: Project, compiler: CompilerClient, state: Uint8Array | undefined, options: UseSessionOptions): Made {
  // Each write is exported before its answer and answered once saved (session-data.ts): nothing acknowledged is lost.
  const runtime = new RuntimeHost({ commitDelayMs: 0 });
  // The sandbox loads while the compiler starts: the first preview does not wait for it.
  runtime.prepare();
  const session = new ProjectSession(project, compiler, runtime, state, { store: options.store ?? browserProjectStore(project.id), ...(options.pendingImport !== undefined ? { pendingImport: options.pendingImport } : {}) });
  return { session, runtime };
}

function end({ session, runtime }: Made): void {
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

/** The session started for this new project, if any, when the view opens it as it was made. */
function takeNewProjectSession(id: string, state: Uint8Array | undefined, options: UseSessionOptions): Made | undefined {
  if (early?.id !== id) return undefined;
  const made = early.made;
  early = undefined;
  if (state === undefined && options.store === undefined && options.pendingImport === undefined) return made;
  end(made);
  return undefined;
}

export function useProjectSession(project: Project, compiler: CompilerClient, state: Uint8Array | undefined, options: UseSessionOptions): Made {
  const { session, runtime } = useMemo(() => takeNewProjectSession(project.id, state, options) ?? makeSession(project, compiler, state, options), [project.id]);
  const [, rerender] = useState(0);
  useEffect(() => session.subscribe(() => rerender((n) => n + 1)), [session]);
  useEffect(() => {
    const off = runtime.onRestart((reason) => session.log('runtime.restarted', { reason }));
    return () => {
      off();
      end({ session, runtime });
    };
  }, [session, runtime]);
  return { session, runtime };
}
