/**
 * The playground's durable commits: a checkpoint (the whole database, written in the background) and a
 * journal of what each call committed since (appended before the call is answered). A reload restores
 * the checkpoint and replays the journal after it, so what was answered is kept at any moment of a
 * crash, and a commit's cost follows its change, not the size of the database.
 *
 * Sequence numbers order the journal. A checkpoint records the last entry it holds (`through`); the
 * entries up to it are then deleted. The order of the writes makes every crash safe:
 * - between an append and the next checkpoint: the entry is replayed on the older checkpoint;
 * - between a checkpoint and the truncation of the entries it holds: they are at or below `through`
 *   and are skipped;
 * - a last entry written in part (or not at all): it was never answered; it and anything after it
 *   (a gap, a sequence out of place, a check that does not match) are dropped on load.
 */
import type { JournalBatch, SqlValue } from '../../core/runtime';

/** The committed database: the last checkpoint and what committed after it, in order. */
export interface CommittedState {
  /** The whole database (an SQLite file) at the checkpoint; none for an empty database. */
  checkpoint?: Uint8Array;
  /** The batches committed after the checkpoint, in order (replayed on it). */
  journal: readonly JournalBatch[];
  /** The journal sequence number the checkpoint holds, for a state loaded from a store (0 otherwise). */
  through?: number;
}

/** What the runtime sandbox committed: a journal batch (answers wait for it), or a checkpoint (never waited for). */
export type Commit = { kind: 'journal'; batch: JournalBatch } | { kind: 'checkpoint'; state: Uint8Array };

/** One journal entry as stored. `check` is a hash of the batch: a torn or damaged entry fails it. */
export interface JournalEntry {
  seq: number;
  batch: JournalBatch;
  check: string;
}

/** The stored checkpoint: the database (none: empty) and the last journal entry it holds. */
export interface CheckpointRecord {
  state?: Uint8Array;
  through: number;
}

/** Where a project's commits are kept (IndexedDB in the page: src/ui/projects/commit-store.ts). */
export interface CommitStore {
  loadCheckpoint(): Promise<CheckpointRecord | undefined>;
  saveCheckpoint(record: CheckpointRecord): Promise<void>;
  append(entry: JournalEntry): Promise<void>;
  /** The stored entries with `seq` above `after`, by `seq`. */
  entriesAfter(after: number): Promise<JournalEntry[]>;
  /** Deletes the entries with `seq` at most `through`. */
  truncateThrough(through: number): Promise<void>;
  /** Deletes the entries with `seq` at least `from` (what a load found past a torn entry). */
  dropFrom(from: number): Promise<void>;
}

/** FNV-1a over the batch's statements and typed parameters, as hex. */
export function batchCheck(batch: JournalBatch): string {
  let hash = 0x811c9dc5;
  const mix = (text: string) => {
    for (let i = 0; i < text.length; i++) {
      hash ^= text.charCodeAt(i);
      hash = Math.imul(hash, 0x01000193) >>> 0;
    }
  };
  const value = (v: SqlValue) => {
    if (v === null) mix('n;');
    else if (v instanceof Uint8Array) {
      mix(`u${v.length}:`);
      for (const byte of v) {
        hash ^= byte;
        hash = Math.imul(hash, 0x01000193) >>> 0;
      }
    } else mix(`${typeof v}${String(v)};`);
  };
  mix(`${batch.length}|`);
  for (const statement of batch) {
    mix(`${statement[0].length}:${statement[0]}|${statement[1].length}|`);
    for (const param of statement[1]) value(param);
  }
  return hash.toString(16).padStart(8, '0');
}

export function journalEntry(seq: number, batch: JournalBatch): JournalEntry {
  return { seq, batch, check: batchCheck(batch) };
}

function isEntry(value: unknown, seq: number): value is JournalEntry {
  if (!value || typeof value !== 'object') return false;
  const entry = value as Partial<JournalEntry>;
  if (entry.seq !== seq || typeof entry.check !== 'string' || !Array.isArray(entry.batch)) return false;
  if (!entry.batch.every((s) => Array.isArray(s) && typeof s[0] === 'string' && Array.isArray(s[1]))) return false;
  return batchCheck(entry.batch) === entry.check;
}

/**
 * What a reload restores: the checkpoint and the entries after it, in order, up to the first one missing
 * or damaged. Entries past that one are deleted (they were never answered: answers wait for their entry).
 */
export async function loadCommitted(store: CommitStore): Promise<CommittedState & { through: number }> {
  const record = await store.loadCheckpoint();
  const through = record?.through ?? 0;
  const stored = await store.entriesAfter(through);
  const journal: JournalBatch[] = [];
  for (const entry of stored) {
    if (!isEntry(entry, through + journal.length + 1)) break;
    journal.push(entry.batch);
  }
  if (journal.length < stored.length) await store.dropFrom(through + journal.length + 1);
  return { ...(record?.state ? { checkpoint: record.state } : {}), journal, through };
}

/**
 * A project's durable commits, written in order: `append` before an answer (its promise settles once the
 * entry is stored), `checkpoint` in the background (one write at a time, the newest waiting one wins;
 * the entries it holds are truncated after it landed).
 */
export class DurableLog {
  readonly #store: CommitStore;
  /** The last sequence number given to an entry. */
  #last: number;
  #writing: Promise<void> | undefined;
  #waiting: CheckpointRecord | undefined;

  /** `loaded`: the state the project was opened with (its checkpoint's `through` and journal). */
  constructor(store: CommitStore, loaded?: Pick<CommittedState, 'journal' | 'through'>) {
    this.#store = store;
    this.#last = (loaded?.through ?? 0) + (loaded?.journal.length ?? 0);
  }

  get lastSequence(): number {
    return this.#last;
  }

  /** Stores what one commit changed; answers wait for this. */
  append(batch: JournalBatch): Promise<void> {
    return this.#store.append(journalEntry(++this.#last, batch));
  }

  /**
   * Stores `state` as holding every entry appended so far, then deletes those entries. Settles when it
   * (or a newer checkpoint that took its place) landed.
   */
  checkpoint(state: Uint8Array | undefined): Promise<void> {
    this.#waiting = { ...(state ? { state } : {}), through: this.#last };
    this.#writing ??= this.#drain();
    return this.#writing;
  }

  /** Settles when no checkpoint is being written. */
  async settled(): Promise<void> {
    while (this.#writing) await this.#writing;
  }

  async #drain(): Promise<void> {
    try {
      while (this.#waiting) {
        const record = this.#waiting;
        this.#waiting = undefined;
        await this.#store.saveCheckpoint(record);
        await this.#store.truncateThrough(record.through);
      }
    } finally {
      this.#writing = undefined;
    }
  }
}

/** A CommitStore in memory: what a reload would read is what was stored; `held` writes wait (a crash test). */
export class MemoryCommitStore implements CommitStore {
  checkpoint: CheckpointRecord | undefined;
  readonly entries = new Map<number, JournalEntry>();
  /** While set, every write waits for it (as a slow disk), and is lost if the page "crashes" first. */
  hold: Promise<void> | undefined;
  /** Called as each write lands (a test takes what a reload would read at that moment). */
  afterWrite: (() => void) | undefined;

  async #write(apply: () => void): Promise<void> {
    if (this.hold) await this.hold;
    apply();
    this.afterWrite?.();
  }

  async loadCheckpoint(): Promise<CheckpointRecord | undefined> {
    return this.checkpoint && structuredClone(this.checkpoint);
  }
  saveCheckpoint(record: CheckpointRecord): Promise<void> {
    const copy = structuredClone(record);
    return this.#write(() => (this.checkpoint = copy));
  }
  append(entry: JournalEntry): Promise<void> {
    const copy = structuredClone(entry);
    return this.#write(() => this.entries.set(copy.seq, copy));
  }
  async entriesAfter(after: number): Promise<JournalEntry[]> {
    return [...this.entries.values()].filter((e) => e.seq > after).sort((a, b) => a.seq - b.seq).map((e) => structuredClone(e));
  }
  truncateThrough(through: number): Promise<void> {
    return this.#write(() => {
      for (const seq of [...this.entries.keys()]) if (seq <= through) this.entries.delete(seq);
    });
  }
  dropFrom(from: number): Promise<void> {
    return this.#write(() => {
      for (const seq of [...this.entries.keys()]) if (seq >= from) this.entries.delete(seq);
    });
  }
  /** A copy of what is stored now: what a page reloaded at this moment reads. */
  snapshot(): MemoryCommitStore {
    const copy = new MemoryCommitStore();
    copy.checkpoint = this.checkpoint && structuredClone(this.checkpoint);
    for (const [seq, entry] of this.entries) copy.entries.set(seq, structuredClone(entry));
    return copy;
  }
}
