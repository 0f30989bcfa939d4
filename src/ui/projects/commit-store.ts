/**
 * A project's durable commits in IndexedDB (the CommitStore of durable-log.ts): the journal in a
 * database of its own, and the checkpoint in the projects store, written in chunks of CHUNK_BYTES, each
 * its own transaction, then made current by one small record under `state:<id>` naming them.
 *
 * Why chunks: Chromium writes an origin's IndexedDB transactions one after another, whatever their
 * database, so a journal entry appended while a 50 MB checkpoint is written in one transaction waits
 * for all of it (measured: 420 ms at 50 MB, bench/durable-commits.ts). Between chunks it waits for one
 * chunk at most. A crash before the record is written leaves the previous checkpoint current (its chunks
 * are deleted only after the new record landed); chunks no record names are deleted by the next save.
 */
import { createStore, del, delMany, get, getMany, keys, set, type UseStore } from 'idb-keyval';
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

/** The bytes of a checkpoint chunk: small enough that a journal append waits little behind one. */
export const CHUNK_BYTES = 1024 * 1024;

/** The record naming the current checkpoint's chunks (`gen` tells one save's chunks from another's). */
interface ChunkedRecord {
  through: number;
  gen?: string;
  chunks?: number;
  bytes?: number;
}

const chunkKey = (id: string, gen: string, index: number) => `state:${id}:${gen}:${index}`;

/** A checkpoint record as stored; older versions kept the bare database file, or the file in the record. */
async function readCheckpoint(id: string, projects: () => UseStore): Promise<CheckpointRecord | undefined> {
  const value: unknown = await get(`state:${id}`, projects());
  if (value instanceof Uint8Array) return { state: value, through: 0 };
  if (!value || typeof value !== 'object') return undefined;
  const record = value as ChunkedRecord & { state?: unknown };
  if (typeof record.through !== 'number') return undefined;
  if (record.state instanceof Uint8Array) return { state: record.state, through: record.through };
  if (typeof record.gen !== 'string' || typeof record.chunks !== 'number' || typeof record.bytes !== 'number') return { through: record.through };
  const gen = record.gen;
  const chunks = await getMany<Uint8Array>(Array.from({ length: record.chunks }, (_, i) => chunkKey(id, gen, i)), projects());
  const state = new Uint8Array(record.bytes);
  let at = 0;
  for (const chunk of chunks) {
    if (!(chunk instanceof Uint8Array) || at + chunk.length > state.length) throw new Error(`The stored checkpoint of project ${id} is damaged (a chunk is missing).`);
    state.set(chunk, at);
    at += chunk.length;
  }
  if (at !== state.length) throw new Error(`The stored checkpoint of project ${id} is damaged (it is short).`);
  return { state, through: record.through };
}

/** The checkpoint chunk keys of project `id` that `keep` (a generation) does not own. */
async function staleChunks(id: string, projects: () => UseStore, keep: string | undefined): Promise<IDBValidKey[]> {
  const prefix = `state:${id}:`;
  return (await keys(projects())).filter((key) => typeof key === 'string' && key.startsWith(prefix) && (keep === undefined || !key.startsWith(`${prefix}${keep}:`)));
}

async function writeCheckpoint(id: string, projects: () => UseStore, record: CheckpointRecord): Promise<void> {
  const state = record.state;
  let saved: ChunkedRecord = { through: record.through };
  if (state) {
    const gen = Math.random().toString(36).slice(2, 10);
    const chunks = Math.max(1, Math.ceil(state.length / CHUNK_BYTES));
    // Each chunk a copy (a view would store its whole buffer) in a transaction of its own.
    for (let i = 0; i < chunks; i++) await set(chunkKey(id, gen, i), state.slice(i * CHUNK_BYTES, (i + 1) * CHUNK_BYTES), projects());
    saved = { through: record.through, gen, chunks, bytes: state.length };
  }
  await set(`state:${id}`, saved, projects());
  const stale = await staleChunks(id, projects, saved.gen);
  if (stale.length > 0) await delMany(stale, projects());
}

/** The commits of project `id`; `projects` is the store holding its checkpoint (src/ui/projects/store.ts). */
export function indexedDbCommitStore(id: string, projects: () => UseStore): CommitStore {
  return {
    loadCheckpoint: () => readCheckpoint(id, projects),
    saveCheckpoint: (record) => writeCheckpoint(id, projects, record),
    append: (entry: JournalEntry) => set([id, entry.seq], entry, journal()),
    entriesAfter: (after) => journal()('readonly', (store) => request(store.getAll(range(id, after + 1, Number.MAX_SAFE_INTEGER)) as IDBRequest<JournalEntry[]>)),
    truncateThrough: (through) => journal()('readwrite', (store) => request(store.delete(range(id, 0, through)))),
    dropFrom: (from) => journal()('readwrite', (store) => request(store.delete(range(id, from, Number.MAX_SAFE_INTEGER)))),
  };
}

/** Deletes a project's checkpoint and journal. */
export async function deleteCommits(id: string, projects: () => UseStore): Promise<void> {
  await del(`state:${id}`, projects());
  const chunks = await staleChunks(id, projects, undefined);
  if (chunks.length > 0) await delMany(chunks, projects());
  await journal()('readwrite', (store) => request(store.delete(range(id, 0, Number.MAX_SAFE_INTEGER))));
}
