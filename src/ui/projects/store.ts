/**
 * Projects persisted in the playground's IndexedDB (idb-keyval): files, open tabs, the selected persona,
 * and separately the app's committed dev database. Only the trusted page touches this store; app code
 * runs in sandboxes with no access to it.
 */
import { createStore, del, get, keys, set, update, type UseStore } from 'idb-keyval';
import type { PersonaName } from '../../core/runtime';
import { CLIENT_BUNDLE, CLIENT_MAP, CLIENT_STYLES, type Generation, PUBLIC_PREFIX, SERVER_BUNDLE, SERVER_MAP } from '../../core/generation';
import { forgetFileViews } from '../workspace/file-views';
import { forgetLayout } from '../playground/layout';
import { forgetProgress } from '../lesson/progress-store';
import { DurableLog, loadCommitted, type CommitStore, type CommittedState } from '../runtime/durable-log';
import { deleteCommits, indexedDbCommitStore } from './commit-store';

export const PROJECT_FORMAT = 'platform.playground-project.v1';

export interface Project {
  format: typeof PROJECT_FORMAT;
  id: string;
  /** What the person calls it (the manifest name when created). */
  title: string;
  /** The template it was made from, if any. */
  template?: string;
  /** Project-relative path → text. */
  files: Record<string, string>;
  openTabs: string[];
  activeFile?: string;
  persona: PersonaName;
  createdAt: number;
  updatedAt: number;
}

export type ProjectSummary = Pick<Project, 'id' | 'title' | 'template' | 'updatedAt'>;

let store: UseStore | undefined;
const db = () => (store ??= createStore('platform-playground', 'projects'));
const projectKey = (id: string) => `project:${id}`;

export function newProjectId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(10));
  return `p_${Array.from(bytes, (b) => b.toString(36).padStart(2, '0')).join('').slice(0, 16)}`;
}

/** The ids of editable embeds' copies of links (src/ui/embed/kept-embed.ts): not among the person's projects. */
export const EMBED_ID_PREFIX = 'embed-';
export const isKeptEmbed = (id: string): boolean => id.startsWith(EMBED_ID_PREFIX);

export async function listProjects(): Promise<ProjectSummary[]> {
  const ids = (await keys<string>(db())).filter((k) => typeof k === 'string' && k.startsWith('project:'));
  const projects = await Promise.all(ids.map((k) => get<Project>(k, db())));
  return projects
    .filter((p): p is Project => p?.format === PROJECT_FORMAT && !isKeptEmbed(p.id))
    .map(({ id, title, template, updatedAt }) => ({ id, title, ...(template ? { template } : {}), updatedAt }))
    .sort((a, b) => b.updatedAt - a.updatedAt);
}

/**
 * The project as stored, with a newer journal folded in. Being a transaction on the store, it also
 * waits for this page's writes to it begun before (IndexedDB runs them in order), so a tab handing a
 * project over calls it to know that what it wrote has landed.
 */
export async function loadProject(id: string): Promise<Project | undefined> {
  const stored = await get<Project>(projectKey(id), db());
  const project = stored?.format === PROJECT_FORMAT ? stored : undefined;
  const newer = newerCopy(readJournal(id), project);
  if (newer !== project) await saveProject(newer!);
  return newer;
}

/**
 * What a reload opens: the journal when it is at least as new as the stored project (with the stored
 * name: the name changes only by renameProject, so a journal written before a rename keeps the new one),
 * else the stored project.
 */
export function newerCopy(journal: Project | undefined, stored: Project | undefined): Project | undefined {
  if (!journal || (stored && journal.updatedAt < stored.updatedAt)) return stored;
  return stored ? { ...journal, title: stored.title } : journal;
}

/**
 * What a save leaves stored: the project with the stored name, unless the stored copy is newer (a tab
 * the project was taken from by force). The project keeps its own `updatedAt`, the time of its last
 * change: stamping the time of the save instead would make a save that finishes after a later change
 * look newer than that change's journal, and a reload would then open the older copy.
 */
export function storedAfterSave(stored: Project | undefined, project: Project): Project {
  if (stored?.format !== PROJECT_FORMAT) return project;
  if (stored.updatedAt > project.updatedAt) return stored;
  return { ...project, title: stored.title };
}

/**
 * Saves a project's files, tabs and persona. Its name is kept as stored (only renameProject changes
 * it, so a session that opened before a rename does not put the old name back), and a copy older
 * than the stored one is not written over it (a tab the project was taken from by force).
 */
export async function saveProject(project: Project): Promise<void> {
  await update<Project>(projectKey(project.id), (stored) => storedAfterSave(stored, project), db());
  // The journal holds nothing newer than what is now in IndexedDB: drop it (unless an edit came since).
  const journal = readJournal(project.id);
  if (journal && journal.updatedAt <= project.updatedAt) forget(journalKey(project.id));
}

/** The longest name a project takes (a share link carries up to this many characters of it). */
export const PROJECT_NAME_MAX = 100;

export type NameRefusal = { ok: false; code: 'project_name_empty' | 'project_name_too_long' | 'project_name_invalid' | 'project_missing'; message: string };

/** A project name as typed, trimmed; refused when empty, longer than PROJECT_NAME_MAX or with control characters. */
export function checkProjectName(input: string): { ok: true; name: string } | NameRefusal {
  const name = input.trim();
  if (!name) return { ok: false, code: 'project_name_empty', message: 'A project needs a name: type at least one character.' };
  const length = [...name].length;
  if (length > PROJECT_NAME_MAX) return { ok: false, code: 'project_name_too_long', message: `A project's name is at most ${PROJECT_NAME_MAX} characters; this one has ${length}.` };
  if (/[\u0000-\u001f\u007f-\u009f]/.test(name)) return { ok: false, code: 'project_name_invalid', message: 'A project name cannot hold line breaks, tabs or other control characters.' };
  return { ok: true, name };
}

/** Renames a stored project (nothing else of it changes); the name is checked first. */
export async function renameProject(id: string, input: string): Promise<{ ok: true; name: string } | NameRefusal> {
  const checked = checkProjectName(input);
  if (!checked.ok) return checked;
  let found = false;
  await update<Project | undefined>(
    projectKey(id),
    (stored) => {
      found = stored?.format === PROJECT_FORMAT;
      return found ? { ...stored!, title: checked.name } : stored;
    },
    db(),
  );
  if (!found) return { ok: false, code: 'project_missing', message: 'There is no such project in this browser.' };
  const journal = readJournal(id);
  if (journal) journalProject({ ...journal, title: checked.name });
  return checked;
}

/** The name of a copy: "<name> (copy)", within PROJECT_NAME_MAX. */
export function copyName(name: string): string {
  const suffix = ' (copy)';
  return `${[...name].slice(0, PROJECT_NAME_MAX - suffix.length).join('').trimEnd()}${suffix}`;
}

/**
 * A new project with a stored project's files, tabs and persona and its data as stored (the committed
 * database, the last good build and a share link's data not imported yet); undefined when there is no
 * such project. The copy's record is written last, so no list shows a copy without its data.
 */
export async function duplicateProject(id: string): Promise<Project | undefined> {
  const source = await loadProject(id);
  if (!source) return undefined;
  const now = Date.now();
  const copy: Project = { ...source, id: newProjectId(), title: copyName(source.title), createdAt: now, updatedAt: now };
  const [state, lastGood, pending] = await Promise.all([loadState(id), loadLastGood(id), loadPendingImport(id)]);
  if (state) await saveState(copy.id, state);
  if (lastGood) await saveLastGood(copy.id, lastGood);
  if (pending !== undefined) await savePendingImport(copy.id, pending);
  await saveProject(copy);
  return copy;
}

/**
 * Writes the project to a synchronous journal (localStorage) at once, so an edit, a new file or a
 * deletion survives a reload or a tab closed before the IndexedDB save (which is asynchronous, and
 * not waited for by a page that goes away). `loadProject` prefers a newer journal and folds it in.
 * Returns false when the journal could not be written (storage full); the IndexedDB save still runs.
 */
export function journalProject(project: Project): boolean {
  try {
    localStorage.setItem(journalKey(project.id), JSON.stringify(project));
    return true;
  } catch {
    return false;
  }
}

const journalKey = (id: string) => `platform-project-journal:${id}`;

function readJournal(id: string): Project | undefined {
  try {
    const text = localStorage.getItem(journalKey(id));
    const project = text ? (JSON.parse(text) as Project) : undefined;
    return project?.format === PROJECT_FORMAT && project.id === id ? project : undefined;
  } catch {
    return undefined;
  }
}

function forget(key: string): void {
  try {
    localStorage.removeItem(key);
  } catch {
    // storage unavailable: nothing was journaled
  }
}

export async function deleteProject(id: string): Promise<void> {
  forget(journalKey(id));
  forgetFileViews(id);
  forgetLayout(id);
  forgetProgress(id);
  await del(projectKey(id), db());
  await deleteCommits(id, db);
  await del(recoveryKey(id), db());
  await del(pendingImportKey(id), db());
  await del(lastGoodKey(id), db());
}

/** Where the app's committed dev database is kept (a checkpoint and a journal: commit-store.ts), apart from the project's files. */
export function commitStore(id: string): CommitStore {
  return indexedDbCommitStore(id, db);
}

/** The app's committed dev database as a reload restores it: the checkpoint and the journal after it. */
export async function loadState(id: string): Promise<(CommittedState & { through: number }) | undefined> {
  const state = await loadCommitted(commitStore(id));
  return state.checkpoint || state.journal.length > 0 || state.through > 0 ? state : undefined;
}

/** Stores `state` as the project's whole committed database (a copy's): a checkpoint and its journal. */
export async function saveState(id: string, state: CommittedState): Promise<void> {
  const log = new DurableLog(commitStore(id));
  for (const batch of state.journal) await log.append(batch);
  // Holds no entry of the journal just written: those follow it.
  await commitStore(id).saveCheckpoint({ ...(state.checkpoint ? { state: state.checkpoint } : {}), through: 0 });
}

/** The committed state kept by "Reset data" before it dropped it, so the reset can be undone. */
export interface RecoveryCopy {
  state: Uint8Array;
  /** Milliseconds since the epoch. */
  savedAt: number;
}

const recoveryKey = (id: string) => `recovery:${id}`;
const lastGoodKey = (id: string) => `lastgood:${id}`;

/**
 * The project's last good build (its bundles, manifest and public files): a session whose first build
 * fails (a type error left in the files) previews this one, marked as such, instead of nothing.
 */
export interface LastGoodBuild {
  generation: Generation;
  /** Milliseconds since the epoch. */
  savedAt: number;
}

/** How builds kept before 2026-12-01 stored a generation: its bundles as texts, its public files under their path in public/. */
interface TextGeneration {
  manifest: Generation['manifest'];
  serverCode: string;
  clientCode: string;
  clientCss?: string;
  clientMap?: string;
  serverMap?: string;
  publicFiles?: Record<string, string>;
}

/**
 * A stored last good build as this version reads it: one stored by an older version (its bundles as
 * texts) is moved to the generation's files by artifact path; anything else stored there is no build.
 */
export function lastGoodFrom(stored: unknown): LastGoodBuild | undefined {
  if (typeof stored !== 'object' || stored === null) return undefined;
  const { generation, savedAt } = stored as { generation?: unknown; savedAt?: unknown };
  if (typeof savedAt !== 'number' || typeof generation !== 'object' || generation === null) return undefined;
  const { manifest, files } = generation as Partial<Generation>;
  if (typeof manifest !== 'object' || manifest === null) return undefined;
  if (files instanceof Map) {
    const built = [SERVER_BUNDLE, CLIENT_BUNDLE].every((path) => files.get(path) instanceof Uint8Array);
    return built ? { generation: { manifest, files }, savedAt } : undefined;
  }
  const old = generation as Partial<TextGeneration>;
  if (typeof old.serverCode !== 'string' || typeof old.clientCode !== 'string') return undefined;
  const encoder = new TextEncoder();
  const moved = new Map<string, Uint8Array>([
    [SERVER_BUNDLE, encoder.encode(old.serverCode)],
    [CLIENT_BUNDLE, encoder.encode(old.clientCode)],
  ]);
  const optional: Array<[string, unknown]> = [[CLIENT_STYLES, old.clientCss], [CLIENT_MAP, old.clientMap], [SERVER_MAP, old.serverMap]];
  for (const [path, text] of optional) if (typeof text === 'string') moved.set(path, encoder.encode(text));
  for (const [path, text] of Object.entries(old.publicFiles ?? {})) if (typeof text === 'string') moved.set(`${PUBLIC_PREFIX}${path}`, encoder.encode(text));
  return { generation: { manifest, files: moved }, savedAt };
}

export async function loadLastGood(id: string): Promise<LastGoodBuild | undefined> {
  try {
    return lastGoodFrom(await get<unknown>(lastGoodKey(id), db()));
  } catch {
    return undefined;
  }
}

export async function saveLastGood(id: string, build: LastGoodBuild): Promise<void> {
  try {
    // Each file on its own bytes: a view into a larger buffer (a worker's answer) would store all of it.
    const own = (bytes: Uint8Array) => (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice());
    const files = new Map([...build.generation.files].map(([path, bytes]) => [path, own(bytes)] as const));
    await set(lastGoodKey(id), { ...build, generation: { ...build.generation, files } }, db());
  } catch {
    // Only the fallback is lost: a later session whose first build fails shows no preview.
  }
}
const pendingImportKey = (id: string) => `import:${id}`;

export async function loadRecovery(id: string): Promise<RecoveryCopy | undefined> {
  const copy = await get<RecoveryCopy>(recoveryKey(id), db());
  return copy && copy.state instanceof Uint8Array && typeof copy.savedAt === 'number' ? copy : undefined;
}

export async function saveRecovery(id: string, copy: RecoveryCopy): Promise<void> {
  await set(recoveryKey(id), copy, db());
}

export async function clearRecovery(id: string): Promise<void> {
  await del(recoveryKey(id), db());
}

/**
 * A `platform.state-export.v0` document (JSON text) a new project is to import into its runtime
 * once it starts: the data of a share link. Kept until the import succeeded or was refused.
 */
export async function loadPendingImport(id: string): Promise<string | undefined> {
  const text = await get<string>(pendingImportKey(id), db());
  return typeof text === 'string' ? text : undefined;
}

export async function savePendingImport(id: string, text: string): Promise<void> {
  await set(pendingImportKey(id), text, db());
}

export async function clearPendingImport(id: string): Promise<void> {
  await del(pendingImportKey(id), db());
}
