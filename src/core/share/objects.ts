/**
 * Stored objects beside a state export: how share links and zips carry an app's objects.
 *
 * A `platform.state-export.v0` document holds database records only (docs/decisions.md). Objects
 * travel beside it, each as `{ key, contentType, uploadedAt, data }` with `data` the bytes in
 * base64url; a zip and a link's pending import hold both in one `platform.project-data.v0` document
 * (`{ protocol, state?, objects }`). Everything here is checked as input from a stranger: a key that is
 * not a storage key, bad base64, an oversize total are refused with a stable code, and nothing is
 * written before the whole list passed.
 */
import type { Result } from '../result.ts';
import { isValidKey } from '../runtime/index.ts';
import { decodeBase64url, encodeBase64url } from '../bytes.ts';

/** Total bytes of the objects one share link carries (the rest are named as left out). */
export const MAX_LINK_OBJECT_BYTES = 256 * 1024;
/** Total bytes of the objects one zip carries (its platform-data.json stays under the 8 MiB a zip entry may hold). */
export const MAX_ZIP_OBJECT_BYTES = 4 * 1024 * 1024;
/** Most objects carried by a link or a zip. */
export const MAX_SHARED_OBJECTS = 1000;
/** Longest content type. */
export const MAX_CONTENT_TYPE_CHARS = 256;
/** The document a zip's `platform-data.json` and a link's pending import hold. */
export const PROJECT_DATA_PROTOCOL = 'platform.project-data.v0';
/** The file of a zip that holds its data (database records and stored objects). */
export const PROJECT_DATA_FILE = 'platform-data.json';

/** An object with its bytes, as the object store holds it. */
export interface ObjectEntry {
  key: string;
  contentType: string;
  /** Milliseconds since the epoch. */
  uploadedAt: number;
  bytes: Uint8Array;
}

/** An object as a link or a zip carries it: the bytes in base64url. */
export interface SharedObject {
  key: string;
  contentType: string;
  uploadedAt: number;
  data: string;
}

export type SharedObjectsErrorCode = 'stored_objects_invalid' | 'stored_objects_too_large';

export interface SharedObjectsError {
  code: SharedObjectsErrorCode;
  message: string;
}

export type SharedObjectsResult = Result<{ objects: ObjectEntry[] }, { error: SharedObjectsError }>;

/** An object left out of a link or zip, and why. */
export interface LeftOutObject {
  key: string;
  size: number;
}

const OBJECT_KEYS = new Set(['key', 'contentType', 'uploadedAt', 'data']);
const CONTENT_TYPE = /^[\x21-\x7e][\x20-\x7e]*$/;

/** A plain object (from JSON.parse or a literal), not an array, null or a class instance. */
export function isPlainRecord(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

const quoted = (text: unknown): string => JSON.stringify(String(text).slice(0, 80));

export function toSharedObject(entry: ObjectEntry): SharedObject {
  return { key: entry.key, contentType: entry.contentType, uploadedAt: entry.uploadedAt, data: encodeBase64url(entry.bytes) };
}

/**
 * Which of the listed objects fit in `budget` bytes, in key order: the first that fit are taken, each
 * that does not (or past MAX_SHARED_OBJECTS) is left out and named.
 */
export function chooseObjects<T extends { key: string; size: number }>(listed: readonly T[], budget: number): { included: T[]; leftOut: LeftOutObject[] } {
  const included: T[] = [];
  const leftOut: LeftOutObject[] = [];
  let total = 0;
  for (const object of listed) {
    if (included.length < MAX_SHARED_OBJECTS && total + object.size <= budget) {
      included.push(object);
      total += object.size;
    } else leftOut.push({ key: object.key, size: object.size });
  }
  return { included, leftOut };
}

/**
 * Checks and decodes the objects a link or zip carries: an array of at most MAX_SHARED_OBJECTS
 * `SharedObject`s, keys that are storage keys and appear once, bytes totalling at most `maxBytes`.
 *
 * @example
 * const read = parseSharedObjects(payload.objects, MAX_LINK_OBJECT_BYTES);
 * if (!read.ok) show(read.error.code, read.error.message); // nothing is written
 */
export function parseSharedObjects(value: unknown, maxBytes: number): SharedObjectsResult {
  const invalid = (message: string): SharedObjectsResult => ({ ok: false, error: { code: 'stored_objects_invalid', message } });
  if (!Array.isArray(value)) return invalid('"objects" is not a list of stored objects');
  if (value.length > MAX_SHARED_OBJECTS) return { ok: false, error: { code: 'stored_objects_too_large', message: `${value.length} stored objects; at most ${MAX_SHARED_OBJECTS} travel` } };
  const objects: ObjectEntry[] = [];
  const seen = new Set<string>();
  let total = 0;
  for (const [index, item] of value.entries()) {
    if (!isPlainRecord(item)) return invalid(`stored object ${index} is not an object`);
    for (const key of Object.keys(item)) if (!OBJECT_KEYS.has(key)) return invalid(`stored object ${index} has an unknown key ${quoted(key)}`);
    if (!isValidKey(item.key)) return invalid(`stored object ${index} has ${quoted(item.key)}, which is not a storage key`);
    if (seen.has(item.key)) return invalid(`the stored object ${quoted(item.key)} appears twice`);
    seen.add(item.key);
    if (typeof item.contentType !== 'string' || item.contentType.length > MAX_CONTENT_TYPE_CHARS || !CONTENT_TYPE.test(item.contentType)) {
      return invalid(`the stored object ${quoted(item.key)} has no usable content type`);
    }
    if (typeof item.uploadedAt !== 'number' || !Number.isSafeInteger(item.uploadedAt) || item.uploadedAt < 0) return invalid(`the stored object ${quoted(item.key)} has no usable upload time`);
    if (typeof item.data !== 'string') return invalid(`the stored object ${quoted(item.key)} has no data`);
    // Checked before decoding: base64 holds 3 bytes in 4 characters.
    if (total + Math.floor((item.data.length * 3) / 4) > maxBytes) {
      return { ok: false, error: { code: 'stored_objects_too_large', message: `the stored objects total more than ${maxBytes} bytes` } };
    }
    const bytes = decodeBase64url(item.data);
    if (typeof bytes === 'string') return invalid(`the data of the stored object ${quoted(item.key)} is not base64url (${bytes})`);
    total += bytes.length;
    objects.push({ key: item.key, contentType: item.contentType, uploadedAt: item.uploadedAt, bytes });
  }
  return { ok: true, objects };
}

/** A `platform.project-data.v0` document's parts: the state export (as given) and the objects. */
export interface ProjectData {
  state?: unknown;
  objects: ObjectEntry[];
}

export type ProjectDataResult = Result<{ data: ProjectData }, { error: SharedObjectsError }>;

/** The text of a `platform.project-data.v0` document. */
export function projectDataText(state: unknown, objects: readonly SharedObject[]): string {
  return JSON.stringify({ protocol: PROJECT_DATA_PROTOCOL, ...(state !== undefined ? { state } : {}), objects });
}

/** Whether a parsed JSON value claims to be a project-data document (then `parseProjectData` judges it). */
export function isProjectDataDocument(value: unknown): value is Record<string, unknown> {
  return isPlainRecord(value) && value.protocol === PROJECT_DATA_PROTOCOL;
}

/** Checks a parsed `platform.project-data.v0` document; its `state` is left to the state import's own checks. */
export function parseProjectData(value: unknown, maxObjectBytes: number): ProjectDataResult {
  if (!isProjectDataDocument(value)) return { ok: false, error: { code: 'stored_objects_invalid', message: `not a ${PROJECT_DATA_PROTOCOL} document` } };
  for (const key of Object.keys(value)) if (!['protocol', 'state', 'objects'].includes(key)) return { ok: false, error: { code: 'stored_objects_invalid', message: `unknown key ${quoted(key)}` } };
  const objects = parseSharedObjects(value.objects ?? [], maxObjectBytes);
  if (!objects.ok) return objects;
  return { ok: true, data: { ...(value.state !== undefined ? { state: value.state } : {}), objects: objects.objects } };
}
