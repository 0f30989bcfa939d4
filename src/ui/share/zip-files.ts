/**
 * Download as zip and open from a zip or a folder dropped on the playground. The zip format, its
 * safety checks and codes are src/core/zip's; a folder gets the same path rules and caps here.
 * Projects hold text files: binary files from outside are left out and listed. A downloaded zip
 * carries the app's data in `platform-data.json` (the records and up to 4 MiB of stored objects,
 * a platform.project-data.v0 document), imported when the project re-opened from it first runs.
 */
import type { Result } from '../../core/result';
import { MANIFEST_FILE, manifestName } from '../../core/manifest';
import { MAX_ZIP_OBJECT_BYTES, parseProjectData, pathSetProblem, PROJECT_DATA_FILE, projectDataText, projectPathProblem } from '../../core/share';
import { MAX_ZIP_ENTRY_BYTES, MAX_ZIP_FILES, MAX_ZIP_TOTAL_BYTES, openZip, zipProject } from '../../core/zip';
import { newProjectId, PROJECT_FORMAT, savePendingImport, type Project } from '../projects/store';
import type { ProjectSession } from '../playground/project-session';
import { downloadBytes } from '../download';
import { exportedState, leftOutNote, sharedObjects } from './share';

export interface OpenError {
  code: string;
  message: string;
}

/** `data`: the zip's platform-data.json, checked, to import when the project first runs. */
export type Opened = Result<{ project: Project; skipped: string[]; data?: string }, { error: OpenError }>;

export type ZipDownload = Result<{ name: string; bytes: number; leftOut?: string }, { error: OpenError }>;

/** Room kept in platform-data.json for its framing and object metadata. */
const DATA_SLACK = 256 * 1024;

/** Downloads the project as `<name>.zip` (one folder named after the app). */
export function downloadZip(files: Record<string, string>): ZipDownload {
  const zipped = zipProject(files);
  if (!zipped.ok) return zipped;
  downloadBytes(`${zipped.folder}.zip`, zipped.bytes, 'application/zip');
  return { ok: true, name: `${zipped.folder}.zip`, bytes: zipped.bytes.length };
}

/**
 * The project with its data as a zip: the records and the stored objects that fit (the rest named
 * in `leftOut`) in platform-data.json, which stays under a zip entry's 8 MiB. Data that cannot be
 * exported, or records over that alone, leave the zip with the files only, and say so.
 */
export async function downloadProjectZip(session: ProjectSession): Promise<ZipDownload> {
  const files = session.state.project.files;
  const exported = await exportedState(session);
  if (!exported.ok) {
    const zipped = downloadZip(files);
    return zipped.ok ? { ...zipped, leftOut: `The zip holds no data: ${exported.message}` } : zipped;
  }
  const room = Math.floor(((MAX_ZIP_ENTRY_BYTES - DATA_SLACK - new TextEncoder().encode(exported.text).length) * 3) / 4);
  if (room < 0) {
    const zipped = downloadZip(files);
    return zipped.ok ? { ...zipped, leftOut: `The zip holds no data: the records are over the ${MAX_ZIP_ENTRY_BYTES / 1024 / 1024} MiB a zip entry may hold.` } : zipped;
  }
  const limit = Math.min(MAX_ZIP_OBJECT_BYTES, room);
  const carried = await sharedObjects(session, limit);
  const zipped = zipProject({ ...files, [PROJECT_DATA_FILE]: projectDataText(exported.document, carried.objects) });
  if (!zipped.ok) return zipped;
  downloadBytes(`${zipped.folder}.zip`, zipped.bytes, 'application/zip');
  const leftOut = leftOutNote(carried.leftOut, carried.more, limit, 'zip');
  return { ok: true, name: `${zipped.folder}.zip`, bytes: zipped.bytes.length, ...(leftOut ? { leftOut } : {}) };
}

/** A zip's platform-data.json taken out of its files and checked: the text to import, or why not. */
function dataOf(files: Record<string, string>): { data?: string } | { error: OpenError } {
  const text = files[PROJECT_DATA_FILE];
  if (text === undefined) return {};
  delete files[PROJECT_DATA_FILE];
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { error: { code: 'zip_data_invalid', message: `${PROJECT_DATA_FILE} is not JSON.` } };
  }
  const parsed = parseProjectData(value, MAX_ZIP_OBJECT_BYTES);
  if (!parsed.ok) return { error: { code: 'zip_data_invalid', message: `${PROJECT_DATA_FILE} is refused (${parsed.error.code}): ${parsed.error.message}.` } };
  return { data: text };
}

/** Text files only (valid UTF-8 without NUL); the others are named in `skipped`. */
function textFiles(files: Record<string, string | Uint8Array>, skipped: string[]): Record<string, string> {
  const texts: Record<string, string> = {};
  const decoder = new TextDecoder('utf-8', { fatal: true });
  for (const [path, content] of Object.entries(files)) {
    if (typeof content === 'string') texts[path] = content;
    else {
      let text: string | undefined;
      try {
        text = decoder.decode(content);
      } catch {
        text = undefined;
      }
      if (text !== undefined && !text.includes('\0')) texts[path] = text;
      else skipped.push(`${path} (binary)`);
    }
  }
  return texts;
}

function projectOf(files: Record<string, string>, fallbackTitle: string): Project {
  // A broken manifest still opens; the problems panel says what is wrong with it.
  const title = manifestName(files) ?? fallbackTitle;
  const now = Date.now();
  const openFile = files['src/client/main.tsx'] !== undefined ? 'src/client/main.tsx' : files[MANIFEST_FILE] !== undefined ? MANIFEST_FILE : undefined;
  return { format: PROJECT_FORMAT, id: newProjectId(), title, files, openTabs: openFile ? [openFile] : [], ...(openFile ? { activeFile: openFile } : {}), persona: 'alice', createdAt: now, updatedAt: now };
}

/** A zip's bytes as a new project (not saved yet). */
export function projectFromZip(bytes: Uint8Array, fileName: string): Opened {
  const opened = openZip(bytes);
  if (!opened.ok) return { ok: false, error: { code: opened.error.code, message: opened.error.message + (opened.error.entry ? ` (${opened.error.entry})` : '') } };
  const skipped = [...opened.zip.skipped];
  const files = textFiles(opened.zip.files, skipped);
  const data = dataOf(files);
  if ('error' in data) return { ok: false, error: data.error };
  if (Object.keys(files).length === 0) return { ok: false, error: { code: 'zip_empty', message: 'The zip holds no text file to open.' } };
  return { ok: true, project: projectOf(files, opened.zip.root ?? fileName.replace(/\.zip$/i, '')), skipped, ...(data.data !== undefined ? { data: data.data } : {}) };
}

// In any case: on a disk that ignores case, `.PLATFORM` is `.platform`.
const LEFT_OUT = /(^|\/)(node_modules|\.git|\.platform|__MACOSX)(\/|$)|(^|\/)\.DS_Store$/i;

function readEntries(reader: FileSystemDirectoryReader): Promise<FileSystemEntry[]> {
  return new Promise((resolve, reject) => reader.readEntries(resolve, reject));
}

function fileOf(entry: FileSystemFileEntry): Promise<File> {
  return new Promise((resolve, reject) => entry.file(resolve, reject));
}

/** A dropped folder as a new project: the folder itself is the project's root. */
export async function projectFromFolder(root: FileSystemDirectoryEntry): Promise<Opened> {
  const found: Array<{ path: string; entry: FileSystemFileEntry }> = [];
  const skipped: string[] = [];
  const walk = async (directory: FileSystemDirectoryEntry, prefix: string): Promise<OpenError | undefined> => {
    const reader = directory.createReader();
    for (;;) {
      const batch = await readEntries(reader);
      if (batch.length === 0) return undefined;
      for (const entry of batch) {
        const path = `${prefix}${entry.name}`;
        if (LEFT_OUT.test(path)) {
          skipped.push(path);
          continue;
        }
        const problem = projectPathProblem(path);
        if (problem) return { code: 'folder_unsafe_path', message: `${JSON.stringify(path)} ${problem}.` };
        if (entry.isDirectory) {
          const failed = await walk(entry as FileSystemDirectoryEntry, `${path}/`);
          if (failed) return failed;
        } else if (entry.isFile) {
          if (found.length >= MAX_ZIP_FILES) return { code: 'folder_too_many_files', message: `The folder holds more than ${MAX_ZIP_FILES} files.` };
          found.push({ path, entry: entry as FileSystemFileEntry });
        }
      }
    }
  };
  try {
    const failed = await walk(root, '');
    if (failed) return { ok: false, error: failed };
    const files: Record<string, Uint8Array> = {};
    let total = 0;
    for (const { path, entry } of found) {
      const file = await fileOf(entry);
      if (file.size > MAX_ZIP_ENTRY_BYTES) return { ok: false, error: { code: 'folder_too_large', message: `${path} is over ${MAX_ZIP_ENTRY_BYTES} bytes.` } };
      total += file.size;
      if (total > MAX_ZIP_TOTAL_BYTES) return { ok: false, error: { code: 'folder_too_large', message: `The folder's files total over ${MAX_ZIP_TOTAL_BYTES} bytes.` } };
      files[path] = new Uint8Array(await file.arrayBuffer());
    }
    const setProblem = pathSetProblem(Object.keys(files));
    if (setProblem) return { ok: false, error: { code: 'folder_unsafe_path', message: setProblem } };
    const texts = textFiles(files, skipped);
    // A folder unzipped from a downloaded zip carries the app's data as the zip did.
    const data = dataOf(texts);
    if ('error' in data) return { ok: false, error: data.error };
    if (Object.keys(texts).length === 0) return { ok: false, error: { code: 'folder_empty', message: 'The folder holds no text file to open.' } };
    return { ok: true, project: projectOf(texts, root.name), skipped, ...(data.data !== undefined ? { data: data.data } : {}) };
  } catch (error) {
    return { ok: false, error: { code: 'folder_unreadable', message: `The folder could not be read: ${error instanceof Error ? error.message : String(error)}` } };
  }
}

/** What was dropped: one zip file or one folder. Read synchronously from the event, then awaited. */
export function openDropped(data: DataTransfer): Promise<Opened> {
  const items = [...data.items].filter((item) => item.kind === 'file');
  if (items.length !== 1) return Promise.resolve({ ok: false, error: { code: 'drop_unsupported', message: 'Drop one zip file or one folder.' } });
  const item = items[0]!;
  // Entries must be taken during the drop event: the DataTransfer is emptied once it returns.
  const entry = item.webkitGetAsEntry?.();
  const file = item.getAsFile();
  if (entry?.isDirectory) return projectFromFolder(entry as FileSystemDirectoryEntry);
  if (!file) return Promise.resolve({ ok: false, error: { code: 'drop_unsupported', message: 'The dropped item could not be read.' } });
  return openZipFile(file);
}

export async function openZipFile(file: File): Promise<Opened> {
  if (!/\.zip$/i.test(file.name) && file.type !== 'application/zip' && file.type !== 'application/x-zip-compressed') {
    return { ok: false, error: { code: 'drop_unsupported', message: `${file.name} is not a zip: drop a project's zip or its folder.` } };
  }
  const opened = projectFromZip(new Uint8Array(await file.arrayBuffer()), file.name);
  // The data goes in when the project first runs, as a share link's does.
  if (opened.ok && opened.data !== undefined) await savePendingImport(opened.project.id, opened.data);
  return opened;
}
