/**
 * Field values between JavaScript and SQLite: validation of what a handler writes (or filters on),
 * encoding to SQL values, and decoding stored values back into row fields.
 *
 * Encodings: string/ref → TEXT, number → REAL, boolean → INTEGER 0/1, datetime → INTEGER (ms since
 * the epoch), bytes → BLOB, json → TEXT (JSON text). SQL NULL is "no value": the field is absent.
 */
import type { FieldDeclaration } from '../../manifest/index.ts';
import type { SqlValue } from '../sql-driver.ts';

/** A row as reads return it: the declared fields that hold a value, plus the runtime's own three. */
export type TableRow = { id: string; createdAt: Date; updatedAt: Date } & Record<string, unknown>;

/** The columns the runtime owns on every row. */
export const RUNTIME_COLUMNS = ['id', 'createdAt', 'updatedAt'] as const;

/** A plain object: `{}` literals and `Object.create(null)`, not arrays, Dates or class instances. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

function tagOf(value: unknown): string {
  return Object.prototype.toString.call(value).slice(8, -1);
}

/** A real, valid Date (recognised across realms by its tag). */
export function isValidDate(value: unknown): value is Date {
  return tagOf(value) === 'Date' && !Number.isNaN((value as Date).getTime());
}

/** A Uint8Array (or a subclass such as Node's Buffer), recognised across realms by its tag. */
export function isBytes(value: unknown): value is Uint8Array {
  return value instanceof Uint8Array || tagOf(value) === 'Uint8Array';
}

/** Why `value` is not JSON-shaped, or undefined when it is. `path` names the place in messages. */
export function jsonProblem(value: unknown, path: string, seen: Set<object> = new Set()): string | undefined {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return undefined;
    case 'number':
      return Number.isFinite(value) ? undefined : `${path} is ${String(value)}, not a finite number`;
    case 'undefined':
      return `${path} is undefined`;
    case 'bigint':
      return `${path} is a bigint`;
    case 'function':
      return `${path} is a function`;
    case 'symbol':
      return `${path} is a symbol`;
  }
  if (value === null) return undefined;
  const object = value as object;
  if (seen.has(object)) return `${path} refers back to itself`;
  if (Array.isArray(object)) {
    seen.add(object);
    for (let i = 0; i < object.length; i++) {
      const problem = jsonProblem(object[i], `${path}[${i}]`, seen);
      if (problem) return problem;
    }
    seen.delete(object);
    return undefined;
  }
  if (!isPlainObject(object)) return `${path} is a ${tagOf(object)}, not a plain object`;
  seen.add(object);
  for (const [key, item] of Object.entries(object)) {
    // An undefined property is dropped, as JSON.stringify drops it (absent, like an optional field).
    if (item === undefined) continue;
    const problem = jsonProblem(item, /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`, seen);
    if (problem) return problem;
  }
  seen.delete(object);
  return undefined;
}

/** Characters as SQLite's length() counts them (code points), so the JS check agrees with the CHECK. */
function characterCount(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

function listValues(values: readonly string[]): string {
  const shown = values.slice(0, 10).map((v) => JSON.stringify(v));
  return values.length > 10 ? `${shown.join(', ')}, … (${values.length} values)` : shown.join(', ');
}

/**
 * Validates a non-null value for `field` and encodes it for SQL. Throws an ordinary Error naming the
 * table and field. Used for written values and for `where` values alike; a filter (`constraints`
 * false) is typed like the field but not held to its enum or maxLength: it simply matches nothing.
 */
export function encodeValue(table: string, name: string, field: FieldDeclaration, value: unknown, constraints = true): SqlValue {
  const subject = `Field "${name}" of ${table}`;
  switch (field.type) {
    case 'string': {
      if (typeof value !== 'string') throw new Error(`${subject} must be a string.`);
      if (constraints && field.enum && !field.enum.includes(value)) throw new Error(`${subject} must be one of ${listValues(field.enum)}.`);
      if (constraints && field.maxLength !== undefined && characterCount(value) > field.maxLength) {
        throw new Error(`${subject} must be at most ${field.maxLength} characters long.`);
      }
      return value;
    }
    case 'ref':
      if (typeof value !== 'string') throw new Error(`${subject} must be a string (the id of a row of ${field.table ?? 'its table'}).`);
      return value;
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) throw new Error(`${subject} must be a finite number.`);
      return value;
    case 'boolean':
      if (typeof value !== 'boolean') throw new Error(`${subject} must be a boolean.`);
      return value ? 1 : 0;
    case 'datetime':
      if (!isValidDate(value)) throw new Error(`${subject} must be a valid Date.`);
      return value.getTime();
    case 'bytes':
      if (!isBytes(value)) throw new Error(`${subject} must be a Uint8Array.`);
      // A plain copy: the caller may keep mutating its array, and subclasses (Buffer) bind the same.
      return new Uint8Array(value);
    case 'json': {
      const problem = jsonProblem(value, name);
      if (problem) throw new Error(`${subject} must be JSON-serializable: ${problem}.`);
      return JSON.stringify(value);
    }
  }
}

/** Decodes a stored SQL value of `field`; undefined means "no value" (the field is absent). */
export function decodeValue(field: FieldDeclaration, value: SqlValue | undefined): unknown {
  if (value === null || value === undefined) return undefined;
  switch (field.type) {
    case 'string':
    case 'ref':
      return typeof value === 'string' ? value : String(value);
    case 'number':
      return Number(value);
    case 'boolean':
      return Number(value) !== 0;
    case 'datetime':
      return new Date(Number(value));
    case 'bytes':
      // A text value in a BLOB column can only come from outside the runtime; its code units are kept.
      return isBytes(value) ? new Uint8Array(value) : Uint8Array.from(String(value), (c) => c.charCodeAt(0) & 255);
    case 'json':
      return JSON.parse(String(value)) as unknown;
  }
}

/** Decodes a selected record (runtime columns, then declared fields) into a row. */
export function decodeRow(fields: ReadonlyArray<readonly [string, FieldDeclaration]>, record: Record<string, SqlValue>): TableRow {
  const row: Record<string, unknown> = { id: String(record.id) };
  for (const [name, field] of fields) {
    const value = decodeValue(field, record[name]);
    if (value !== undefined) row[name] = value;
  }
  row.createdAt = new Date(Number(record.createdAt));
  row.updatedAt = new Date(Number(record.updatedAt));
  return row as TableRow;
}

/** A stable text form of an encoded value, for canonical filters (cursor purposes). */
export function canonicalSqlValue(value: SqlValue): unknown {
  if (value instanceof Uint8Array) {
    let hex = '';
    for (const byte of value) hex += byte.toString(16).padStart(2, '0');
    return { $bytes: hex };
  }
  if (typeof value === 'bigint') return { $bigint: value.toString() };
  return value;
}
