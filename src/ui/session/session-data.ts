/**
 * The app's data in one open project: each commit's journal batch kept in the store before the runtime
 * answers the call that made it (nothing acknowledged is lost), checkpoints kept in the background
 * (durable-log.ts), a share link's data imported once the runtime
 * first starts, state imports, "Reset data" (keeping a recovery copy of what it drops) and restoring
 * that copy.
 */
import type { RecoveryCopy } from '../projects/store';
import { DurableLog, type CommittedState } from '../runtime/durable-log';
import { appOf } from './generation';
import type { ProjectStore } from './project-store';
import type { InspectAnswer, SessionContext, SessionNotice, SessionRuntime } from './session-state';

export interface SessionDataParts {
  runtime: SessionRuntime;
  store: ProjectStore;
  /** The committed data the session starts with (loaded from the store, with its journal's `through`). */
  initialState?: CommittedState;
  /** A platform.state-export.v0 document (JSON text) to import once the runtime first starts. */
  pendingImport?: string;
  /** The previews reload (the same generation under a new number). */
  reloadPreviews(): void;
  /** A build soon (after a reset: the app starts again on empty data). */
  rebuild(): void;
}

export class SessionData {
  readonly #ctx: SessionContext;
  readonly #parts: SessionDataParts;
  /** The app's committed database as last handed over (or loaded from the store). */
  #committed: CommittedState | undefined;
  readonly #log: DurableLog;
  #pendingImport: string | undefined;
  /** The recovery copy, as last kept or loaded. */
  #recovery: RecoveryCopy | undefined;
  readonly #unsubscribe: () => void;

  constructor(ctx: SessionContext, parts: SessionDataParts) {
    this.#ctx = ctx;
    this.#parts = parts;
    this.#committed = parts.initialState;
    this.#pendingImport = parts.pendingImport;
    this.#log = new DurableLog(parts.store.commits, parts.initialState);
    // The runtime answers a call that wrote only once its journal entry is stored: what the preview
    // shows as done is in the store before it shows. A checkpoint is written in the background.
    this.#unsubscribe = parts.runtime.onCommit((commit) => {
      if (commit.kind === 'journal') {
        this.#committed = { ...(this.#committed?.checkpoint ? { checkpoint: this.#committed.checkpoint } : {}), journal: [...(this.#committed?.journal ?? []), commit.batch] };
        return this.#log.append(commit.batch);
      }
      this.#committed = { checkpoint: commit.state, journal: [] };
      // Not waited for by any answer (the runtime waits only for journal entries). Marked for the e2e
      // tests, which end the page while a checkpoint is being written.
      performance.mark('platform:checkpoint-start', { detail: { bytes: commit.state.length } });
      const written = this.#log.checkpoint(commit.state);
      void written.then(() => performance.mark('platform:checkpoint-done'), () => undefined);
      return written;
    });
    void parts.store.loadRecovery().then((copy) => {
      if (!copy || this.#recovery) return;
      this.#recovery = copy;
      ctx.update({ recovery: { savedAt: copy.savedAt } });
    });
  }

  /** The committed data as last handed over. */
  get committed(): CommittedState | undefined {
    return this.#committed;
  }

  /** The runtime started on a new generation: a share link's data goes in before the previews first load. */
  async started(): Promise<void> {
    const text = this.#pendingImport;
    if (text === undefined) return;
    this.#pendingImport = undefined;
    const result = await this.importState(text);
    await this.#parts.store.clearPendingImport();
    if (result.kind === 'import-state') {
      const rows = Object.values(result.counts).reduce((a, b) => a + b, 0);
      const objects = result.objects ? ` and ${result.objects} stored object${result.objects === 1 ? '' : 's'}` : '';
      this.#ctx.update({ notice: { tone: 'info', message: `The link's data was imported: ${rows} record${rows === 1 ? '' : 's'}${objects}.` } });
    } else {
      this.#ctx.update({ notice: { tone: 'error', message: `The link's data could not be imported: ${result.message}`, ...noticeCodes(result) } });
    }
  }

  /** Replaces the app's records with a platform.state-export.v0 document's (all or nothing). */
  async importState(text: string): Promise<InspectAnswer<'import-state'>> {
    const { runtime } = this.#parts;
    const result = await runtime.inspect({ kind: 'import-state', text });
    if (result.kind === 'import-state') {
      await runtime.flush();
      this.#ctx.log('state.imported', { counts: result.counts });
      this.#parts.reloadPreviews();
    } else {
      this.#ctx.log('state.import.refused', { code: result.diagnostic?.code ?? 'refused', message: result.message, ...(result.diagnostic?.detail?.code ? { detailCode: String(result.diagnostic.detail.code) } : {}) });
    }
    return result;
  }

  /**
   * Starts over with empty data. The committed state it drops is kept first as the recovery copy
   * (replacing the previous one), which `restoreRecovery` brings back. Empty data keeps no copy.
   */
  async resetData(): Promise<void> {
    const ctx = this.#ctx;
    const { runtime, store } = this.#parts;
    // Commits the sandbox has not sent yet land first, so none arrives after the reset; as a checkpoint,
    // the whole database, which the recovery copy keeps.
    await runtime.flush({ checkpoint: true });
    const dropped = (runtime.committedState ?? this.#committed)?.checkpoint;
    if (dropped) {
      const copy: RecoveryCopy = { state: dropped.slice(), savedAt: Date.now() };
      await store.saveRecovery(copy);
      this.#recovery = copy;
      ctx.update({ recovery: { savedAt: copy.savedAt } });
    }
    ctx.update({ notice: undefined });
    ctx.log('state.reset', { recoveryCopy: dropped ? dropped.length : 0 });
    this.#committed = undefined;
    await this.#log.checkpoint(undefined);
    const generation = ctx.state.generation;
    if (generation) await runtime.start(appOf(generation));
    this.#parts.rebuild();
  }

  /**
   * Brings back the data the last reset dropped: the runtime restarts on the recovery copy, which
   * becomes the committed state (and is then discarded). Refused when the copy's schema no longer
   * matches the app (the runtime keeps its current data).
   */
  async restoreRecovery(): Promise<{ ok: true } | { ok: false; message: string }> {
    const ctx = this.#ctx;
    const { runtime, store } = this.#parts;
    const copy = this.#recovery;
    const generation = ctx.state.generation;
    if (!copy) return { ok: false, message: 'There is no recovery copy.' };
    if (!generation) return { ok: false, message: 'The app is not running: fix the build first.' };
    await runtime.flush();
    const current = runtime.committedState ?? this.#committed;
    try {
      await runtime.start({ ...appOf(generation), state: { checkpoint: copy.state, journal: [] } });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      await runtime.start({ ...appOf(generation), ...(current ? { state: current } : {}) }).catch(() => undefined);
      ctx.update({ notice: { tone: 'error', message: `The recovery copy could not be restored: ${message}` } });
      return { ok: false, message };
    }
    this.#committed = { checkpoint: copy.state, journal: [] };
    this.#recovery = undefined;
    await this.#log.checkpoint(copy.state);
    await store.clearRecovery();
    ctx.log('state.restored', { savedAt: new Date(copy.savedAt).toISOString() });
    ctx.update({ recovery: undefined, notice: { tone: 'info', message: `The data from before the reset (${new Date(copy.savedAt).toLocaleTimeString()}) was restored.` } });
    this.#parts.reloadPreviews();
    return { ok: true };
  }

  dispose(): void {
    this.#unsubscribe();
  }
}

/** The diagnostic code and detail.code of a refusal, for a notice. */
export function noticeCodes(result: { diagnostic?: { code: string; detail?: Record<string, unknown> } }): Pick<SessionNotice, 'code' | 'detailCode'> {
  const d = result.diagnostic;
  if (!d) return {};
  const detailCode = d.detail?.code;
  return { code: d.code, ...(typeof detailCode === 'string' ? { detailCode } : {}) };
}
