/**
 * Open from zip, safely: the archive's central directory is read here (fflate's unzip hides the file
 * type, so it cannot tell a symbolic link), every name is checked before anything is inflated, sizes
 * are capped as declared and as actually inflated (fflate's streaming Inflate, stopped at the cap),
 * and every entry's CRC-32 is verified. A single common top-level folder is stripped.
 */
import type { Result } from '../result.ts';
import { Inflate } from 'fflate';
import { foldedPath, pathSetProblem, projectPathProblem } from '../share/index.ts';
import { crc32 } from './crc32.ts';

/** Largest archive accepted. */
export const MAX_ZIP_BYTES = 64 * 1024 * 1024;
/** Largest entry, uncompressed. */
export const MAX_ZIP_ENTRY_BYTES = 8 * 1024 * 1024;
/** Largest sum of the kept entries, uncompressed. */
export const MAX_ZIP_TOTAL_BYTES = 64 * 1024 * 1024;
/** Most entries in the central directory (folders and skipped entries included). */
export const MAX_ZIP_ENTRIES = 10_000;
/** Most files kept. */
export const MAX_ZIP_FILES = 2000;

/** The stable codes of an archive that cannot be opened (docs/sharing.md). */
export type ZipErrorCode =
  | 'zip_corrupt'
  | 'zip_unsafe_path'
  | 'zip_symlink'
  | 'zip_too_large'
  | 'zip_too_many_entries'
  | 'zip_unsupported'
  | 'zip_empty';

export interface ZipError {
  code: ZipErrorCode;
  message: string;
  /** The entry's name as stored, when one entry is at fault. */
  entry?: string;
}

export interface OpenedZip {
  /** Project-relative path → text (UTF-8 without NUL) or bytes. */
  files: Record<string, string | Uint8Array>;
  /** The single top-level folder that was stripped, if there was one. */
  root?: string;
  /** Entries left out: `__MACOSX/`, `.DS_Store`, and anything inside `node_modules/`, `.git/`, `.platform/` (in any case). */
  skipped: string[];
}

export type OpenZipResult = Result<{ zip: OpenedZip }, { error: ZipError }>;

interface Entry {
  name: string;
  method: number;
  flags: number;
  crc: number;
  compressedSize: number;
  size: number;
  localOffset: number;
  directory: boolean;
}

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;
const S_IFDIR = 0o040000;
const SKIPPED_FOLDERS = new Set(['node_modules', '.git', '.platform']);

class Refusal {
  constructor(readonly error: ZipError) {}
}

function refuse(code: ZipErrorCode, message: string, entry?: string): never {
  throw new Refusal({ code, message, ...(entry !== undefined ? { entry } : {}) });
}

function findEnd(view: DataView): number {
  // The end record is 22 bytes plus a comment of at most 65535 bytes.
  const lowest = Math.max(0, view.byteLength - 22 - 0xffff);
  for (let at = view.byteLength - 22; at >= lowest; at--) {
    if (view.getUint32(at, true) === EOCD && at + 22 + view.getUint16(at + 20, true) === view.byteLength) return at;
  }
  return refuse('zip_corrupt', 'This is not a zip archive (no end of central directory).');
}

function readEntries(bytes: Uint8Array, view: DataView): Entry[] {
  const end = findEnd(view);
  if (view.getUint16(end + 4, true) !== 0 || view.getUint16(end + 6, true) !== 0) refuse('zip_unsupported', 'Archives split over several files are not supported.');
  const count = view.getUint16(end + 10, true);
  const size = view.getUint32(end + 12, true);
  const offset = view.getUint32(end + 16, true);
  if (count === 0xffff || size === 0xffffffff || offset === 0xffffffff) refuse('zip_unsupported', 'ZIP64 archives are not supported.');
  if (count > MAX_ZIP_ENTRIES) refuse('zip_too_many_entries', `The archive has ${count} entries; at most ${MAX_ZIP_ENTRIES} are opened.`);
  if (offset + size > end) refuse('zip_corrupt', 'The central directory lies outside the archive.');
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const entries: Entry[] = [];
  let at = offset;
  for (let i = 0; i < count; i++) {
    if (at + 46 > end || view.getUint32(at, true) !== CENTRAL) refuse('zip_corrupt', 'The central directory is damaged.');
    const madeBy = view.getUint16(at + 4, true) >> 8;
    const flags = view.getUint16(at + 8, true);
    const method = view.getUint16(at + 10, true);
    const crc = view.getUint32(at + 16, true);
    const compressedSize = view.getUint32(at + 20, true);
    const uncompressed = view.getUint32(at + 24, true);
    const nameLength = view.getUint16(at + 28, true);
    const extraLength = view.getUint16(at + 30, true);
    const commentLength = view.getUint16(at + 32, true);
    const external = view.getUint32(at + 38, true);
    const localOffset = view.getUint32(at + 42, true);
    const next = at + 46 + nameLength + extraLength + commentLength;
    if (next > end) refuse('zip_corrupt', 'The central directory is damaged.');
    let name: string;
    try {
      name = decoder.decode(bytes.subarray(at + 46, at + 46 + nameLength));
    } catch {
      refuse('zip_unsafe_path', 'An entry name is not UTF-8 text.');
    }
    const mode = external >>> 16;
    // Unix (3) and macOS (19) archivers keep the file type in the high half of the external attributes.
    const unix = madeBy === 3 || madeBy === 19;
    if (unix && (mode & S_IFMT) === S_IFLNK) refuse('zip_symlink', `${JSON.stringify(name)} is a symbolic link; links are not opened.`, name);
    if (compressedSize === 0xffffffff || uncompressed === 0xffffffff || localOffset === 0xffffffff) refuse('zip_unsupported', 'ZIP64 entries are not supported.', name);
    const directory = name.endsWith('/') || (unix && (mode & S_IFMT) === S_IFDIR) || (external & 0x10) !== 0;
    entries.push({ name, method, flags, crc, compressedSize, size: uncompressed, localOffset, directory });
    at = next;
  }
  return entries;
}

/**
 * Entries inside a folder the playground does not open, or the litter of archivers. Names compare as
 * a case-insensitive disk compares them: `.PLATFORM/x` is inside `.platform/` once unpacked on macOS.
 */
function isSkipped(path: string): boolean {
  const segments = foldedPath(path).split('/');
  if (segments[0] === '__macosx' || segments[segments.length - 1] === '.ds_store') return true;
  return segments.slice(0, -1).some((segment) => SKIPPED_FOLDERS.has(segment));
}

function dataOf(bytes: Uint8Array, view: DataView, entry: Entry): Uint8Array {
  const at = entry.localOffset;
  if (at + 30 > bytes.length || view.getUint32(at, true) !== LOCAL) refuse('zip_corrupt', `The local header of ${JSON.stringify(entry.name)} is damaged.`, entry.name);
  const start = at + 30 + view.getUint16(at + 26, true) + view.getUint16(at + 28, true);
  if (start + entry.compressedSize > bytes.length) refuse('zip_corrupt', `${JSON.stringify(entry.name)} runs past the end of the archive.`, entry.name);
  return bytes.subarray(start, start + entry.compressedSize);
}

/** Inflates one entry, refusing output past its declared size (so a lying header stops at once). */
function inflateEntry(data: Uint8Array, entry: Entry): Uint8Array {
  const out = new Uint8Array(entry.size);
  let length = 0;
  let finished = false;
  let over = false;
  const inflate = new Inflate((chunk, final) => {
    if (length + chunk.length > entry.size) over = true;
    else out.set(chunk, length);
    length += chunk.length;
    if (final) finished = true;
  });
  const FEED = 16 * 1024;
  try {
    for (let offset = 0; offset < data.length && !over; offset += FEED) inflate.push(data.subarray(offset, offset + FEED), offset + FEED >= data.length);
    if (data.length === 0) inflate.push(new Uint8Array(0), true);
  } catch {
    refuse('zip_corrupt', `${JSON.stringify(entry.name)} holds damaged compressed data.`, entry.name);
  }
  if (over) refuse('zip_corrupt', `${JSON.stringify(entry.name)} inflates past its declared size of ${entry.size} bytes.`, entry.name);
  if (!finished || length !== entry.size) refuse('zip_corrupt', `${JSON.stringify(entry.name)} is shorter than its declared size.`, entry.name);
  return out;
}

function asText(bytes: Uint8Array): string | Uint8Array {
  if (bytes.includes(0)) return bytes;
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return bytes;
  }
}

/**
 * Opens a project from a zip archive. Never throws. Refuses, with a stable code: not a zip or damaged
 * (`zip_corrupt`), a name that is absolute, climbs out with `..`, holds a backslash or a control
 * character (`zip_unsafe_path`), a symbolic link (`zip_symlink`), an archive, entry or total over the
 * caps (`zip_too_large`), too many entries (`zip_too_many_entries`), encryption, ZIP64 or a
 * compression other than stored and deflate (`zip_unsupported`), no files (`zip_empty`).
 *
 * @example
 * const result = openZip(new Uint8Array(await file.arrayBuffer()));
 * if (result.ok) createProject(result.zip.files); else show(result.error.message);
 */
export function openZip(bytes: Uint8Array): OpenZipResult {
  try {
    return { ok: true, zip: open(bytes) };
  } catch (error) {
    if (error instanceof Refusal) return { ok: false, error: error.error };
    return { ok: false, error: { code: 'zip_corrupt', message: `The archive cannot be read: ${error instanceof Error ? error.message : String(error)}.` } };
  }
}

function open(bytes: Uint8Array): OpenedZip {
  if (!(bytes instanceof Uint8Array)) refuse('zip_corrupt', 'This is not a zip archive.');
  if (bytes.length > MAX_ZIP_BYTES) refuse('zip_too_large', `The archive is ${bytes.length} bytes; at most ${MAX_ZIP_BYTES} are opened.`);
  if (bytes.length < 22) refuse('zip_corrupt', 'This is not a zip archive (too short).');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const entries = readEntries(bytes, view);

  // Every name is judged before anything is inflated.
  const kept: Array<Entry & { path: string }> = [];
  const skipped: string[] = [];
  /** Folded path → the path as stored. */
  const seen = new Map<string, string>();
  let total = 0;
  for (const entry of entries) {
    const path = entry.directory ? entry.name.replace(/\/+$/, '') : entry.name;
    if (entry.directory && path === '') continue;
    const problem = projectPathProblem(path);
    if (problem) refuse('zip_unsafe_path', `The entry name ${JSON.stringify(entry.name.slice(0, 120))} ${problem}.`, entry.name);
    if (entry.directory) continue;
    if (isSkipped(path)) {
      skipped.push(path);
      continue;
    }
    const other = seen.get(foldedPath(path));
    if (other === path) refuse('zip_corrupt', `The archive holds ${JSON.stringify(path)} twice.`, entry.name);
    if (other !== undefined) refuse('zip_corrupt', `The archive holds ${JSON.stringify(other)} and ${JSON.stringify(path)}, which are one file on a disk that ignores case or Unicode normalisation (macOS, Windows).`, entry.name);
    seen.set(foldedPath(path), path);
    if (entry.flags & 1) refuse('zip_unsupported', `${JSON.stringify(path)} is encrypted.`, entry.name);
    if (entry.method !== 0 && entry.method !== 8) refuse('zip_unsupported', `${JSON.stringify(path)} uses compression method ${entry.method}; only stored and deflate are supported.`, entry.name);
    if (entry.size > MAX_ZIP_ENTRY_BYTES) refuse('zip_too_large', `${JSON.stringify(path)} is ${entry.size} bytes; a file may have at most ${MAX_ZIP_ENTRY_BYTES}.`, entry.name);
    total += entry.size;
    if (total > MAX_ZIP_TOTAL_BYTES) refuse('zip_too_large', `The files add up to more than ${MAX_ZIP_TOTAL_BYTES} bytes.`);
    kept.push({ ...entry, path });
  }
  if (kept.length > MAX_ZIP_FILES) refuse('zip_too_many_entries', `The archive holds ${kept.length} files; at most ${MAX_ZIP_FILES} are opened.`);
  if (kept.length === 0) refuse('zip_empty', 'The archive holds no files.');

  // One common top-level folder (the way a project is zipped) is stripped.
  const first = kept[0]!.path.split('/')[0]!;
  const root = kept.every((e) => e.path.startsWith(`${first}/`)) ? first : undefined;
  const files: Record<string, string | Uint8Array> = {};
  const paths: string[] = [];
  for (const entry of kept) {
    const data = dataOf(bytes, view, entry);
    let content: Uint8Array;
    if (entry.method === 0) {
      if (entry.compressedSize !== entry.size) refuse('zip_corrupt', `${JSON.stringify(entry.path)} has a stored size that disagrees with itself.`, entry.name);
      content = data;
    } else {
      content = inflateEntry(data, entry);
    }
    if (crc32(content) !== entry.crc) refuse('zip_corrupt', `${JSON.stringify(entry.path)} fails its CRC-32 check.`, entry.name);
    const path = root ? entry.path.slice(root.length + 1) : entry.path;
    paths.push(path);
    Object.defineProperty(files, path, { value: asText(content.slice()), enumerable: true, writable: true, configurable: true });
  }
  const clash = pathSetProblem(paths);
  if (clash) refuse('zip_corrupt', `${clash}.`);
  return { files, ...(root ? { root } : {}), skipped };
}
