/**
 * One open project: its files, autosave, the compile loop (an adaptive quiet window after edits:
 * none after a pause, a little longer than the gaps while typing; a failed rebuild
 * keeps the last good generation serving, DG1602), the sandboxed runtime restarted on each new
 * generation from committed state, previews per persona, and the platform.dev.v0 event log.
 */
import { AdaptiveQuietWindow } from '../../core/build/quiet-window';
import { diagnostic, sortDiagnostics, type Diagnostic } from '../../core/diagnostics';
import { MANIFEST_FILE, type Manifest } from '../../core/manifest';
import type { PersonaName } from '../../core/runtime/personas';
import { SCHEMA_CHANGE_REFUSED } from '../../core/runtime/tables/schema-change';
import type { CompileResult, CompilerClient } from '../compiler-client';
import { StateStore } from '../state-store';
import { isKnownGood, rememberGood } from '../projects/known-good';
import { clearPendingImport, clearRecovery, clearState, journalProject, loadLastGood, loadRecovery, saveLastGood, saveProject, saveRecovery, saveState, type Project, type RecoveryCopy } from '../projects/store';
import type { InspectAnswer, InspectQuery } from '../runtime/runtime-host';

const SAVE_DELAY_MS = 400;
const decoder = new TextDecoder();

/** A build that compiled: what the runtime and the previews run. */
export interface Generation {
  number: number;
  manifest: Manifest;
  serverCode: string;
  clientCode: string;
  clientCss?: string;
  /** The bundles' source maps, to show where in the app's files a console line or an error comes from. */
  clientMap?: string;
  serverMap?: string;
  /** The app's public/ files (path under public/ → text), served at / in the previews. */
  publicFiles: Record<string, string>;
}

export type DevEvent = { protocol: 'platform.dev.v0'; kind: string; at: number } & Record<string, unknown>;

export interface SessionState {
  project: Project;
  compile: 'loading' | 'compiling' | 'ready' | 'failed';
  diagnostics: Diagnostic[];
  /** The generation the previews show (the last good one when the latest failed). */
  generation?: Generation;
  /** True when the shown generation is older than the latest edit because that failed to build. */
  stale: boolean;
  /**
   * When the shown generation is the last good build of an earlier session (this session has built
   * nothing good yet): when that build was saved. Cleared by the next good build.
   */
  restoredFrom?: number;
  events: DevEvent[];
  timings?: CompileResult['timings'];
  /** When "Reset data" last kept a copy of the data it dropped (restorable). */
  recovery?: { savedAt: number };
  /** A message about the project's data (an import from a share link, a restore), until dismissed. */
  notice?: SessionNotice;
}

export interface SessionNotice {
  tone: 'info' | 'error';
  message: string;
  /** A diagnostic code (DG1824) and its detail.code, when the notice reports one. */
  code?: string;
  detailCode?: string;
}

export interface SessionOptions {
  /** False for a scratch project (embed mode): nothing is written to IndexedDB. True by default. */
  persist?: boolean;
  /** A platform.state-export.v0 document (JSON text) to import once the runtime first starts. */
  pendingImport?: string;
}

/** The runtime the session drives (RuntimeHost implements it). */
export interface SessionRuntime {
  start(app: { manifest: Manifest; serverCode: string; state?: Uint8Array; env?: Record<string, string> }): Promise<void>;
  onCommit(listener: (state: Uint8Array) => void | Promise<void>): () => void;
  /** Hands over commits not exported yet. */
  flush(): Promise<void>;
  readonly committedState: Uint8Array | undefined;
  /** 'running' while the last start succeeded and the sandbox is up. */
  readonly phase: string;
  inspect<K extends InspectQuery['kind']>(query: Extract<InspectQuery, { kind: K }>): Promise<InspectAnswer<K>>;
}

export class ProjectSession extends StateStore<SessionState> {
  readonly #compiler: CompilerClient;
  readonly #runtime: SessionRuntime;
  #compileTimer: ReturnType<typeof setTimeout> | undefined;
  readonly #quiet = new AdaptiveQuietWindow();
  #saveTimer: ReturnType<typeof setTimeout> | undefined;
  #generations = 0;
  #focus: string | undefined;
  #dependencies: Record<string, Uint8Array> | undefined;
  /** The app's committed database as last handed over (or loaded from IndexedDB). */
  #committed: Uint8Array | undefined;
  readonly #unsubscribe: () => void;
  readonly #persist: boolean;
  #pendingImport: string | undefined;
  /** The recovery copy of a scratch project (not persisted), or the last one saved. */
  #recovery: RecoveryCopy | undefined;

  constructor(project: Project, compiler: CompilerClient, runtime: SessionRuntime, initialState?: Uint8Array, options: SessionOptions = {}) {
    super({ project, compile: 'loading', diagnostics: [], stale: false, events: [] });
    this.#compiler = compiler;
    this.#runtime = runtime;
    this.#committed = initialState;
    this.#persist = options.persist ?? true;
    this.#pendingImport = options.pendingImport;
    // The runtime answers a call that wrote only once this resolves: what the preview shows as done is
    // in IndexedDB before it shows.
    this.#unsubscribe = runtime.onCommit((state) => {
      this.#committed = state;
      if (this.#persist) return saveState(project.id, state);
      return undefined;
    });
    if (this.#persist)
      void loadRecovery(project.id).then((copy) => {
        if (!copy || this.#recovery) return;
        this.#recovery = copy;
        this.update({ recovery: { savedAt: copy.savedAt } });
      });
    this.#scheduleCompile(0);
  }

  /** Whether edits and data are kept in IndexedDB (false in embed mode). */
  get persistent(): boolean {
    return this.#persist;
  }

  /** Adds an event to the log (kept to the last 500). */
  log(kind: string, fields: Record<string, unknown> = {}): void {
    const event: DevEvent = { protocol: 'platform.dev.v0', kind, at: Date.now(), ...fields };
    this.update({ events: [...this.state.events.slice(-499), event] });
  }

  #updateProject(patch: Partial<Project>, recompile: boolean, focus?: string): void {
    this.update({ project: { ...this.state.project, ...patch, updatedAt: Date.now() } });
    clearTimeout(this.#saveTimer);
    // Journaled at once (synchronously), saved to IndexedDB after a quiet moment: nothing is lost to a reload.
    if (this.#persist) journalProject(this.state.project);
    if (this.#persist) this.#saveTimer = setTimeout(() => void saveProject(this.state.project), SAVE_DELAY_MS);
    if (recompile) {
      this.#focus = focus;
      this.#scheduleCompile(this.#quiet.edited(performance.now()));
    }
  }

  edit(path: string, text: string): void {
    if (this.state.project.files[path] === text) return;
    this.#updateProject({ files: { ...this.state.project.files, [path]: text } }, true, path);
  }

  createFile(path: string, text = ''): void {
    this.#updateProject({ files: { ...this.state.project.files, [path]: text }, openTabs: [...new Set([...this.state.project.openTabs, path])], activeFile: path }, true);
  }

  renamePath(from: string, to: string): void {
    const files: Record<string, string> = {};
    const move = (path: string) => (path === from ? to : path.startsWith(`${from}/`) ? `${to}${path.slice(from.length)}` : path);
    for (const [path, text] of Object.entries(this.state.project.files)) files[move(path)] = text;
    const { openTabs, activeFile } = this.state.project;
    this.#updateProject({ files, openTabs: openTabs.map(move), ...(activeFile ? { activeFile: move(activeFile) } : {}) }, true);
  }

  deletePath(path: string): void {
    const gone = (p: string) => p === path || p.startsWith(`${path}/`);
    const files = Object.fromEntries(Object.entries(this.state.project.files).filter(([p]) => !gone(p)));
    const openTabs = this.state.project.openTabs.filter((p) => !gone(p));
    const activeFile = this.state.project.activeFile && gone(this.state.project.activeFile) ? openTabs[0] : this.state.project.activeFile;
    this.#updateProject({ files, openTabs, ...(activeFile ? { activeFile } : { activeFile: undefined }) }, true);
  }

  openFile(path: string): void {
    this.#updateProject({ openTabs: [...new Set([...this.state.project.openTabs, path])], activeFile: path }, false);
  }

  closeFile(path: string): void {
    const openTabs = this.state.project.openTabs.filter((p) => p !== path);
    const activeFile = this.state.project.activeFile === path ? openTabs.at(-1) : this.state.project.activeFile;
    this.#updateProject({ openTabs, activeFile }, false);
  }

  setPersona(persona: PersonaName): void {
    this.#updateProject({ persona }, false);
  }

  /** Saves now (Mod-s); autosave does the same after a short delay. */
  async save(): Promise<void> {
    clearTimeout(this.#saveTimer);
    if (this.#persist) await saveProject(this.state.project);
  }

  /**
   * Packages installed in a WebContainer (`node_modules/…` → bytes, read back by the terminal): the
   * compiler resolves the app's dependencies from them. Without a WebContainer there are none, and
   * DG1208 says why.
   */
  setDependencies(modules: Record<string, Uint8Array>): void {
    this.#dependencies = Object.keys(modules).length ? modules : undefined;
    this.#scheduleCompile(0);
  }

  #scheduleCompile(delay: number): void {
    clearTimeout(this.#compileTimer);
    this.#compileTimer = setTimeout(() => void this.#compile(), delay);
  }

  async #compile(): Promise<void> {
    const files = this.state.project.files;
    this.update({ compile: this.state.generation || this.state.compile !== 'loading' ? 'compiling' : 'loading' });
    this.log('compile.start', { files: Object.keys(files).length });
    performance.mark('platform:compile-start');
    let result: CompileResult | undefined;
    // The session's first build of files known to check cleanly shows the preview first and checks after.
    const trusted = this.#generations === 0 && (await isKnownGood(this.state.project.id, files));
    try {
      result = await this.#compiler.compile(this.#dependencies ? { ...files, ...this.#dependencies } : files, 'preview', this.#focus, { skipTypecheck: trusted });
    } catch (error) {
      this.update({ compile: 'failed', diagnostics: [diagnostic('DG1602', `The compiler failed: ${error instanceof Error ? error.message : String(error)}`)] });
      return;
    }
    if (!result || files !== this.state.project.files) return; // superseded by a newer edit
    const diagnostics = sortDiagnostics(result.diagnostics);
    // Errors only in test files block the tests, not the app: the preview is built without them.
    if (!isBuilt(result) && onlyTestErrors(diagnostics)) {
      const app = Object.fromEntries(Object.entries(files).filter(([path]) => !isTestFile(path)));
      const retry = await this.#compiler.compile(this.#dependencies ? { ...app, ...this.#dependencies } : app, 'preview', this.#focus, { skipTypecheck: trusted }).catch(() => undefined);
      if (files !== this.state.project.files) return;
      if (retry && isBuilt(retry)) result = { ...retry, diagnostics: result.diagnostics };
    }
    performance.mark('platform:compile-done');
    const built = isBuilt(result);
    if (!built) {
      if (this.state.generation === undefined && (await this.#restoreLastGood(files))) {
        this.update({ compile: 'failed', diagnostics, stale: true, timings: result.timings });
        return;
      }
      const serving = this.state.generation !== undefined;
      if (serving) {
        const d = diagnostic('DG1602', 'The rebuild failed; the previous generation is still serving.', { hint: 'Fix the errors below; the next good rebuild takes over by itself.' });
        this.log('compile.diagnostic', { ...d });
        diagnostics.unshift(d);
      }
      this.update({ compile: 'failed', diagnostics, stale: serving, timings: result.timings });
      return;
    }
    const manifest = JSON.parse(files[MANIFEST_FILE] ?? '{}') as Manifest;
    const generation: Generation = {
      number: ++this.#generations,
      manifest,
      serverCode: decoder.decode(result.files!['server/index.js']),
      clientCode: decoder.decode(result.files!['client/app.js']),
      ...(result.files!['client/app.css'] ? { clientCss: decoder.decode(result.files!['client/app.css']) } : {}),
      ...(result.files!['client/app.js.map'] ? { clientMap: decoder.decode(result.files!['client/app.js.map']) } : {}),
      ...(result.files!['server/index.js.map'] ? { serverMap: decoder.decode(result.files!['server/index.js.map']) } : {}),
      publicFiles: Object.fromEntries(Object.entries(files).filter(([path]) => path.startsWith('public/')).map(([path, text]) => [path.slice('public/'.length), text])),
    };
    // A client-only edit leaves the server and the manifest as they were: the running runtime (and its
    // uncommitted-to-disk state) serves the new client as it is; only the previews reload.
    const previous = this.state.generation;
    const sameServer = previous !== undefined && previous.serverCode === generation.serverCode && JSON.stringify(previous.manifest) === JSON.stringify(manifest) && this.#runtime.phase === 'running';
    if (sameServer) {
      this.log('compile.ready', { generation: generation.number, ms: Math.round(result.timings.total), runtime: 'kept' });
      this.update({ compile: 'ready', diagnostics, generation, stale: false, restoredFrom: undefined, timings: result.timings });
      this.#rememberGood(files, generation);
      return;
    }
    try {
      // Commits are exported to the trusted side in batches: take the latest before restarting.
      await this.#runtime.flush();
      await this.#runtime.start({ manifest, serverCode: generation.serverCode, state: this.#runtime.committedState ?? this.#committed });
    } catch (error) {
      // An incompatible schema change names its table, field and reason in the message; its code says what it is.
      const schema = (error as { code?: unknown } | undefined)?.code === SCHEMA_CHANGE_REFUSED;
      const d = diagnostic('DG1603', `The new build could not take over: ${error instanceof Error ? error.message : String(error)}`, {
        hint: schema
          ? 'Change the declaration back, or Reset data to adopt it (a recovery copy of the data is kept).'
          : 'Fix the cause above; the next good rebuild takes over by itself.',
        ...(schema ? { detail: { code: SCHEMA_CHANGE_REFUSED } } : {}),
      });
      this.log('compile.diagnostic', { ...d });
      // The last good generation takes over again, on the data it was running with.
      if (previous) {
        await this.#runtime
          .start({ manifest: previous.manifest, serverCode: previous.serverCode, state: this.#runtime.committedState ?? this.#committed })
          .catch((restart: unknown) => this.log('runtime.restarted', { reason: `The last good build could not restart: ${restart instanceof Error ? restart.message : String(restart)}` }));
      }
      this.update({ compile: 'failed', diagnostics: [d, ...diagnostics], stale: previous !== undefined, timings: result.timings });
      return;
    }
    // A share link's data goes in before the previews first load, so they show it.
    if (this.#pendingImport !== undefined) await this.#importPending(this.#pendingImport);
    this.log('compile.ready', { generation: generation.number, ms: Math.round(result.timings.total), ...(trusted ? { typecheck: 'after' } : {}) });
    this.update({ compile: 'ready', diagnostics, generation, stale: false, restoredFrom: undefined, timings: result.timings });
    if (trusted) void this.#checkAfter(files, generation);
    else this.#rememberGood(files, generation);
  }

  /**
   * A session whose first build failed previews the last good build an earlier session kept (marked
   * by `restoredFrom`), on the committed data. False when there is none, or it could not start, or an
   * edit or a good build came first.
   */
  async #restoreLastGood(files: Record<string, string>): Promise<boolean> {
    if (!this.#persist) return false;
    const kept = await loadLastGood(this.state.project.id);
    if (!kept || files !== this.state.project.files || this.state.generation) return false;
    const generation: Generation = { ...kept.generation, number: ++this.#generations };
    try {
      await this.#runtime.start({ manifest: generation.manifest, serverCode: generation.serverCode, state: this.#runtime.committedState ?? this.#committed });
    } catch (error) {
      this.log('runtime.restarted', { reason: `The last good build could not start: ${error instanceof Error ? error.message : String(error)}` });
      return false;
    }
    if (this.state.generation) return false;
    this.log('compile.restored', { generation: generation.number, savedAt: new Date(kept.savedAt).toISOString() });
    this.update({ generation, restoredFrom: kept.savedAt });
    return true;
  }

  /** The type check a trusted first build skipped: its diagnostics, unless an edit came first. */
  async #checkAfter(files: Record<string, string>, generation: Generation): Promise<void> {
    const checked = await this.#compiler.compile(files, 'check').catch(() => undefined);
    if (!checked || files !== this.state.project.files) return;
    const diagnostics = sortDiagnostics(checked.diagnostics);
    this.update({ diagnostics });
    if (!diagnostics.some((d) => d.severity === 'error')) this.#rememberGood(files, generation);
    else if (onlyTestErrors(diagnostics)) this.#rememberGood(undefined, generation);
  }

  /**
   * Files that type-checked cleanly, for the next session's first build, and the build itself, which a
   * later session shows when its first build fails. A scratch project keeps nothing.
   */
  #rememberGood(files: Record<string, string> | undefined, generation: Generation): void {
    if (!this.#persist) return;
    if (files && !this.state.diagnostics.some((d) => d.severity === 'error')) void rememberGood(this.state.project.id, files);
    const { number: _number, ...build } = generation;
    void saveLastGood(this.state.project.id, { generation: build, savedAt: Date.now() });
  }

  async #importPending(text: string): Promise<void> {
    this.#pendingImport = undefined;
    const result = await this.importState(text);
    if (this.#persist) await clearPendingImport(this.state.project.id);
    if (result.kind === 'import-state') {
      const rows = Object.values(result.counts).reduce((a, b) => a + b, 0);
      const objects = result.objects ? ` and ${result.objects} stored object${result.objects === 1 ? '' : 's'}` : '';
      this.update({ notice: { tone: 'info', message: `The link's data was imported: ${rows} record${rows === 1 ? '' : 's'}${objects}.` } });
    } else {
      this.update({ notice: { tone: 'error', message: `The link's data could not be imported: ${result.message}`, ...noticeCodes(result) } });
    }
  }

  /** Runs an inspection in the app's runtime (the data browser). */
  inspect<K extends InspectQuery['kind']>(query: Extract<InspectQuery, { kind: K }>): Promise<InspectAnswer<K>> {
    return this.#runtime.inspect(query);
  }

  /** Replaces the app's records with a platform.state-export.v0 document's (all or nothing). */
  async importState(text: string): Promise<InspectAnswer<'import-state'>> {
    const result = await this.#runtime.inspect({ kind: 'import-state', text });
    if (result.kind === 'import-state') {
      await this.#runtime.flush();
      this.log('state.imported', { counts: result.counts });
      this.reloadPreviews();
    } else {
      this.log('state.import.refused', { code: result.diagnostic?.code ?? 'refused', message: result.message, ...(result.diagnostic?.detail?.code ? { detailCode: result.diagnostic.detail.code } : {}) });
    }
    return result;
  }

  /** The same generation again under a new number: the previews reload and show the data as it is now. */
  reloadPreviews(): void {
    const generation = this.state.generation;
    if (generation) this.update({ generation: { ...generation, number: ++this.#generations } });
  }

  dismissNotice(): void {
    this.update({ notice: undefined });
  }

  /**
   * Starts over with empty data. The committed state it drops is kept first as the recovery copy
   * (replacing the previous one), which `restoreRecovery` brings back. Empty data keeps no copy.
   */
  async resetData(): Promise<void> {
    // Commits the sandbox has not exported yet land first, so none arrives after the reset.
    await this.#runtime.flush();
    const dropped = this.#runtime.committedState ?? this.#committed;
    if (dropped) {
      const copy: RecoveryCopy = { state: dropped.slice(), savedAt: Date.now() };
      if (this.#persist) await saveRecovery(this.state.project.id, copy);
      this.#recovery = copy;
      this.update({ recovery: { savedAt: copy.savedAt } });
    }
    this.update({ notice: undefined });
    this.log('state.reset', { recoveryCopy: dropped ? dropped.length : 0 });
    this.#committed = undefined;
    if (this.#persist) await clearState(this.state.project.id);
    const generation = this.state.generation;
    if (generation) await this.#runtime.start({ manifest: generation.manifest, serverCode: generation.serverCode });
    this.#scheduleCompile(0);
  }

  /**
   * Brings back the data the last reset dropped: the runtime restarts on the recovery copy, which
   * becomes the committed state (and is then discarded). Refused when the copy's schema no longer
   * matches the app (the runtime keeps its current data).
   */
  async restoreRecovery(): Promise<{ ok: true } | { ok: false; message: string }> {
    const copy = this.#recovery;
    const generation = this.state.generation;
    if (!copy) return { ok: false, message: 'There is no recovery copy.' };
    if (!generation) return { ok: false, message: 'The app is not running: fix the build first.' };
    await this.#runtime.flush();
    const current = this.#runtime.committedState ?? this.#committed;
    try {
      await this.#runtime.start({ manifest: generation.manifest, serverCode: generation.serverCode, state: copy.state });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      await this.#runtime.start({ manifest: generation.manifest, serverCode: generation.serverCode, ...(current ? { state: current } : {}) }).catch(() => undefined);
      this.update({ notice: { tone: 'error', message: `The recovery copy could not be restored: ${message}` } });
      return { ok: false, message };
    }
    this.#committed = copy.state;
    this.#recovery = undefined;
    if (this.#persist) {
      await saveState(this.state.project.id, copy.state);
      await clearRecovery(this.state.project.id);
    }
    this.log('state.restored', { savedAt: new Date(copy.savedAt).toISOString() });
    this.update({ recovery: undefined, notice: { tone: 'info', message: `The data from before the reset (${new Date(copy.savedAt).toLocaleTimeString()}) was restored.` } });
    this.reloadPreviews();
    return { ok: true };
  }

  dispose(): void {
    clearTimeout(this.#compileTimer);
    clearTimeout(this.#saveTimer);
    this.#unsubscribe();
    if (this.#persist) void saveProject(this.state.project);
  }
}

const isBuilt = (result: CompileResult): boolean => !!(result.files?.['server/index.js'] && result.files['client/app.js']);

/** A test file: a `.test.ts` or `.test.tsx` under `tests/`, as `platform test` finds them. */
export const isTestFile = (path: string): boolean => path.startsWith('tests/') && /\.test\.tsx?$/.test(path);

/** Whether the errors among these diagnostics (at least one) are all in test files. */
export function onlyTestErrors(diagnostics: readonly Diagnostic[]): boolean {
  const errors = diagnostics.filter((d) => d.severity === 'error');
  return errors.length > 0 && errors.every((d) => d.file !== undefined && isTestFile(d.file));
}

/** The diagnostic code and detail.code of a refusal, for a notice. */
export function noticeCodes(result: { diagnostic?: { code: string; detail?: Record<string, unknown> } }): Pick<SessionNotice, 'code' | 'detailCode'> {
  const d = result.diagnostic;
  if (!d) return {};
  const detailCode = d.detail?.code;
  return { code: d.code, ...(typeof detailCode === 'string' ? { detailCode } : {}) };
}
