/**
 * Reads back the declaration a database was made for from its own SQL, for databases whose meta table
 * holds only the schema hash (made before the runtime kept the declaration itself). The tables and
 * indexes were created by `schemaStatements`, so each statement is parsed in that format and the
 * result is checked by generating the statements again: a table whose SQL does not come back exactly
 * is reported as unreadable, never guessed.
 *
 * What SQL cannot tell apart is taken from `hint` (the new declaration): a plain TEXT column is a
 * `json` field when the hint says so (else `string`); `idSource` and `version` leave no trace in SQL.
 */
import type { Collation, FieldDeclaration, IndexColumn, IndexDeclaration, ReferentialAction, TableDeclaration } from '../../manifest/index.ts';
import { quoteIdentifier, type SqlDriver } from '../sql-driver.ts';
import { ACTIONS, COLLATIONS, createIndexStatements, createTableStatement, indexName, legacyIndexStatement, PLATFORM_PREFIX, type DatabaseDeclaration } from './schema.ts';
import type { SchemaProblem } from './schema-change.ts';

/** The application's tables and indexes as SQLite stores them. */
export interface StoredSql {
  /** Table name → its CREATE TABLE statement. */
  tables: Map<string, string>;
  /** Table name → index name → its CREATE INDEX statement (the order index included, SQLite's own left out). */
  indexes: Map<string, Map<string, string>>;
}

const APP_TABLE = /^[A-Za-z][A-Za-z0-9_]*$/;

/** The app's tables (manifest-shaped names; not the platform's `__platform_*`, not SQLite's own) and their indexes. */
export function readStoredSql(driver: SqlDriver): StoredSql {
  const tables = new Map<string, string>();
  const indexes = new Map<string, Map<string, string>>();
  for (const row of driver.all(`SELECT type, name, tbl_name, sql FROM sqlite_master WHERE type IN ('table', 'index') AND sql IS NOT NULL ORDER BY name`)) {
    const name = String(row.name);
    const table = String(row.tbl_name);
    if (!APP_TABLE.test(table) || table.startsWith('sqlite_')) continue;
    if (row.type === 'table') tables.set(name, String(row.sql));
    else {
      if (!indexes.has(table)) indexes.set(table, new Map());
      indexes.get(table)!.set(name, String(row.sql));
    }
  }
  return { tables, indexes };
}

class Cursor {
  constructor(
    public text: string,
    public at = 0,
  ) {}
  take(prefix: string): boolean {
    if (!this.text.startsWith(prefix, this.at)) return false;
    this.at += prefix.length;
    return true;
  }
  get done(): boolean {
    return this.at >= this.text.length;
  }
  /** A quoted identifier or string literal at the cursor (`"…"` or `'…'`, doubled quotes inside). */
  quoted(quote: '"' | "'"): string | undefined {
    if (this.text[this.at] !== quote) return undefined;
    let out = '';
    let i = this.at + 1;
    for (;;) {
      const next = this.text.indexOf(quote, i);
      if (next < 0) return undefined;
      out += this.text.slice(i, next);
      if (this.text[next + 1] === quote) {
        out += quote;
        i = next + 2;
        continue;
      }
      this.at = next + 1;
      return out;
    }
  }
  /** Text up to the parenthesis that closes one already opened, skipping quoted parts and nested pairs. */
  balanced(): string | undefined {
    let depth = 1;
    for (let i = this.at; i < this.text.length; i++) {
      const c = this.text[i];
      if (c === "'" || c === '"') {
        const end = this.text.indexOf(c, i + 1);
        if (end < 0) return undefined;
        i = end;
        // A doubled quote re-enters the literal on the next loop turn, which is equivalent.
      } else if (c === '(') depth++;
      else if (c === ')' && --depth === 0) {
        const out = this.text.slice(this.at, i);
        this.at = i + 1;
        return out;
      }
    }
    return undefined;
  }
  /** Quoted items separated by `, ` up to `end`: `'a', 'b'))` or `"x", "y")`. */
  quotedList(quote: '"' | "'", end: string): string[] | undefined {
    const items: string[] = [];
    for (;;) {
      const item = this.quoted(quote);
      if (item === undefined) return undefined;
      items.push(item);
      if (this.take(end)) return items;
      if (!this.take(', ')) return undefined;
    }
  }
  word<T extends string>(choices: Record<T, string>): T | undefined {
    for (const [key, sql] of Object.entries(choices) as Array<[T, string]>) if (this.take(sql)) return key;
    return undefined;
  }
}

const SQL_KIND = /^(TEXT|REAL|INTEGER|BLOB)/;

function parseDefault(text: string, field: FieldDeclaration): string | number | boolean | undefined {
  if (text.startsWith("'")) return new Cursor(text).quoted("'");
  const number = Number(text.startsWith('(') && text.endsWith(')') ? text.slice(1, -1) : text);
  if (!Number.isFinite(number)) return undefined;
  if (field.type === 'boolean') return number !== 0;
  if (field.type === 'datetime') return new Date(number).toISOString();
  return number;
}

/** One field's column definition, as `columnDefinition` in schema.ts writes it. */
function parseField(line: string, hintTable: TableDeclaration | undefined): [string, FieldDeclaration] | undefined {
  const cursor = new Cursor(line);
  const name = cursor.quoted('"');
  if (name === undefined || !cursor.take(' ')) return undefined;
  const kind = SQL_KIND.exec(line.slice(cursor.at))?.[1];
  if (!kind) return undefined;
  cursor.at += kind.length;
  const field: FieldDeclaration = { type: kind === 'REAL' ? 'number' : kind === 'BLOB' ? 'bytes' : kind === 'INTEGER' ? 'datetime' : 'string' };
  if (cursor.take(' GENERATED ALWAYS AS (')) {
    const expression = cursor.balanced();
    if (expression === undefined) return undefined;
    if (cursor.take(' STORED')) field.generated = { expression, stored: true };
    else if (cursor.take(' VIRTUAL')) field.generated = { expression };
    else return undefined;
  }
  if (!cursor.take(' NOT NULL')) field.optional = true;
  let defaultText: string | undefined;
  if (cursor.take(' DEFAULT ')) {
    const start = cursor.at;
    if (line[start] === "'") cursor.quoted("'");
    else if (line[start] === '(') {
      cursor.at++;
      cursor.balanced();
    } else while (!cursor.done && line[cursor.at] !== ' ') cursor.at++;
    defaultText = line.slice(start, cursor.at);
  }
  if (cursor.take(' COLLATE ')) {
    const collate = cursor.word<Collation>(COLLATIONS);
    if (!collate) return undefined;
    field.collate = collate;
  }
  if (cursor.take(' UNIQUE')) field.unique = true;
  const column = quoteIdentifier(name);
  if (cursor.take(` CHECK (length(${column}) <= `)) {
    const digits = /^\d+/.exec(line.slice(cursor.at))?.[0];
    if (!digits || !cursor.take(`${digits})`)) return undefined;
    field.maxLength = Number(digits);
  }
  if (cursor.take(` CHECK (${column} IN (`)) {
    if (cursor.take('0, 1))')) field.type = 'boolean';
    else {
      const values = cursor.quotedList("'", '))');
      if (!values) return undefined;
      field.enum = values;
    }
  }
  if (cursor.take(' REFERENCES ')) {
    const table = cursor.quoted('"');
    if (table === undefined || !cursor.take(' ("id")')) return undefined;
    field.type = 'ref';
    field.table = table;
    if (cursor.take(' ON DELETE ')) field.onDelete = cursor.word<ReferentialAction>(ACTIONS);
    if (cursor.take(' ON UPDATE ')) field.onUpdate = cursor.word<ReferentialAction>(ACTIONS);
  }
  if (!cursor.done) return undefined;
  if (defaultText !== undefined) {
    const value = parseDefault(defaultText, field);
    if (value === undefined) return undefined;
    field.default = value;
  }
  // TEXT without string-only options is a json field when the new declaration says so: SQL cannot tell.
  if (field.type === 'string' && hintTable?.fields[name]?.type === 'json' && field.maxLength === undefined && !field.enum && !field.collate) field.type = 'json';
  return [name, field];
}

/** Splits at top-level `, ` (outside parentheses and quotes). */
function splitList(text: string): string[] | undefined {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "'" || c === '"') {
      const end = text.indexOf(c, i + 1);
      if (end < 0) return undefined;
      i = end;
    } else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0 && text[i + 1] === ' ') {
      out.push(text.slice(start, i));
      start = i + 2;
      i++;
    }
  }
  out.push(text.slice(start));
  return out;
}

function parseIndex(sql: string, table: string, sqlName: string): IndexDeclaration | undefined {
  const cursor = new Cursor(sql);
  const unique = cursor.take('CREATE UNIQUE INDEX ');
  if (!unique && !cursor.take('CREATE INDEX ')) return undefined;
  if (!cursor.take(`${quoteIdentifier(sqlName)} ON ${quoteIdentifier(table)} (`)) return undefined;
  const list = cursor.balanced();
  const items = list === undefined ? undefined : splitList(list);
  if (!items) return undefined;
  const columns: IndexColumn[] = [];
  for (const item of items) {
    const part = new Cursor(item);
    let column: IndexColumn;
    if (part.take('(')) {
      const expression = part.balanced();
      if (expression === undefined) return undefined;
      column = { expression, ...(part.take(' DESC') ? { desc: true } : {}) };
    } else {
      const name = part.quoted('"');
      if (name === undefined) return undefined;
      const collate = part.take(' COLLATE ') ? part.word<Collation>(COLLATIONS) : undefined;
      const desc = part.take(' DESC');
      column = collate || desc ? { column: name, ...(collate ? { collate } : {}), ...(desc ? { desc } : {}) } : name;
    }
    if (!part.done) return undefined;
    columns.push(column);
  }
  const where = cursor.take(' WHERE ') ? sql.slice(cursor.at) : undefined;
  if (where === undefined && !cursor.done) return undefined;
  if (!unique && where === undefined && columns.every((c) => typeof c === 'string')) return columns as string[];
  return { columns, ...(unique ? { unique } : {}), ...(where !== undefined ? { where } : {}) };
}

/** One table's declaration from its SQL, or undefined when the SQL is not in the runtime's format. */
function parseTable(name: string, sql: string, indexes: ReadonlyMap<string, string>, hint: TableDeclaration | undefined): TableDeclaration | undefined {
  const head = `CREATE TABLE ${quoteIdentifier(name)} (\n  `;
  if (!sql.startsWith(head) || !sql.endsWith('\n)')) return undefined;
  const lines = sql.slice(head.length, -2).split(',\n  ');
  const runtime = ['"id" TEXT PRIMARY KEY NOT NULL', '"createdAt" INTEGER NOT NULL', '"updatedAt" INTEGER NOT NULL'];
  if (runtime.some((line, i) => lines[i] !== line)) return undefined;
  const table: TableDeclaration = { fields: {} };
  for (const line of lines.slice(runtime.length)) {
    if (line.startsWith('UNIQUE (')) {
      const cursor = new Cursor(line, 'UNIQUE ('.length);
      const group = cursor.quotedList('"', ')');
      if (!group || !cursor.done) return undefined;
      (table.unique ??= []).push(group);
    } else if (line.startsWith('CONSTRAINT ')) {
      const cursor = new Cursor(line, 'CONSTRAINT '.length);
      const check = cursor.quoted('"');
      if (check === undefined || !cursor.take(' CHECK (') || !line.endsWith(')')) return undefined;
      (table.checks ??= {})[check] = line.slice(cursor.at, -1);
    } else {
      const parsed = parseField(line, hint);
      if (!parsed) return undefined;
      table.fields[parsed[0]] = parsed[1];
    }
  }
  // Declared indexes are stored in this runtime's format (ending in createdAt, id) or, made before
  // that, on their declared columns; either reads back, and is checked by generating it again.
  const current = new Map<string, string>();
  const legacy = new Map<string, string>();
  for (const [sqlName, indexSql] of indexes) {
    // The platform's own indexes (order, policy) carry no declaration; syncIndexes makes them as wanted.
    if (sqlName.startsWith(PLATFORM_PREFIX)) continue;
    const prefix = indexName(name, '');
    if (!sqlName.startsWith(prefix)) return undefined;
    const declaration = parseIndex(indexSql, name, sqlName);
    if (!declaration) return undefined;
    const index = sqlName.slice(prefix.length);
    (table.indexes ??= {})[index] = withoutOrderColumns(declaration);
    current.set(index, indexSql);
    if (legacyIndexStatement(name, index, declaration) === indexSql) legacy.set(index, indexSql);
  }
  if (hint?.idSource) table.idSource = hint.idSource;
  // The statements must come back exactly, or the table is not read. An index in the earlier format
  // reads back as declared (its columns as stored).
  for (const [index, indexSql] of current) {
    const declaration = table.indexes![index]!;
    if (createIndexStatements(name, { fields: {}, indexes: { [index]: declaration } })[1] === indexSql) continue;
    const raw = parseIndex(indexSql, name, indexName(name, index))!;
    if (!legacy.has(index)) return undefined;
    table.indexes![index] = raw;
  }
  return createTableStatement(name, table) === sql ? table : undefined;
}

/**
 * A declared index as stored in this runtime's format, with the (createdAt, id) it ends in taken off
 * again (a unique index is stored as declared). An index declared on (tag, createdAt, id) reads back
 * as (tag): the same SQL, the same filters on tag.
 */
function withoutOrderColumns(declaration: IndexDeclaration): IndexDeclaration {
  const columns = Array.isArray(declaration) ? declaration : declaration.columns;
  if (!Array.isArray(declaration) && declaration.unique) return declaration;
  const [createdAt, id] = columns.slice(-2);
  if (columns.length < 3 || createdAt !== 'createdAt' || id !== 'id') return declaration;
  const kept = columns.slice(0, -2);
  return Array.isArray(declaration) ? (kept as string[]) : { ...declaration, columns: kept };
}

/**
 * The declaration a database's tables were made for, read from their SQL. Tables whose SQL is not in
 * the runtime's format are problems ("could not be read"), to be refused rather than changed.
 */
export function declarationFromSql(stored: StoredSql, hint: DatabaseDeclaration | null): { database: DatabaseDeclaration | null; problems: SchemaProblem[] } {
  const problems: SchemaProblem[] = [];
  const tables: Record<string, TableDeclaration> = {};
  for (const [name, sql] of stored.tables) {
    const table = parseTable(name, sql, stored.indexes.get(name) ?? new Map(), hint?.tables[name]);
    if (table) tables[name] = table;
    else problems.push({ table: name, reason: 'its stored SQL is not in the form this runtime writes, so the change cannot be checked against it' });
  }
  if (stored.tables.size === 0 && hint === null) return { database: null, problems };
  return { database: { tables, ...(hint?.version !== undefined ? { version: hint.version } : {}) }, problems };
}
