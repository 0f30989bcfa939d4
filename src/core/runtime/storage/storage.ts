/**
 * `ctx.storage`: the object-storage API handlers see (runtime.md, "Storage API (ctx.storage)").
 * Queries get a reader (get, head, list); mutations and endpoints get a writer (all five).
 *
 * Budgets: `get` charges the object's declared size to `readBytes`, judged before anything is
 * transferred; `put` charges its byte length to `writeBytes`, judged before the write, after the
 * `maxObjectBytes` check. `head` and `list` are free. The runtime gives each handler call a fresh
 * Meter, which is what resets the budgets.
 */
import type { RuntimeClock } from '../clock.ts';
import type { CursorSigner } from '../cursor.ts';
import type { Meter } from '../limits.ts';
import { validateKey, validatePrefix } from './keys.ts';
import type { ObjectStore, StoredRecord } from './object-store.ts';

import type { StoredObject, StoredObjectMetadata } from '../../../modules/server.ts';

export type { StoredObject, StoredObjectMetadata };

/** What `put` answers. */
export interface StorageReceipt {
  key: string;
  size: number;
  contentType: string;
  uploadedAt: Date;
}

export interface ListOptions {
  prefix?: string;
  cursor?: string;
  limit?: number;
}

export interface ObjectList {
  objects: StoredObjectMetadata[];
  /** Pass back to get the next page; null exactly when nothing further exists. */
  cursor: string | null;
}

export interface PutOptions {
  contentType?: string;
}

/** `ctx.storage` in a query. */
export interface StorageReader {
  get(key: string): Promise<StoredObject | null>;
  head(key: string): Promise<StoredObjectMetadata | null>;
  list(options?: ListOptions): Promise<ObjectList>;
}

/** `ctx.storage` in a mutation or endpoint. */
export interface StorageWriter extends StorageReader {
  put(key: string, value: Uint8Array | string, options?: PutOptions): Promise<StorageReceipt>;
  delete(key: string): Promise<void>;
}

export interface StorageOptions {
  store: ObjectStore;
  /** This handler call's meter (fresh per call). */
  meter: Meter;
  /** Signs and verifies `list` cursors. */
  signer: CursorSigner;
  /** Stamps `uploadedAt`. */
  clock: RuntimeClock;
  /** True for mutations and endpoints: the result then has `put` and `delete`. */
  writable: boolean;
  /** Called after every successful `put` or `delete` (the runtime notes that the call wrote). */
  onWrite?(): void;
  /** Called before every `get`, `head` and `list` (the runtime notes that the call depends on the store). */
  onRead?(): void;
}

export const DEFAULT_CONTENT_TYPE = 'application/octet-stream';
export const DEFAULT_LIST_LIMIT = 100;
export const MAX_LIST_LIMIT = 1000;

export const LIST_LIMIT_MESSAGE = `limit must be an integer from 1 to ${MAX_LIST_LIMIT}.`;
export const INVALID_CURSOR_MESSAGE = 'Invalid cursor for storage.list: pass back a cursor exactly as list() returned it.';

export function readBudgetMessage(readBytes: number): string {
  return `Storage read byte budget exceeded (${readBytes} bytes).`;
}

export function writeBudgetMessage(writeBytes: number): string {
  return `Storage write byte budget exceeded (${writeBytes} bytes).`;
}

export function maxObjectBytesMessage(maxObjectBytes: number, size: number): string {
  return `Storage object exceeds the declared maxObjectBytes of ${maxObjectBytes}: ${size} bytes.`;
}

/** The purpose a `list` cursor is signed under: it only verifies for the same prefix. */
export function listCursorPurpose(prefix: string): string {
  return `storage.list:${prefix}`;
}

const encoder = new TextEncoder();

function metadata(record: StoredRecord): StoredObjectMetadata {
  return { key: record.key, size: record.size, contentType: record.contentType, uploadedAt: new Date(record.uploadedAt) };
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') {
    const tag = Object.prototype.toString.call(value).slice(8, -1);
    return tag === 'Object' ? 'an object' : `a ${tag}`;
  }
  return `a ${typeof value}`;
}

/** A Uint8Array of this realm over the same memory, or undefined when `value` is no Uint8Array. */
function asBytes(value: unknown): Uint8Array | undefined {
  if (value instanceof Uint8Array) return value;
  // A Uint8Array from another realm (a worker message, a vm context): same bytes, local view.
  if (ArrayBuffer.isView(value) && Object.prototype.toString.call(value) === '[object Uint8Array]') {
    const view = value as unknown as { buffer: ArrayBuffer; byteOffset: number; byteLength: number };
    return new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
  }
  return undefined;
}

function encodeValue(value: unknown): Uint8Array {
  if (typeof value === 'string') return encoder.encode(value);
  const bytes = asBytes(value);
  if (bytes) return bytes;
  throw new Error(`storage.put accepts a Uint8Array or a string as the value, not ${typeName(value)}.`);
}

function contentTypeOf(options: unknown): string {
  if (options === undefined || options === null) return DEFAULT_CONTENT_TYPE;
  if (typeof options !== 'object') throw new Error('storage.put options must be an object such as { contentType }.');
  const contentType = (options as PutOptions).contentType;
  if (contentType === undefined) return DEFAULT_CONTENT_TYPE;
  if (typeof contentType !== 'string' || contentType === '') {
    throw new Error('storage.put contentType must be a non-empty string.');
  }
  return contentType;
}

function listLimitOf(limit: unknown): number {
  if (limit === undefined) return DEFAULT_LIST_LIMIT;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_LIST_LIMIT) {
    throw new Error(LIST_LIMIT_MESSAGE);
  }
  return limit;
}

/** Queries: get, head and list only; the object has no `put` or `delete` property at all. */
export function createStorage(options: StorageOptions & { writable: false }): StorageReader;
/** Mutations and endpoints: all five methods. */
export function createStorage(options: StorageOptions & { writable: true }): StorageWriter;
export function createStorage(options: StorageOptions): StorageReader | StorageWriter;
export function createStorage(options: StorageOptions): StorageReader | StorageWriter {
  const { store, meter, signer, clock } = options;
  const limits = meter.limits;

  async function get(key: string): Promise<StoredObject | null> {
    options.onRead?.();
    const valid = validateKey(key);
    // Judge the declared size before transferring anything.
    const declared = await store.head(valid);
    if (!declared) return null;
    if (meter.bytesRead + declared.size > limits.readBytes) throw new Error(readBudgetMessage(limits.readBytes));
    const object = await store.get(valid);
    if (!object) return null;
    // The transfer is charged by what actually arrived (the same, unless the store changed meanwhile).
    const size = Math.max(object.size, object.bytes.byteLength);
    if (meter.bytesRead + size > limits.readBytes) throw new Error(readBudgetMessage(limits.readBytes));
    meter.bytesRead += size;
    // The public type promises ArrayBuffer-backed bytes (usable as a Response body): copy only when shared.
    const bytes = object.bytes.buffer instanceof ArrayBuffer ? (object.bytes as Uint8Array<ArrayBuffer>) : new Uint8Array(object.bytes);
    return { ...metadata(object), bytes };
  }

  async function head(key: string): Promise<StoredObjectMetadata | null> {
    options.onRead?.();
    const record = await store.head(validateKey(key));
    return record ? metadata(record) : null;
  }

  async function list(listOptions?: ListOptions): Promise<ObjectList> {
    options.onRead?.();
    if (listOptions !== undefined && listOptions !== null && typeof listOptions !== 'object') {
      throw new Error('storage.list options must be an object such as { prefix, cursor, limit }.');
    }
    const given: ListOptions = listOptions ?? {};
    const prefix = given.prefix === undefined ? '' : validatePrefix(given.prefix);
    const limit = listLimitOf(given.limit);
    let after: string | undefined;
    if (given.cursor !== undefined) {
      const position = signer.verify(listCursorPurpose(prefix), given.cursor);
      if (typeof position !== 'string') throw new Error(INVALID_CURSOR_MESSAGE);
      after = position;
    }
    // One more than asked: its presence is what says a further page exists.
    const records = await store.list(after === undefined ? { prefix, limit: limit + 1 } : { prefix, after, limit: limit + 1 });
    const page = records.slice(0, limit);
    const last = page[page.length - 1];
    const cursor = records.length > limit && last ? signer.sign(listCursorPurpose(prefix), last.key) : null;
    return { objects: page.map(metadata), cursor };
  }

  const reader: StorageReader = { get, head, list };
  if (!options.writable) return Object.freeze(reader);

  async function put(key: string, value: Uint8Array | string, putOptions?: PutOptions): Promise<StorageReceipt> {
    const valid = validateKey(key);
    const bytes = encodeValue(value);
    const contentType = contentTypeOf(putOptions);
    const size = bytes.byteLength;
    if (size > limits.maxObjectBytes) throw new Error(maxObjectBytesMessage(limits.maxObjectBytes, size));
    if (meter.bytesWritten + size > limits.writeBytes) throw new Error(writeBudgetMessage(limits.writeBytes));
    const uploadedAt = clock.now();
    await store.put({ key: valid, size, contentType, uploadedAt, bytes });
    meter.bytesWritten += size;
    options.onWrite?.();
    return { key: valid, size, contentType, uploadedAt: new Date(uploadedAt) };
  }

  async function remove(key: string): Promise<void> {
    const valid = validateKey(key);
    await store.delete(valid);
    options.onWrite?.();
  }

  const writer: StorageWriter = { get, head, list, put, delete: remove };
  return Object.freeze(writer);
}
