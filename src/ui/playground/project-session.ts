/**
 * One open project: its files and tabs (src/ui/session/project-files.ts, saved by `Autosave`), the
 * compile loop and runtime restarts (compile-loop.ts), the app's data (session-data.ts), each file's
 * cursor and scroll, the undo of the last deletion, the platform.dev.v0 event log and notices. What
 * outlives the page goes through a `ProjectStore` (IndexedDB in the playground, memory in embed mode
 * and in tests).
 */
import { devEvent, type DevEvent, type DevEventPayload } from '../../core/local';
import type { PersonaName } from '../../core/runtime';
import type { Project } from '../projects/store';
import type { CommittedState } from '../runtime/durable-log';
import type { InspectQuery } from '../../../worker/protocol/runtime';
import { CompileLoop } from '../session/compile-loop';
import { movedPath } from '../../core/fs';
import { Autosave, deleted, renamed, undone, withFile, type Deletion } from '../session/project-files';
import type { ProjectStore } from '../session/project-store';
import { SessionData } from '../session/session-data';
import type { SessionEvent, InspectAnswer, SessionCompiler, SessionContext, SessionRuntime, SessionState } from '../session/session-state';
import { StateStore } from '../state-store';
import { withFileView, type FileView, type FileViews } from '../workspace/file-views';

export type { SessionEvent, SessionNotice, SessionRuntime, SessionState } from '../session/session-state';
export type { NumberedGeneration } from '../session/generation';
export { isTestFile, onlyTestErrors } from '../session/compile-loop';
export { noticeCodes } from '../session/session-data';

export interface SessionOptions {
  /** Where the project, its data and its builds are kept. */
  store: ProjectStore;
  /** A platform.state-export.v0 document (JSON text) to import once the runtime first starts. */
  pendingImport?: string;
}

export class ProjectSession extends StateStore<SessionState> {
  readonly #runtime: SessionRuntime;
  readonly #store: ProjectStore;
  readonly #autosave: Autosave;
  readonly #loop: CompileLoop;
  readonly #data: SessionData;
  #views: FileViews;
  /** What the last deletion took away, until undone or dismissed. */
  #deletion: Deletion | undefined;

  constructor(project: Project, compiler: SessionCompiler, runtime: SessionRuntime, initialState: CommittedState | undefined, options: SessionOptions) {
    super({ project, compile: 'loading', diagnostics: [], checked: false, stale: false, events: [] });
    this.#runtime = runtime;
    this.#store = options.store;
    this.#autosave = new Autosave(this.#store);
    this.#views = this.#store.loadViews();
    const session = this;
    const ctx: SessionContext = {
      get state() {
        return session.state;
      },
      update: (patch) => this.update(patch),
      log: (kind, fields) => this.log(kind, fields),
      record: (event) => this.record(event),
    };
    this.#data = new SessionData(ctx, {
      runtime,
      store: this.#store,
      ...(initialState ? { initialState } : {}),
      ...(options.pendingImport !== undefined ? { pendingImport: options.pendingImport } : {}),
      reloadPreviews: () => this.reloadPreviews(),
      rebuild: () => this.#loop.schedule(),
    });
    this.#loop = new CompileLoop(ctx, { compiler, runtime, store: this.#store, committed: () => this.#data.committed, started: () => this.#data.started() });
    this.#loop.begin();
  }

  /** Whether edits and data outlive the page (false in embed mode for a scratch project). */
  get persistent(): boolean {
    return this.#store.persistent;
  }

  /** Adds an event to the log (kept to the last 500). */
  log<K extends DevEvent['kind']>(kind: K, fields: DevEventPayload<K>): void {
    this.record(devEvent(kind, fields));
  }

  /** Adds an event made whole to the log. */
  record(event: DevEvent): void {
    const entry: SessionEvent = { ...event, at: Date.now() };
    this.update({ events: [...this.state.events.slice(-499), entry] });
  }

  #change(patch: Partial<Project>, recompile: boolean, focus?: string): void {
    // Each change is newer than the one before, even within one millisecond: a save finishing for the
    // one before must never count as holding this one (see storedAfterSave).
    const updatedAt = Math.max(Date.now(), this.state.project.updatedAt + 1);
    const before = this.state.project.files;
    this.update({ project: { ...this.state.project, ...patch, updatedAt } });
    // Journaled at once (synchronously), saved durably after a quiet moment: nothing is lost to a reload.
    this.#autosave.changed(this.state.project);
    if (recompile) this.#loop.edited(focus !== undefined ? [focus] : changedPaths(before, this.state.project.files), focus);
  }

  /** The project was renamed (renameProject stored it): what the session shows and shares follows. */
  retitle(title: string): void {
    if (this.state.project.title !== title) this.update({ project: { ...this.state.project, title } });
  }

  edit(path: string, text: string): void {
    if (this.state.project.files[path] === text) return;
    this.#change({ files: { ...this.state.project.files, [path]: text } }, true, path);
  }

  /** Writes several files at once (a lesson step's start or solution): one change, one build; `open` becomes the active tab. */
  writeFiles(overlay: Readonly<Record<string, string>>, open?: string): void {
    const { project } = this.state;
    if (Object.entries(overlay).every(([path, text]) => project.files[path] === text)) return;
    const tabs = open === undefined ? {} : { openTabs: [...new Set([...project.openTabs, open])], activeFile: open };
    this.#change({ files: { ...project.files, ...overlay }, ...tabs }, true);
  }

  createFile(path: string, text = ''): void {
    this.#change(withFile(this.state.project, path, text), true);
  }

  renamePath(from: string, to: string): void {
    this.#setViews(Object.fromEntries(Object.entries(this.#views).map(([path, view]) => [movedPath(path, from, to), view])));
    this.#change(renamed(this.state.project, from, to), true);
  }

  /** Deletes a file, or a folder and everything under it; `undoDelete` brings it back. */
  deletePath(path: string): void {
    const result = deleted(this.state.project, path, this.#views);
    if (!result) return;
    const { deletion, patch } = result;
    this.#deletion = deletion;
    this.#setViews(Object.fromEntries(Object.entries(this.#views).filter(([p]) => deletion.views[p] === undefined)));
    this.#change(patch, true);
    this.update({ deleted: { name: deletion.name, files: Object.keys(deletion.files).length } });
  }

  /** Brings back what the last deletion took: the files with their text, their tabs, cursors and scroll. */
  undoDelete(): void {
    const deletion = this.#deletion;
    if (!deletion) return;
    this.#deletion = undefined;
    this.#setViews({ ...deletion.views, ...this.#views });
    this.#change(undone(this.state.project, deletion), true);
    this.update({ deleted: undefined });
    this.log('files.restored', { name: deletion.name, files: Object.keys(deletion.files).length });
  }

  /** The last deletion can no longer be undone (its notice went away). */
  dismissDeleted(): void {
    this.#deletion = undefined;
    if (this.state.deleted) this.update({ deleted: undefined });
  }

  openFile(path: string): void {
    this.#change({ openTabs: [...new Set([...this.state.project.openTabs, path])], activeFile: path }, false);
  }

  closeFile(path: string): void {
    const openTabs = this.state.project.openTabs.filter((p) => p !== path);
    const activeFile = this.state.project.activeFile === path ? openTabs.at(-1) : this.state.project.activeFile;
    this.#change({ openTabs, activeFile }, false);
  }

  setPersona(persona: PersonaName): void {
    this.#change({ persona }, false);
  }

  /** Each file's cursor and scroll as last shown (kept in the store, so a reload shows them again). */
  get views(): FileViews {
    return this.#views;
  }

  /** Where the cursor and scroll of a file now are (not part of the state: views do not re-render for it). */
  setView(path: string, view: FileView): void {
    if (this.state.project.files[path] === undefined) {
      // The editor reports the file it showed as it shows another: a file just deleted gets it back with Undo.
      if (this.#deletion?.files[path] !== undefined) this.#deletion.views[path] = view;
      return;
    }
    this.#setViews(withFileView(this.#views, path, view));
  }

  #setViews(views: FileViews): void {
    this.#views = views;
    this.#store.saveViews(views);
  }

  /** Saves now (Mod-s); autosave does the same after a short delay. */
  save(): Promise<void> {
    return this.#autosave.save(this.state.project);
  }

  /**
   * Packages installed in a WebContainer (`node_modules/…` → bytes, read back by the terminal): the
   * compiler resolves the app's dependencies from them. Without a WebContainer there are none, and
   * DG1208 says why.
   */
  setDependencies(modules: Record<string, Uint8Array>): void {
    this.#loop.setDependencies(modules);
  }

  /** Runs an inspection in the app's runtime (the data browser). */
  inspect<K extends InspectQuery['kind']>(query: Extract<InspectQuery, { kind: K }>): Promise<InspectAnswer<K>> {
    return this.#runtime.inspect(query);
  }

  /** Replaces the app's records with a platform.state-export.v0 document's (all or nothing). */
  importState(text: string): Promise<InspectAnswer<'import-state'>> {
    return this.#data.importState(text);
  }

  /** The same generation again under a new number: the previews reload and show the data as it is now. */
  reloadPreviews(): void {
    this.#loop.reloadPreviews();
  }

  dismissNotice(): void {
    this.update({ notice: undefined });
  }

  /** Starts over with empty data, keeping a recovery copy of what it drops (session-data.ts). */
  resetData(): Promise<void> {
    return this.#data.resetData();
  }

  /** Brings back the data the last reset dropped, unless the app's schema no longer takes it. */
  restoreRecovery(): Promise<{ ok: true } | { ok: false; message: string }> {
    return this.#data.restoreRecovery();
  }

  dispose(): void {
    this.#loop.dispose();
    this.#data.dispose();
    this.#autosave.dispose(this.state.project);
  }
}

/** The paths whose text differs between two versions of a project's files (added and removed ones too), sorted. */
function changedPaths(before: Record<string, string>, after: Record<string, string>): string[] {
  if (before === after) return [];
  const paths = new Set<string>();
  for (const [path, text] of Object.entries(after)) if (before[path] !== text) paths.add(path);
  for (const path of Object.keys(before)) if (!(path in after)) paths.add(path);
  return [...paths].sort();
}
