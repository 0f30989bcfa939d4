/**
 * Download as zip: a project's files under one folder named after the app, so that the extracted
 * folder is a project `platform check <folder>` and `platform test <folder>` accept as it is.
 */
import type { Result } from '../result.ts';
import { zipSync, type Zippable } from 'fflate';
import { pathSetProblem, projectPathProblem } from '../share/index.ts';

export interface ZipProjectOptions {
  /** The top-level folder; by default the manifest's `name`, or `project`. */
  folder?: string;
}

export type ZipProjectResult = Result<{ bytes: Uint8Array; folder: string }, { error: { code: 'zip_unsafe_path'; message: string } }>;

const APP_NAME = /^[a-z][a-z0-9-]{1,62}$/;
/** A fixed time for every entry, so the same files give the same archive (ZIP stores local time fields). */
const MTIME = new Date(2026, 0, 1, 0, 0, 0);

function manifestName(files: Record<string, string | Uint8Array>): string | undefined {
  const text = files['app.manifest.json'];
  if (typeof text !== 'string') return undefined;
  try {
    const name = (JSON.parse(text) as { name?: unknown }).name;
    return typeof name === 'string' && APP_NAME.test(name) ? name : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Zips the files (path → text or bytes) under `<folder>/`, deflated, in path order, with Unix
 * permissions 0644 and a fixed time: the same project gives the same bytes. Refuses a path that is
 * not a safe project-relative path (it could not be extracted where it belongs).
 *
 * @example
 * const result = zipProject(project.files);
 * if (result.ok) download(new Blob([result.bytes]), `${result.folder}.zip`);
 */
export function zipProject(files: Record<string, string | Uint8Array>, options: ZipProjectOptions = {}): ZipProjectResult {
  const folder = options.folder ?? manifestName(files) ?? 'project';
  const folderProblem = projectPathProblem(folder);
  if (folderProblem || folder.includes('/')) return { ok: false, error: { code: 'zip_unsafe_path', message: `The folder name ${JSON.stringify(folder)} ${folderProblem ?? 'has a slash'}.` } };
  const paths = Object.keys(files).sort();
  for (const path of paths) {
    const problem = projectPathProblem(path);
    if (problem) return { ok: false, error: { code: 'zip_unsafe_path', message: `The file path ${JSON.stringify(path.slice(0, 80))} ${problem}.` } };
  }
  const clash = pathSetProblem(paths);
  if (clash) return { ok: false, error: { code: 'zip_unsafe_path', message: `${clash}.` } };
  const encoder = new TextEncoder();
  const entries: Zippable = {};
  for (const path of paths) {
    const data = files[path]!;
    Object.defineProperty(entries, `${folder}/${path}`, {
      value: [typeof data === 'string' ? encoder.encode(data) : data, { os: 3, attrs: 0o100644 << 16 }],
      enumerable: true,
    });
  }
  return { ok: true, bytes: zipSync(entries, { level: 9, mtime: MTIME }), folder };
}
