/**
 * The table handle (`ctx.db.table(name)`): nine methods over one declared table, with the policy of
 * that table applied to every read and write, and every row charged against the call's budgets.
 *
 * Rows are always ordered by (createdAt, id) ascending; `where` is an equality record over `{ id }` or
 * a prefix of a declared index; `page` is keyset paging over (createdAt, id) with signed cursors.
 * Nothing here begins or commits a transaction: the runtime wraps each handler call in one.
 */
import type { FieldDeclaration, TableDeclaration } from '../../manifest/index.ts';
import { didYouMean } from '../../text/index.ts';
import { orderedId, type RuntimeClock } from '../clock.ts';
import type { CursorSigner } from '../cursor.ts';
import { fault } from '../faults.ts';
import type { Meter } from '../limits.ts';
import { quoteIdentifier, type SqlDriver, type SqlValue } from '../sql-driver.ts';
import { indexColumns } from './schema.ts';
import { canonicalSqlValue, decodeRow, encodeValue, isPlainObject, type TableRow } from './values.ts';

export type { TableRow } from './values.ts';

/** A table's policy, already resolved for the caller. */
export type TablePolicyContext = { kind: 'ownedTable'; appUserId: string } | { kind: 'workspaceTable'; workspaceIds: readonly string[] };

/** An equality filter: field name (or `id`) to value. */
export type WhereRecord = Record<string, unknown>;

export interface FindOptions {
  where: WhereRecord;
  limit?: number;
}

export interface PageOptions extends FindOptions {
  cursor?: string;
}

export interface Page {
  rows: TableRow[];
  cursor: string | null;
}

/** The read half of a handle: what a query gets. */
export interface ReadOnlyTableHandle {
  all(): Promise<TableRow[]>;
  get(id: string): Promise<TableRow | null>;
  find(options: FindOptions): Promise<TableRow[]>;
  first(options: { where: WhereRecord }): Promise<TableRow | null>;
  page(options: PageOptions): Promise<Page>;
  count(options: FindOptions): Promise<number>;
}

/** The full handle: what mutations and endpoints get. */
export interface WritableTableHandle extends ReadOnlyTableHandle {
  insert(value: Record<string, unknown>): Promise<TableRow>;
  update(id: string, patch: Record<string, unknown>): Promise<TableRow>;
  delete(id: string): Promise<void>;
}

export type TableHandle = ReadOnlyTableHandle | WritableTableHandle;

/** Whether a handle carries the write methods. */
export function isWritableHandle(handle: TableHandle): handle is WritableTableHandle {
  return 'insert' in handle;
}

/** What the runtime knows about one declared table, computed once. */
export interface TableModel {
  readonly name: string;
  readonly declaration: TableDeclaration;
  /** Declared fields in declared order. */
  readonly fields: ReadonlyArray<readonly [string, FieldDeclaration]>;
  readonly fieldMap: ReadonlyMap<string, FieldDeclaration>;
  readonly applicationIds: boolean;
  /** Key sets a `where` may have (sorted, joined by NUL): every leading plain-column prefix of every declared index. */
  readonly filterKeySets: ReadonlySet<string>;
  /** The quoted SELECT list: runtime columns, then declared fields. */
  readonly selectList: string;
}

const keySetOf = (keys: readonly string[]) => [...keys].sort().join('\u0000');

export function tableModel(name: string, declaration: TableDeclaration): TableModel {
  const fields = Object.entries(declaration.fields);
  const filterKeySets = new Set<string>();
  for (const index of Object.values(declaration.indexes ?? {})) {
    const prefix: string[] = [];
    for (const column of indexColumns(index)) {
      // Only leading plain columns count; an expression ends the usable prefix.
      const name = typeof column === 'string' ? column : 'column' in column ? column.column : undefined;
      if (name === undefined) break;
      prefix.push(name);
      filterKeySets.add(keySetOf(prefix));
    }
  }
  return {
    name,
    declaration,
    fields,
    fieldMap: new Map(fields),
    applicationIds: declaration.idSource === 'application',
    filterKeySets,
    selectList: ['id', 'createdAt', 'updatedAt', ...fields.map(([field]) => field)].map(quoteIdentifier).join(', '),
  };
}

export interface TableContext {
  driver: SqlDriver;
  meter: Meter;
  signer: CursorSigner;
  clock: RuntimeClock;
  policy?: TablePolicyContext | undefined;
  writable: boolean;
  /** Called with each table a successful write changed (this one, and those its deletes cascade into). */
  onWrite?: ((table: string) => void) | undefined;
  /** Called with this table's name before each read (`all`, `get`, `find`, `first`, `page`, `count`): what a query depends on. */
  onRead?: ((table: string) => void) | undefined;
  /** Tables a delete from this table can change through ON DELETE actions. */
  cascades?: readonly string[] | undefined;
}

const ORDER = ' ORDER BY "createdAt", "id"';

/** Compares ids as SQLite's BINARY collation does (UTF-8 bytes, which is code point order). */
function compareText(a: string, b: string): number {
  for (let i = 0, j = 0; i < a.length && j < b.length; ) {
    const x = a.codePointAt(i)!;
    const y = b.codePointAt(j)!;
    if (x !== y) return x - y;
    i += x > 0xffff ? 2 : 1;
    j += y > 0xffff ? 2 : 1;
  }
  return a.length - b.length;
}

/** (createdAt, id) order over stored records, as ORDER BY "createdAt", "id" gives it. */
function byOrder(a: Record<string, SqlValue>, b: Record<string, SqlValue>): number {
  return Number(a.createdAt) - Number(b.createdAt) || compareText(String(a.id), String(b.id));
}
const FIND_OPTIONS = ['where', 'limit'] as const;
const FIRST_OPTIONS = ['where'] as const;
const PAGE_OPTIONS = ['where', 'limit', 'cursor'] as const;

interface Filter {
  conditions: string[];
  params: SqlValue[];
  /** The filter in a stable text form (sorted keys, encoded values), for cursor purposes. */
  canonical: string;
}

/** One table as one handler call sees it. Handles (see `tableHandle`) expose its methods, nothing else. */
export class Table {
  readonly #model: TableModel;
  readonly #context: TableContext;
  readonly #quoted: string;
  readonly #policyConditions: string[] = [];
  readonly #policyParams: SqlValue[] = [];
  /**
   * The policy's filter as reads run it: one part per query. A caller in several workspaces reads each
   * with its own equality (each a search of the policy index in order, stopping at the limit), merged
   * here, since SQLite answers `workspaceId IN (…) ORDER BY createdAt, id` by sorting every row of them.
   */
  readonly #policyParts: Array<{ conditions: string[]; params: SqlValue[] }> = [];
  readonly #workspaces: ReadonlySet<string> | undefined;

  constructor(model: TableModel, context: TableContext) {
    this.#model = model;
    this.#context = context;
    this.#quoted = quoteIdentifier(model.name);
    const policy = context.policy;
    if (policy?.kind === 'ownedTable') {
      this.#requirePolicyField('ownerId', 'ownedTable');
      this.#policyConditions.push('"ownerId" = ?');
      this.#policyParams.push(policy.appUserId);
    } else if (policy?.kind === 'workspaceTable') {
      this.#requirePolicyField('workspaceId', 'workspaceTable');
      this.#workspaces = new Set(policy.workspaceIds);
      const ids = [...this.#workspaces];
      this.#policyConditions.push(ids.length === 0 ? '0' : `"workspaceId" IN (${ids.map(() => '?').join(', ')})`);
      this.#policyParams.push(...ids);
      for (const id of ids) this.#policyParts.push({ conditions: ['"workspaceId" = ?'], params: [id] });
    }
    if (this.#policyParts.length === 0) this.#policyParts.push({ conditions: this.#policyConditions, params: this.#policyParams });
  }

  get name(): string {
    return this.#model.name;
  }

  #requirePolicyField(field: string, policy: string): void {
    const declared = this.#model.fieldMap.get(field);
    if (!declared || declared.type !== 'string' || declared.optional || declared.generated) {
      throw new Error(`Table ${this.#model.name} has the ${policy} policy but does not declare a required string field "${field}".`);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Budgets

  get #queryRows(): number {
    return this.#context.meter.limits.queryRows;
  }

  #budgetExceeded(): Error {
    return new Error(`Query row budget exceeded: this call may read at most ${this.#queryRows} rows.`);
  }

  /** Charges `rows` against queryRows, refusing when the call would pass it. */
  #chargeRead(rows: number): void {
    const meter = this.#context.meter;
    if (meter.rowsRead + rows > this.#queryRows) throw this.#budgetExceeded();
    meter.rowsRead += rows;
  }

  #remainingReads(): number {
    return Math.max(0, this.#queryRows - this.#context.meter.rowsRead);
  }

  #checkWriteBudget(): void {
    const meter = this.#context.meter;
    if (meter.rowsWritten + 1 > meter.limits.mutationWrites) {
      throw new Error(`Mutation write budget exceeded: this call may write at most ${meter.limits.mutationWrites} rows.`);
    }
  }

  #wrote(tables: readonly string[] = []): void {
    this.#context.meter.rowsWritten += 1;
    const onWrite = this.#context.onWrite;
    if (!onWrite) return;
    onWrite(this.#model.name);
    for (const table of tables) onWrite(table);
  }

  // ---------------------------------------------------------------------------------------------
  // Arguments

  #options(method: string, options: unknown, allowed: readonly string[]): Record<string, unknown> {
    if (options === undefined) return {};
    if (!isPlainObject(options)) throw new Error(`${method} on ${this.#model.name} takes an options object such as { where: { … } }.`);
    for (const key of Object.keys(options)) {
      if (allowed.includes(key)) continue;
      const hint =
        key === 'orderBy' || key === 'order'
          ? ' Results are always ordered by createdAt, then id.'
          : key === 'offset' || key === 'skip'
            ? ' Use page() and its cursor to read further.'
            : ` Options: ${allowed.join(', ')}.`;
      throw new Error(`Unknown option "${key}" for ${method} on ${this.#model.name}.${hint}`);
    }
    return options;
  }

  #limit(value: unknown, fallback: number, max: number): number {
    if (value === undefined) return Math.min(fallback, max);
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > max) {
      throw new Error(`limit must be an integer from 1 to ${max}.`);
    }
    return value;
  }

  #id(method: string, id: unknown): string {
    if (typeof id !== 'string') throw new Error(`${method} on ${this.#model.name} needs a string id.`);
    return id;
  }

  #notFound(id: string): Error {
    return new Error(`Record not found: ${this.#model.name}/${id}`);
  }

  #unknownField(key: string): Error {
    const candidates = this.#model.fields.filter(([, field]) => !field.generated).map(([name]) => name);
    const hint = didYouMean(key, candidates);
    return new Error(`Unknown field "${key}" for table ${this.#model.name}.${hint ? ` ${hint}` : ''}`);
  }

  #checkMember(workspaceId: string): void {
    if (this.#workspaces && !this.#workspaces.has(workspaceId)) throw new Error(`Workspace "${workspaceId}" is not one of the caller's workspaces.`);
  }

  /** The conditions of a `where`, with the policy's appended. */
  #filter(where: unknown): Filter {
    const table = this.#model.name;
    const refused = () => new Error(`Filter on ${table} must match the prefix of a declared index.`);
    if (!isPlainObject(where)) throw refused();
    const keys = Object.keys(where);
    const isId = keys.length === 1 && keys[0] === 'id';
    if (!isId && (keys.length === 0 || !this.#model.filterKeySets.has(keySetOf(keys)))) throw refused();
    const conditions: string[] = [];
    const params: SqlValue[] = [];
    const canonical: Array<[string, unknown]> = [];
    for (const key of [...keys].sort()) {
      const value = where[key];
      const column = quoteIdentifier(key);
      if (isId) {
        if (typeof value !== 'string') throw new Error(`Field "id" of ${table} must be a string.`);
        conditions.push(`${column} = ?`);
        params.push(value);
        canonical.push([key, value]);
        continue;
      }
      const field = this.#model.fieldMap.get(key)!;
      if (value === null || value === undefined) {
        // null matches rows where the (optional) field holds no value.
        conditions.push(`${column} IS NULL`);
        canonical.push([key, null]);
        continue;
      }
      const encoded = encodeValue(table, key, field, value, false);
      conditions.push(`${column} = ?`);
      params.push(encoded);
      canonical.push([key, canonicalSqlValue(encoded)]);
    }
    return { conditions, params, canonical: JSON.stringify(canonical) };
  }

  /** No filter of the caller's own: every row the policy lets it see. */
  #policyFilter(): Filter {
    return { conditions: [], params: [], canonical: '[]' };
  }

  // ---------------------------------------------------------------------------------------------
  // SQL

  #whereSql(conditions: readonly string[]): string {
    return conditions.length ? ` WHERE ${conditions.join(' AND ')}` : '';
  }

  /** Rows matching `filter` and the policy, in (createdAt, id) order, at most `limit`, after `after`. */
  #select(filter: Filter, limit: number, after?: { createdAt: number; id: string }): TableRow[] {
    this.#context.onRead?.(this.#model.name);
    const parts = this.#policyParts.map((part) => {
      const conditions = [...filter.conditions, ...part.conditions];
      const params = [...filter.params, ...part.params];
      if (after) {
        conditions.push('("createdAt", "id") > (?, ?)');
        params.push(after.createdAt, after.id);
      }
      const sql = `SELECT ${this.#model.selectList} FROM ${this.#quoted}${this.#whereSql(conditions)}${ORDER} LIMIT ?`;
      return this.#context.driver.all(sql, [...params, limit]);
    });
    const records = parts.length === 1 ? parts[0]! : parts.flat().sort(byOrder).slice(0, limit);
    return records.map((record) => decodeRow(this.#model.fields, record));
  }

  /** How many rows match, counting at most `cap`. */
  #count(filter: Filter, cap: number): number {
    this.#context.onRead?.(this.#model.name);
    let total = 0;
    for (const part of this.#policyParts) {
      if (total >= cap) break;
      const sql = `SELECT COUNT(*) AS "n" FROM (SELECT 1 FROM ${this.#quoted}${this.#whereSql([...filter.conditions, ...part.conditions])} LIMIT ?)`;
      const [record] = this.#context.driver.all(sql, [...filter.params, ...part.params, cap - total]);
      total += Number(record?.n ?? 0);
    }
    return total;
  }

  /** The row with this id, ignoring the policy (the runtime's own read-back after a write). */
  #readBack(id: string): TableRow {
    const [record] = this.#context.driver.all(`SELECT ${this.#model.selectList} FROM ${this.#quoted} WHERE "id" = ?`, [id]);
    if (!record) throw this.#notFound(id);
    return decodeRow(this.#model.fields, record);
  }

  /** The timestamps of the row with this id, if the caller may see it. */
  #visible(id: string): { createdAt: number; updatedAt: number } | undefined {
    const conditions = ['"id" = ?', ...this.#policyConditions];
    const [record] = this.#context.driver.all(`SELECT "createdAt", "updatedAt" FROM ${this.#quoted}${this.#whereSql(conditions)}`, [id, ...this.#policyParams]);
    return record ? { createdAt: Number(record.createdAt), updatedAt: Number(record.updatedAt) } : undefined;
  }

  /**
   * A minted id that sorts after every id stored with the same createdAt (an index seek on the order
   * index, whatever the caller's policy lets it see), so that (createdAt, id) is insertion order.
   */
  #mintId(now: number): string {
    const [last] = this.#context.driver.all(`SELECT "id" FROM ${this.#quoted} WHERE "createdAt" = ? ORDER BY "id" DESC LIMIT 1`, [now]);
    return orderedId(this.#context.clock, now, typeof last?.id === 'string' ? last.id : undefined);
  }

  #now(): number {
    return Math.floor(this.#context.clock.now());
  }

  #purpose(filter: Filter): string {
    return `platform.table.page.v0\n${this.#model.name}\n${filter.canonical}`;
  }

  #requireWritable(method: string): void {
    if (!this.#context.writable) throw new Error(`${method} on ${this.#model.name} is not allowed here: a query cannot write.`);
  }

  // ---------------------------------------------------------------------------------------------
  // Reads

  async all(): Promise<TableRow[]> {
    const queryRows = this.#queryRows;
    const filter = this.#policyFilter();
    const cap = Math.min(queryRows, this.#remainingReads());
    const rows = this.#select(filter, cap + 1);
    if (rows.length > cap) {
      if (this.#count(filter, queryRows + 1) > queryRows) {
        throw new Error(`all on ${this.#model.name} reads more than ${queryRows} rows; read it with page().`);
      }
      throw this.#budgetExceeded();
    }
    this.#chargeRead(rows.length);
    return rows;
  }

  async get(id: string): Promise<TableRow | null> {
    const key = this.#id('get', id);
    const [row] = this.#select({ conditions: ['"id" = ?'], params: [key], canonical: '' }, 1);
    if (!row) return null;
    this.#chargeRead(1);
    return row;
  }

  async find(options: FindOptions): Promise<TableRow[]> {
    const opts = this.#options('find', options, FIND_OPTIONS);
    const filter = this.#filter(opts.where);
    const limit = this.#limit(opts.limit, 100, this.#queryRows);
    const remaining = this.#remainingReads();
    const rows = this.#select(filter, Math.min(limit, remaining + 1));
    if (rows.length > remaining) throw this.#budgetExceeded();
    this.#chargeRead(rows.length);
    return rows;
  }

  async first(options: { where: WhereRecord }): Promise<TableRow | null> {
    const opts = this.#options('first', options, FIRST_OPTIONS);
    const filter = this.#filter(opts.where);
    const [row] = this.#select(filter, 1);
    if (!row) return null;
    this.#chargeRead(1);
    return row;
  }

  async page(options: PageOptions): Promise<Page> {
    const table = this.#model.name;
    const opts = this.#options('page', options, PAGE_OPTIONS);
    const filter = this.#filter(opts.where);
    // page reads one row beyond its limit (to know whether more follow), so the whole budget is too much.
    const max = this.#queryRows - 1;
    if (max < 1) throw new Error(`page on ${table} needs a queryRows budget of at least 2.`);
    const limit = this.#limit(opts.limit, 100, max);
    const purpose = this.#purpose(filter);
    let after: { createdAt: number; id: string } | undefined;
    if ('cursor' in opts && opts.cursor !== undefined) {
      const position = this.#context.signer.verify(purpose, opts.cursor);
      if (!isPlainObject(position) || !Number.isSafeInteger(position.createdAt) || typeof position.id !== 'string') {
        throw new Error(`Invalid cursor for ${table}: pass back a cursor exactly as page() returned it.`);
      }
      after = { createdAt: position.createdAt as number, id: position.id };
    }
    const fetched = this.#select(filter, limit + 1, after);
    const rows = fetched.slice(0, limit);
    this.#chargeRead(rows.length + 1);
    const last = rows[rows.length - 1];
    const cursor = fetched.length > limit && last ? this.#context.signer.sign(purpose, { createdAt: last.createdAt.getTime(), id: last.id }) : null;
    return { rows, cursor };
  }

  async count(options: FindOptions): Promise<number> {
    const opts = this.#options('count', options, FIND_OPTIONS);
    const filter = this.#filter(opts.where);
    const queryRows = this.#queryRows;
    const limit = opts.limit === undefined ? undefined : this.#limit(opts.limit, queryRows, queryRows);
    this.#chargeRead(1);
    const counted = this.#count(filter, limit ?? queryRows + 1);
    if (limit === undefined && counted > queryRows) {
      throw new Error(`count on ${this.#model.name} matches more than ${queryRows} rows; pass a limit to cap the count.`);
    }
    return counted;
  }

  // ---------------------------------------------------------------------------------------------
  // Writes

  async insert(value: Record<string, unknown>): Promise<TableRow> {
    this.#requireWritable('insert');
    const { name: table, fields, fieldMap, applicationIds } = this.#model;
    if (!isPlainObject(value)) throw new Error(`insert on ${table} needs an object of field values.`);
    const policy = this.#context.policy;
    const given = (key: string) => (Object.hasOwn(value, key) ? value[key] : undefined);

    for (const key of Object.keys(value)) {
      if (key === 'id') {
        if (!applicationIds && value.id !== undefined) throw new Error(`Field "id" of ${table} is minted by the runtime; remove it from the insert.`);
        continue;
      }
      if (key === 'createdAt' || key === 'updatedAt') {
        if (value[key] !== undefined) throw new Error(`Field "${key}" of ${table} is set by the runtime and cannot be written.`);
        continue;
      }
      const field = fieldMap.get(key);
      if (!field) throw this.#unknownField(key);
      if (field.generated && value[key] !== undefined) throw new Error(`Field "${key}" of ${table} is generated and cannot be written.`);
    }

    const now = this.#now();
    let id: string;
    if (applicationIds) {
      const chosen = given('id');
      if (chosen === undefined || chosen === null) throw new Error(`Missing required field "id" for table ${table}.`);
      if (typeof chosen !== 'string' || chosen === '') throw new Error(`Field "id" of ${table} must be a non-empty string.`);
      id = chosen;
    } else {
      id = this.#mintId(now);
    }

    const columns: string[] = [];
    const params: SqlValue[] = [];
    for (const [name, field] of fields) {
      if (field.generated) continue;
      let item = given(name);
      // The ownedTable policy owns the owner field: a value given is replaced.
      if (policy?.kind === 'ownedTable' && name === 'ownerId') item = policy.appUserId;
      if (item === undefined) {
        // Omitted (or undefined): the declared default applies, or an optional field holds no value.
        if (field.optional || field.default !== undefined) continue;
        throw new Error(`Missing required field "${name}" for table ${table}.`);
      }
      if (item === null) {
        if (!field.optional) throw new Error(`Field "${name}" of ${table} is required and cannot be null.`);
        columns.push(name);
        params.push(null);
        continue;
      }
      const encoded = encodeValue(table, name, field, item);
      if (policy?.kind === 'workspaceTable' && name === 'workspaceId') this.#checkMember(item as string);
      columns.push(name);
      params.push(encoded);
    }

    this.#checkWriteBudget();
    if (applicationIds && this.#context.driver.all(`SELECT 1 AS "x" FROM ${this.#quoted} WHERE "id" = ?`, [id]).length > 0) {
      throw fault('unique_violation', `Record ${table}/${id} already exists.`, 409);
    }
    const all = ['id', 'createdAt', 'updatedAt', ...columns];
    this.#context.driver.exec(
      `INSERT INTO ${this.#quoted} (${all.map(quoteIdentifier).join(', ')}) VALUES (${all.map(() => '?').join(', ')})`,
      [id, now, now, ...params],
    );
    this.#wrote();
    return this.#readBack(id);
  }

  async update(id: string, patch: Record<string, unknown>): Promise<TableRow> {
    this.#requireWritable('update');
    const key = this.#id('update', id);
    const { name: table, fieldMap } = this.#model;
    if (!isPlainObject(patch)) throw new Error(`update on ${table} needs an object of field values.`);
    const policy = this.#context.policy;
    const sets: string[] = [];
    const params: SqlValue[] = [];
    for (const name of Object.keys(patch)) {
      const item = patch[name];
      if (name === 'id') throw new Error(`update on ${table} does not accept "id": a row's id never changes.`);
      if (name === 'createdAt' || name === 'updatedAt') {
        if (item !== undefined) throw new Error(`Field "${name}" of ${table} is set by the runtime and cannot be written.`);
        continue;
      }
      const field = fieldMap.get(name);
      if (!field) throw this.#unknownField(name);
      if (field.generated) {
        if (item !== undefined) throw new Error(`Field "${name}" of ${table} is generated and cannot be written.`);
        continue;
      }
      if (policy?.kind === 'ownedTable' && name === 'ownerId') {
        if (item !== undefined) throw new Error('ownerId is managed by the ownedTable policy.');
        continue;
      }
      const column = quoteIdentifier(name);
      if (item === undefined || item === null) {
        // null or undefined removes an optional field's value; undefined leaves a required one as it is.
        if (field.optional) sets.push(`${column} = NULL`);
        else if (item === null) throw new Error(`Field "${name}" of ${table} is required and cannot be null.`);
        continue;
      }
      const encoded = encodeValue(table, name, field, item);
      if (policy?.kind === 'workspaceTable' && name === 'workspaceId') this.#checkMember(item as string);
      sets.push(`${column} = ?`);
      params.push(encoded);
    }

    this.#checkWriteBudget();
    const current = this.#visible(key);
    if (!current) throw this.#notFound(key);
    // updatedAt never goes backwards, whatever the clock does.
    const updatedAt = Math.max(this.#now(), current.updatedAt, current.createdAt);
    sets.push('"updatedAt" = ?');
    params.push(updatedAt);
    this.#context.driver.exec(`UPDATE ${this.#quoted} SET ${sets.join(', ')} WHERE "id" = ?`, [...params, key]);
    this.#wrote();
    return this.#readBack(key);
  }

  async delete(id: string): Promise<void> {
    this.#requireWritable('delete');
    const key = this.#id('delete', id);
    this.#checkWriteBudget();
    if (!this.#visible(key)) throw this.#notFound(key);
    this.#context.driver.exec(`DELETE FROM ${this.#quoted} WHERE "id" = ?`, [key]);
    this.#wrote(this.#context.cascades);
  }
}

/**
 * The handle a handler gets: a frozen object of bound methods, holding no driver. A read-only handle
 * has no insert/update/delete properties at all.
 */
export function tableHandle(table: Table, writable: boolean): TableHandle {
  const reader: ReadOnlyTableHandle = {
    all: () => table.all(),
    get: (id) => table.get(id),
    find: (options) => table.find(options),
    first: (options) => table.first(options),
    page: (options) => table.page(options),
    count: (options) => table.count(options),
  };
  if (!writable) return Object.freeze(reader);
  const writer: WritableTableHandle = {
    ...reader,
    insert: (value) => table.insert(value),
    update: (id, patch) => table.update(id, patch),
    delete: (id) => table.delete(id),
  };
  return Object.freeze(writer);
}
