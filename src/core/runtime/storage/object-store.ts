/**
 * Where stored objects live, behind one interface. The runtime keeps them in the application's own
 * SQLite database (table `__platform_objects`), so the single transaction wrapped around a handler
 * call covers storage writes too: a failed mutation leaves neither rows nor objects behind.
 *
 * Stores take keys as given: validation, budgets and limits belong to the storage API (storage.ts).
 */
import type { SqlDriver, SqlValue } from '../sql-driver.ts';
import { quoteIdentifier } from '../sql-driver.ts';

export interface StoredRecord {
  key: string;
  /** Bytes. */
  size: number;
  contentType: string;
  /** Milliseconds since the epoch. */
  uploadedAt: number;
}

export interface ObjectStore {
  head(key: string): Promise<StoredRecord | null>;
  get(key: string): Promise<(StoredRecord & { bytes: Uint8Array }) | null>;
  /** Stores the object, replacing any existing one under its key. */
  put(record: StoredRecord & { bytes: Uint8Array }): Promise<void>;
  /** Removes the object; a no-op when the key holds nothing. */
  delete(key: string): Promise<void>;
  /** Keys in ascending byte order, starting after `after` (exclusive) when given, with the prefix, at most `limit`. */
  list(options: { prefix: string; after?: string; limit: number }): Promise<StoredRecord[]>;
}

/** The table holding an application's objects. */
export const OBJECTS_TABLE = '__platform_objects';
/** The bytes of an object past its first chunk, one row per chunk. */
export const CHUNKS_TABLE = '__platform_object_chunks';
/**
 * The most bytes one row holds: an engine may cap a value's size (a Durable Object's SQLite allows
 * 2 MB), so a larger object is split: its first chunk in its row, the rest in `__platform_object_chunks`.
 */
export const CHUNK_BYTES = 1024 * 1024;

const TABLE = quoteIdentifier(OBJECTS_TABLE);
const CHUNKS = quoteIdentifier(CHUNKS_TABLE);
/** Past every character: `key < prefix || char(0x10FFFF)` closes the range of keys starting with prefix. */
const TOP_CHARACTER = 0x10ffff;

function toNumber(value: SqlValue | undefined, column: string): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  throw new Error(`${OBJECTS_TABLE}.${column} holds a non-number.`);
}

function toText(value: SqlValue | undefined, column: string): string {
  if (typeof value === 'string') return value;
  throw new Error(`${OBJECTS_TABLE}.${column} holds a non-string.`);
}

function toRecord(row: Record<string, SqlValue>): StoredRecord {
  return {
    key: toText(row['key'], 'key'),
    size: toNumber(row['size'], 'size'),
    contentType: toText(row['contentType'], 'contentType'),
    uploadedAt: toNumber(row['uploadedAt'], 'uploadedAt'),
  };
}

function toBytes(value: SqlValue | undefined): Uint8Array {
  if (value instanceof Uint8Array) return value;
  // An empty BLOB can come back as NULL from some bindings; a string never should, but is decoded.
  if (value === null || value === undefined) return new Uint8Array(0);
  if (typeof value === 'string') return new TextEncoder().encode(value);
  throw new Error(`${OBJECTS_TABLE}.bytes holds a non-blob.`);
}

/**
 * Objects in the application's SQLite database. Begins and commits nothing: the runtime wraps each
 * handler call in one transaction. Creates the table when missing.
 */
export class SqlObjectStore implements ObjectStore {
  readonly #driver: SqlDriver;

  constructor(driver: SqlDriver) {
    this.#driver = driver;
    // Looked up first, so a read-only call (which may not even run DDL) creates nothing.
    const present = driver.all(`SELECT name FROM sqlite_master WHERE type = 'table' AND name IN (?, ?)`, [OBJECTS_TABLE, CHUNKS_TABLE]);
    if (!present.some((row) => row['name'] === OBJECTS_TABLE)) {
      driver.exec(
        `CREATE TABLE ${TABLE} (` +
          'key TEXT COLLATE BINARY PRIMARY KEY NOT NULL, ' +
          'size INTEGER NOT NULL, ' +
          'contentType TEXT NOT NULL, ' +
          'uploadedAt INTEGER NOT NULL, ' +
          'bytes BLOB NOT NULL' +
          ')',
      );
    }
    if (!present.some((row) => row['name'] === CHUNKS_TABLE)) {
      driver.exec(`CREATE TABLE ${CHUNKS} (key TEXT COLLATE BINARY NOT NULL, seq INTEGER NOT NULL, bytes BLOB NOT NULL, PRIMARY KEY (key, seq))`);
    }
  }

  async head(key: string): Promise<StoredRecord | null> {
    const row = this.#driver.all(`SELECT key, size, contentType, uploadedAt FROM ${TABLE} WHERE key = ?`, [key])[0];
    return row ? toRecord(row) : null;
  }

  async get(key: string): Promise<(StoredRecord & { bytes: Uint8Array }) | null> {
    const row = this.#driver.all(`SELECT key, size, contentType, uploadedAt, bytes FROM ${TABLE} WHERE key = ?`, [key])[0];
    if (!row) return null;
    const record = toRecord(row);
    const first = toBytes(row['bytes']);
    if (first.byteLength >= record.size) return { ...record, bytes: first };
    const bytes = new Uint8Array(record.size);
    bytes.set(first);
    let offset = first.byteLength;
    for (const chunk of this.#driver.all(`SELECT bytes FROM ${CHUNKS} WHERE key = ? ORDER BY seq`, [key])) {
      const part = toBytes(chunk['bytes']);
      bytes.set(part.subarray(0, Math.max(0, record.size - offset)), offset);
      offset += part.byteLength;
    }
    return { ...record, bytes };
  }

  async put(record: StoredRecord & { bytes: Uint8Array }): Promise<void> {
    const { bytes } = record;
    this.#driver.exec(
      `INSERT INTO ${TABLE} (key, size, contentType, uploadedAt, bytes) VALUES (?, ?, ?, ?, ?) ` +
        'ON CONFLICT (key) DO UPDATE SET size = excluded.size, contentType = excluded.contentType, ' +
        'uploadedAt = excluded.uploadedAt, bytes = excluded.bytes',
      [record.key, record.size, record.contentType, record.uploadedAt, bytes.byteLength > CHUNK_BYTES ? bytes.subarray(0, CHUNK_BYTES) : bytes],
    );
    this.#driver.exec(`DELETE FROM ${CHUNKS} WHERE key = ?`, [record.key]);
    for (let offset = CHUNK_BYTES, seq = 1; offset < bytes.byteLength; offset += CHUNK_BYTES, seq++) {
      this.#driver.exec(`INSERT INTO ${CHUNKS} (key, seq, bytes) VALUES (?, ?, ?)`, [record.key, seq, bytes.subarray(offset, offset + CHUNK_BYTES)]);
    }
  }

  async delete(key: string): Promise<void> {
    this.#driver.exec(`DELETE FROM ${TABLE} WHERE key = ?`, [key]);
    this.#driver.exec(`DELETE FROM ${CHUNKS} WHERE key = ?`, [key]);
  }

  async list(options: { prefix: string; after?: string; limit: number }): Promise<StoredRecord[]> {
    const conditions: string[] = [];
    const params: SqlValue[] = [];
    if (options.prefix !== '') {
      // A range, not LIKE: `_` and `*` in a prefix are literal characters, and the key index is used.
      conditions.push(`key >= ? AND key < ? || char(${TOP_CHARACTER})`);
      params.push(options.prefix, options.prefix);
    }
    if (options.after !== undefined) {
      conditions.push('key > ?');
      params.push(options.after);
    }
    const where = conditions.length > 0 ? ` WHERE ${conditions.join(' AND ')}` : '';
    params.push(Math.max(0, Math.floor(options.limit)));
    const rows = this.#driver.all(
      `SELECT key, size, contentType, uploadedAt FROM ${TABLE}${where} ORDER BY key COLLATE BINARY ASC LIMIT ?`,
      params,
    );
    return rows.map(toRecord);
  }
}

/** Compares strings by code point, which is the byte order of their UTF-8 encodings (SQLite BINARY). */
export function compareKeys(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; ) {
    const x = a.codePointAt(i)!;
    const y = b.codePointAt(i)!;
    if (x !== y) return x < y ? -1 : 1;
    i += x > 0xffff ? 2 : 1;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

/** Objects in a Map, for tests of code that needs no SQL. Copies bytes in and out, like a real store. */
export class MemoryObjectStore implements ObjectStore {
  readonly #objects = new Map<string, StoredRecord & { bytes: Uint8Array }>();

  async head(key: string): Promise<StoredRecord | null> {
    const object = this.#objects.get(key);
    return object ? { key: object.key, size: object.size, contentType: object.contentType, uploadedAt: object.uploadedAt } : null;
  }

  async get(key: string): Promise<(StoredRecord & { bytes: Uint8Array }) | null> {
    const object = this.#objects.get(key);
    return object ? { ...object, bytes: new Uint8Array(object.bytes) } : null;
  }

  async put(record: StoredRecord & { bytes: Uint8Array }): Promise<void> {
    this.#objects.set(record.key, {
      key: record.key,
      size: record.size,
      contentType: record.contentType,
      uploadedAt: record.uploadedAt,
      bytes: new Uint8Array(record.bytes),
    });
  }

  async delete(key: string): Promise<void> {
    this.#objects.delete(key);
  }

  async list(options: { prefix: string; after?: string; limit: number }): Promise<StoredRecord[]> {
    const { prefix, after } = options;
    return [...this.#objects.keys()]
      .filter((key) => key.startsWith(prefix) && (after === undefined || compareKeys(key, after) > 0))
      .sort(compareKeys)
      .slice(0, Math.max(0, Math.floor(options.limit)))
      .map((key) => {
        const object = this.#objects.get(key)!;
        return { key, size: object.size, contentType: object.contentType, uploadedAt: object.uploadedAt };
      });
  }
}
