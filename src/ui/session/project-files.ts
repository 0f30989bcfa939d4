/**
 * The project's files and tabs as values: what an edit, a new file, a rename, a deletion and its undo
 * make of a project (pure functions), and `Autosave`, which writes each change to the store's journal
 * at once and saves it durably after a quiet moment, so nothing typed is lost to a reload.
 */
import { isAtOrInside, movedPath } from '../../core/fs';
import type { Project } from '../projects/store';
import type { FileViews } from '../workspace/file-views';
import type { ProjectStore } from './project-store';

export const SAVE_DELAY_MS = 400;


export function withFile(project: Project, path: string, text: string): Pick<Project, 'files' | 'openTabs' | 'activeFile'> {
  return { files: { ...project.files, [path]: text }, openTabs: [...new Set([...project.openTabs, path])], activeFile: path };
}

export function renamed(project: Project, from: string, to: string): Pick<Project, 'files' | 'openTabs'> & Partial<Pick<Project, 'activeFile'>> {
  const files: Record<string, string> = {};
  for (const [path, text] of Object.entries(project.files)) files[movedPath(path, from, to)] = text;
  const { openTabs, activeFile } = project;
  return { files, openTabs: openTabs.map((p) => movedPath(p, from, to)), ...(activeFile ? { activeFile: movedPath(activeFile, from, to) } : {}) };
}

/** What a deletion took away, to put back on Undo. */
export interface Deletion {
  /** What was deleted, as the person chose it: a file's path or a folder's. */
  name: string;
  /** The deleted files with their text. */
  files: Record<string, string>;
  /** The open tabs before the deletion, in order, and the file then shown. */
  openTabs: string[];
  activeFile?: string;
  /** The deleted files' cursors and scroll. */
  views: FileViews;
}

/** `path` (a file, or a folder and everything under it) deleted; undefined when nothing is there. */
export function deleted(project: Project, path: string, views: FileViews): { patch: Pick<Project, 'files' | 'openTabs' | 'activeFile'>; deletion: Deletion } | undefined {
  const gone = Object.entries(project.files).filter(([p]) => isAtOrInside(p, path));
  if (gone.length === 0) return undefined;
  const files = Object.fromEntries(Object.entries(project.files).filter(([p]) => !isAtOrInside(p, path)));
  const openTabs = project.openTabs.filter((p) => !isAtOrInside(p, path));
  const activeFile = project.activeFile && isAtOrInside(project.activeFile, path) ? openTabs[0] : project.activeFile;
  const deletion: Deletion = {
    name: path,
    files: Object.fromEntries(gone),
    openTabs: project.openTabs,
    ...(project.activeFile ? { activeFile: project.activeFile } : {}),
    views: Object.fromEntries(Object.entries(views).filter(([p]) => isAtOrInside(p, path))),
  };
  return { patch: { files, openTabs, activeFile }, deletion };
}

/**
 * The deleted files back with their text, their tabs where they were, and the file shown then shown
 * again if it was one of them. A file created at a deleted path since keeps its newer text.
 */
export function undone(project: Project, deletion: Deletion): Pick<Project, 'files' | 'openTabs' | 'activeFile'> {
  const files = { ...deletion.files, ...project.files };
  const back = new Set(Object.keys(deletion.files).filter((p) => project.files[p] === undefined));
  const wasOpen = deletion.openTabs.filter((p) => project.openTabs.includes(p) || back.has(p));
  const openTabs = [...wasOpen, ...project.openTabs.filter((p) => !wasOpen.includes(p))];
  const activeFile = deletion.activeFile && back.has(deletion.activeFile) ? deletion.activeFile : project.activeFile;
  return { files, openTabs, activeFile };
}

/** Journals each change at once and saves it to the store after `delayMs` without changes. */
export class Autosave {
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    readonly store: ProjectStore,
    readonly delayMs = SAVE_DELAY_MS,
  ) {}

  /** The project changed: journaled now (a reload keeps it), saved after a quiet moment. */
  changed(project: Project): void {
    clearTimeout(this.#timer);
    this.store.journal(project);
    this.#timer = setTimeout(() => void this.store.saveProject(project), this.delayMs);
  }

  /** Saves now (Mod-s). */
  async save(project: Project): Promise<void> {
    clearTimeout(this.#timer);
    await this.store.saveProject(project);
  }

  /** The session ends: what is pending is saved now. */
  dispose(project: Project): void {
    clearTimeout(this.#timer);
    void this.store.saveProject(project);
  }
}
