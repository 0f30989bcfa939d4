/**
 * Where one open project's session keeps what outlives the page: the project (files, tabs, persona),
 * the app's committed data, the recovery copy "Reset data" keeps, the last good build, which
 * files are known to type-check cleanly, and each file's cursor and scroll. `browserProjectStore`
 * (browser-project-store.ts) keeps them in IndexedDB and localStorage; `MemoryProjectStore` keeps them
 * in the page, for a scratch project (embed mode, a share link opened there) and for tests.
 */
import { canonicalJson } from '../../core/hash';
import { newerCopy, storedAfterSave, type LastGoodBuild, type Project, type RecoveryCopy } from '../projects/store';
import { MemoryCommitStore, type CommitStore, type CommittedState } from '../runtime/durable-log';
import type { FileViews } from '../workspace/file-views';

export interface ProjectStore {
  /** False when nothing outlives the page. */
  readonly persistent: boolean;
  /** Writes the project at once (synchronously), so it survives a reload right after; false when it could not. */
  journal(project: Project): boolean;
  /** The durable save (asynchronous), which the journal covers until it lands. */
  saveProject(project: Project): Promise<void>;
  /** The app's committed data: a checkpoint and a journal (src/ui/runtime/durable-log.ts). */
  readonly commits: CommitStore;
  loadRecovery(): Promise<RecoveryCopy | undefined>;
  saveRecovery(copy: RecoveryCopy): Promise<void>;
  clearRecovery(): Promise<void>;
  /** The share link's data has been imported (or refused): it is not imported again. */
  clearPendingImport(): Promise<void>;
  loadLastGood(): Promise<LastGoodBuild | undefined>;
  saveLastGood(build: LastGoodBuild): Promise<void>;
  /** Whether these files are known to type-check cleanly: a template as shipped, or the last files that did. */
  isKnownGood(files: Record<string, string>): Promise<boolean>;
  /** These files type-checked cleanly (the next session's first build may skip the check, known-good.ts). */
  rememberGood(files: Record<string, string>): Promise<void>;
  /** Each file's cursor and scroll as last shown (read once, as the session starts). */
  loadViews(): FileViews;
  /** Written at once (synchronously): it is small, and a page that goes away waits for nothing. */
  saveViews(views: FileViews): void;
}

/**
 * A store in the page's memory. Two sessions over one instance see what the first kept, as a reload
 * sees IndexedDB: `journaled` is what a synchronous write holds, `saved` what the durable save holds.
 */
export class MemoryProjectStore implements ProjectStore {
  readonly persistent = false;
  /** `knownGood`: files known to check cleanly before this store saw any (the templates, in embed mode). */
  constructor(readonly knownGood: (files: Record<string, string>) => boolean = () => false) {}
  journaled: Project | undefined;
  saved: Project | undefined;
  readonly commits = new MemoryCommitStore();
  recovery: RecoveryCopy | undefined;
  lastGood: LastGoodBuild | undefined;
  /** The files that last type-checked cleanly (canonical JSON). */
  good: string | undefined;
  views: FileViews = {};
  pendingImportCleared = false;

  journal(project: Project): boolean {
    this.journaled = structuredClone(project);
    return true;
  }
  async saveProject(project: Project): Promise<void> {
    this.saved = structuredClone(storedAfterSave(this.saved, project));
  }
  /** What a reload would load: the newer of the journal and the save (as `loadProject` chooses). */
  get project(): Project | undefined {
    return newerCopy(this.journaled, this.saved);
  }
  /** What a reload would restore (as `loadState` reads it), undefined when nothing was ever stored. */
  get state(): CommittedState | undefined {
    const record = this.commits.checkpoint;
    const through = record?.through ?? 0;
    const journal = [];
    for (let seq = through + 1; this.commits.entries.has(seq); seq++) journal.push(this.commits.entries.get(seq)!.batch);
    if (!record && journal.length === 0) return undefined;
    return { ...(record?.state ? { checkpoint: record.state } : {}), journal, through };
  }
  /** Stores `state` as the committed data (a test's starting point). */
  set state(state: CommittedState | undefined) {
    this.commits.entries.clear();
    this.commits.checkpoint = state && { ...(state.checkpoint ? { state: state.checkpoint } : {}), through: 0 };
    state?.journal.forEach((batch, i) => this.commits.entries.set(i + 1, { seq: i + 1, batch, check: '' }));
  }
  async loadRecovery(): Promise<RecoveryCopy | undefined> {
    return this.recovery;
  }
  async saveRecovery(copy: RecoveryCopy): Promise<void> {
    this.recovery = copy;
  }
  async clearRecovery(): Promise<void> {
    this.recovery = undefined;
  }
  async clearPendingImport(): Promise<void> {
    this.pendingImportCleared = true;
  }
  async loadLastGood(): Promise<LastGoodBuild | undefined> {
    return this.lastGood;
  }
  async saveLastGood(build: LastGoodBuild): Promise<void> {
    this.lastGood = build;
  }
  async isKnownGood(files: Record<string, string>): Promise<boolean> {
    return this.knownGood(files) || canonicalJson(files) === this.good;
  }
  async rememberGood(files: Record<string, string>): Promise<void> {
    this.good = canonicalJson(files);
  }
  loadViews(): FileViews {
    return structuredClone(this.views);
  }
  saveViews(views: FileViews): void {
    this.views = structuredClone(views);
  }
}
