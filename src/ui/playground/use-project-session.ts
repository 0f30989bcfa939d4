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

export function useProjectSession(project: Project, compiler: CompilerClient, state: Uint8Array | undefined, options: UseSessionOptions): { session: ProjectSession; runtime: RuntimeHost } {
  const runtime = useMemo(() => {
    // Each write is exported before its answer and answered once saved (session-data.ts): nothing acknowledged is lost.
    const host = new RuntimeHost({ commitDelayMs: 0 });
    // The sandbox loads while the compiler starts: the first preview does not wait for it.
    host.prepare();
    return host;
  }, [project.id]);
  const session = useMemo(
    () => new ProjectSession(project, compiler, runtime, state, { store: options.store ?? browserProjectStore(project.id), ...(options.pendingImport !== undefined ? { pendingImport: options.pendingImport } : {}) }),
    [project.id],
  );
  const [, rerender] = useState(0);
  useEffect(() => session.subscribe(() => rerender((n) => n + 1)), [session]);
  useEffect(() => {
    const off = runtime.onRestart((reason) => session.log('runtime.restarted', { reason }));
    return () => {
      off();
      session.dispose();
      runtime.stop();
    };
  }, [session, runtime]);
  return { session, runtime };
}
