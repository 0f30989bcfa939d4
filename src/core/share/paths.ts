/** The rules a project file path must meet when it arrives from outside (a share link, a zip). */

/** Longest accepted path, in UTF-16 code units. */
export const MAX_PATH_LENGTH = 512;
/** Longest accepted path segment, in UTF-16 code units (common file systems allow 255). */
export const MAX_SEGMENT_LENGTH = 255;

/**
 * Why `path` is not a safe project-relative POSIX path, or undefined when it is: 1 to 512 characters,
 * `/`-separated non-empty segments, no `.` or `..` segment, not absolute (`/x`, `C:x`), no backslash
 * and no control character. Such a path can be written under any folder without leaving it.
 */
export function projectPathProblem(path: unknown): string | undefined {
  if (typeof path !== 'string') return 'is not a string';
  if (path.length === 0) return 'is empty';
  if (path.length > MAX_PATH_LENGTH) return `is longer than ${MAX_PATH_LENGTH} characters`;
  if (path.startsWith('/')) return 'is absolute';
  if (/^[A-Za-z]:/.test(path)) return 'starts with a drive letter';
  if (path.includes('\\')) return 'contains a backslash';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(path)) return 'contains a control character';
  for (const segment of path.split('/')) {
    if (segment === '') return 'has an empty segment';
    if (segment === '.' || segment === '..') return `has a "${segment}" segment`;
    if (segment.length > MAX_SEGMENT_LENGTH) return `has a segment longer than ${MAX_SEGMENT_LENGTH} characters`;
  }
  return undefined;
}

/**
 * A path as a disk that ignores case and Unicode normalisation sees it (macOS and Windows by default):
 * `A.ts` and `a.ts`, or `é` composed (NFC) and decomposed (NFD), are one file there.
 */
export function foldedPath(path: string): string {
  return path.normalize('NFC').toLowerCase();
}

/**
 * Why a set of safe paths cannot all be files of one folder, or undefined: two paths that are one file
 * on a disk that ignores case or Unicode normalisation (`a.ts` and `A.ts`; NFC and NFD spellings), or a
 * path that is also the folder of another (`a` and `a/b`, `A` and `a/b`), cannot exist side by side.
 */
export function pathSetProblem(paths: Iterable<string>): string | undefined {
  const files = new Map<string, string>();
  for (const path of paths) {
    const key = foldedPath(path);
    const other = files.get(key);
    if (other !== undefined && other !== path) return `"${other}" and "${path}" are one file on a disk that ignores case or Unicode normalisation (macOS, Windows)`;
    files.set(key, path);
  }
  for (const [key, path] of files) {
    for (let i = key.indexOf('/'); i !== -1; i = key.indexOf('/', i + 1)) {
      const folder = files.get(key.slice(0, i));
      if (folder !== undefined) return `"${folder}" is both a file and the folder of "${path}"`;
    }
  }
  return undefined;
}
