/**
 * Opening a project in this tab: its record, its lease (one tab at a time), and what changes hands
 * with it. A tab that finds the project held elsewhere waits for it, and opens it by itself when the
 * holding tab closes or hands it over; a tab the project is taken from saves first, then says so.
 */
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { openLease, type Lease, type LeaseHolder } from './lease';
import { loadPendingImport, loadProject, loadState, type Project } from './store';
import type { CommittedState } from '../runtime/durable-log';

export type OpenedProject =
  | { kind: 'loading' }
  | { kind: 'open'; project: Project; state?: CommittedState; pendingImport?: string }
  | { kind: 'missing' }
  /** Open in another tab: this one waits; `moved` when it was open here and another tab took it over. */
  | { kind: 'held'; project: Project; holder?: LeaseHolder; moved?: boolean };

export interface OpenProject {
  opened: OpenedProject;
  /** Asks the tab holding the project to save and hand it here. */
  takeOver(): void;
  /** The project's new name (after renameProject), for the page's header and title. */
  renamed(title: string): void;
}

export function useOpenProject(id: string | undefined): OpenProject {
  const [opened, setOpened] = useState<OpenedProject>({ kind: 'loading' });
  const lease = useRef<Lease | undefined>(undefined);
  /** Called once the page has drawn the latest change (so a workspace that was closed has been torn down). */
  const drawn = useRef<(() => void)[]>([]);
  useLayoutEffect(() => {
    for (const resolve of drawn.current.splice(0)) resolve();
  }, [opened]);

  useEffect(() => {
    if (id === undefined) return undefined;
    let live = true;
    setOpened({ kind: 'loading' });
    void (async () => {
      const found = await loadProject(id);
      if (!live) return;
      if (!found) return setOpened({ kind: 'missing' });
      let project = found;
      /** Counts the lease's changes of hands: a project read for an earlier turn is not opened. */
      let turn = 0;
      lease.current = openLease(id, document.title, {
        onWaiting: (holder) => live && setOpened({ kind: 'held', project, ...(holder ? { holder } : {}) }),
        onAcquired: () =>
          void (async () => {
            const mine = ++turn;
            // Read again: another tab may have changed it while this one waited. The three reads at once.
            const [again, state, pendingImport] = await Promise.all([loadProject(id), loadState(id), loadPendingImport(id)]);
            project = again ?? project;
            if (!live || turn !== mine) return;
            performance.mark('platform:project-opened');
            setOpened({ kind: 'open', project, ...(state ? { state } : {}), ...(pendingImport !== undefined ? { pendingImport } : {}) });
          })(),
        onTakenOver: async (_by, forced) => {
          turn++;
          const shown = new Promise<void>((resolve) => drawn.current.push(resolve));
          setOpened((now) => ({ kind: 'held', project: now.kind === 'open' || now.kind === 'held' ? now.project : project, moved: true }));
          if (forced) return;
          // The workspace is gone once the page is drawn (its session saved what it held as it closed);
          // reading the project waits for those writes to land, and folds in the journal of its last edits.
          await shown;
          await loadProject(id);
        },
      });
    })();
    return () => {
      live = false;
      lease.current?.close();
      lease.current = undefined;
    };
  }, [id]);

  return {
    opened,
    takeOver: () => lease.current?.takeOver(),
    renamed: (title) => setOpened((now) => (now.kind === 'open' || now.kind === 'held' ? { ...now, project: { ...now.project, title } } : now)),
  };
}
