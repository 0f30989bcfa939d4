/**
 * A project's durable commits in IndexedDB (the CommitStore of durable-log.ts): the checkpoint under
 * the project's `state:<id>` key of the projects store, and the journal in a database of its own, so
 * that appending an entry never waits behind a checkpoint being written (IndexedDB runs transactions
 * over the same store one after another; over separate databases they run side by side).
 */
import { createStore, del, get, set, type UseStore } from 'idb-keyval';
import type { CheckpointRecord, CommitStore, JournalEntry } from '../runtime/durable-log';

let journalDb: UseStore | undefined;
const journal = () => (journalDb ??= createStore('platform-playground-journal', 'entries'));

/** The entries of project `id` with `seq` in [from, to]: keys are [id, seq], ordered by seq. */
const range = (id: string, from: number, to: number) => IDBKeyRange.bound([id, from], [id, to]);

function request<T>(req: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

/** A checkpoint as stored: older versions kept the bare database file (it holds no journal entry). */
function asRecord(value: unknown): CheckpointRecord | undefined {
  if (value instanceof Uint8Array) return { state: value, through: 0 };
  if (!value || typeof value !== 'object') return undefined;
  const record = value as Partial<CheckpointRecord>;
  if (typeof record.through !== 'number' || (record.state !== undefined && !(record.state instanceof Uint8Array))) return undefined;
  return { ...(record.state ? { state: record.state } : {}), through: record.through };
}

/** The commits of project `id`; `projects` is the store holding its checkpoint (src/ui/projects/store.ts). */
export function indexedDbCommitStore(id: string, projects: () => UseStore): CommitStore {
  const stateKey = `state:${id}`;
  return {
    async loadCheckpoint() {
      return asRecord(await get(stateKey, projects()));
    },
    saveCheckpoint: (record) => set(stateKey, record, projects()),
    append: (entry: JournalEntry) => set([id, entry.seq], entry, journal()),
    entriesAfter: (after) => journal()('readonly', (store) => request(store.getAll(range(id, after + 1, Number.MAX_SAFE_INTEGER)) as IDBRequest<JournalEntry[]>)),
    truncateThrough: (through) => journal()('readwrite', (store) => request(store.delete(range(id, 0, through)))),
    dropFrom: (from) => journal()('readwrite', (store) => request(store.delete(range(id, from, Number.MAX_SAFE_INTEGER)))),
  };
}

/** Deletes a project's checkpoint and journal. */
export async function deleteCommits(id: string, projects: () => UseStore): Promise<void> {
  await del(`state:${id}`, projects());
  await journal()('readwrite', (store) => request(store.delete(range(id, 0, Number.MAX_SAFE_INTEGER))));
}
