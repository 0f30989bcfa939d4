/**
 * The SQL schema of a manifest's `database` block: one table per declared table, with the runtime's
 * columns (`id`, `createdAt`, `updatedAt`), each declared field, its constraints and the declared
 * indexes, plus an internal index on (createdAt, id) that ordering and keyset paging use.
 *
 * Every read returns rows in (createdAt, id) order, so every index a read filters by ends in
 * (createdAt, id): a declared (non-unique) index on `tag` is made on (tag, createdAt, id), and a table
 * under the ownedTable or workspaceTable policy has an index on (ownerId | workspaceId, createdAt, id).
 * Equality on the index's columns then reads rows already in order and stops at the limit, instead of
 * sorting every matching row first. A unique index keeps its declared columns (equality on all of them
 * matches at most one row, which needs no sort).
 *
 * Names starting with `__platform_` are reserved for the platform's own tables and indexes; manifest
 * names cannot start with `_`, so they never clash.
 */
import type { Collation, FieldDeclaration, FieldType, IndexColumn, IndexDeclaration, Manifest, ReferentialAction, TableDeclaration } from '../../manifest/index.ts';
import { quoteIdentifier, type SqlDriver } from '../sql-driver.ts';

export type DatabaseDeclaration = NonNullable<Manifest['database']>;

/** The prefix of every name the platform itself owns in an application's database. */
export const PLATFORM_PREFIX = '__platform_';

const SQL_TYPES: Record<FieldType, string> = {
  string: 'TEXT',
  number: 'REAL',
  boolean: 'INTEGER',
  datetime: 'INTEGER',
  bytes: 'BLOB',
  json: 'TEXT',
  ref: 'TEXT',
};

export const ACTIONS: Record<ReferentialAction, string> = {
  noAction: 'NO ACTION',
  restrict: 'RESTRICT',
  cascade: 'CASCADE',
  setNull: 'SET NULL',
  setDefault: 'SET DEFAULT',
};

export const COLLATIONS: Record<Collation, string> = { binary: 'BINARY', nocase: 'NOCASE', rtrim: 'RTRIM' };

/** An SQL string literal. */
export function quoteString(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

function numberLiteral(value: number): string {
  if (!Number.isFinite(value)) throw new Error(`A default of ${String(value)} cannot be stored.`);
  return value < 0 || Object.is(value, -0) ? `(${value})` : String(value);
}

/** The SQL literal of a field's declared default. */
export function defaultLiteral(tableName: string, fieldName: string, field: FieldDeclaration, value: string | number | boolean): string {
  if (typeof value === 'boolean') return value ? '1' : '0';
  if (field.type === 'datetime' && typeof value === 'string') {
    const ms = Date.parse(value);
    if (Number.isNaN(ms)) throw new Error(`Field "${fieldName}" of ${tableName} is a datetime but its default ${JSON.stringify(value)} is not an ISO 8601 date.`);
    return numberLiteral(ms);
  }
  if (typeof value === 'number') return numberLiteral(value);
  return quoteString(value);
}

/** The name of a declared index in SQL: `<table>__<index>`. */
export function indexName(table: string, index: string): string {
  return `${table}__${index}`;
}

/** The name of the internal (createdAt, id) index of a table. */
export function orderIndexName(table: string): string {
  return `${PLATFORM_PREFIX}order__${table}`;
}

/** The name of the internal index a table policy filters by: (ownerId | workspaceId, createdAt, id). */
export function policyIndexName(table: string): string {
  return `${PLATFORM_PREFIX}policy__${table}`;
}

/** The table policies a server definition can put on a table. */
export type PolicyKind = 'ownedTable' | 'workspaceTable';

/** The field each table policy reads (and filters by). */
export const POLICY_FIELDS: Record<PolicyKind, string> = { ownedTable: 'ownerId', workspaceTable: 'workspaceId' };

/** The columns of an index declaration, in declared order. */
export function indexColumns(index: IndexDeclaration): IndexColumn[] {
  return Array.isArray(index) ? index : index.columns;
}

function columnDefinition(tableName: string, name: string, field: FieldDeclaration): string {
  const column = quoteIdentifier(name);
  const parts = [column, SQL_TYPES[field.type]];
  if (field.generated) parts.push(`GENERATED ALWAYS AS (${field.generated.expression}) ${field.generated.stored ? 'STORED' : 'VIRTUAL'}`);
  if (!field.optional) parts.push('NOT NULL');
  if (field.default !== undefined && !field.generated) parts.push(`DEFAULT ${defaultLiteral(tableName, name, field, field.default)}`);
  if (field.collate) parts.push(`COLLATE ${COLLATIONS[field.collate]}`);
  if (field.unique) parts.push('UNIQUE');
  if (field.type === 'string' && field.maxLength !== undefined) parts.push(`CHECK (length(${column}) <= ${field.maxLength})`);
  if (field.type === 'string' && field.enum) parts.push(`CHECK (${column} IN (${field.enum.map(quoteString).join(', ')}))`);
  if (field.type === 'boolean') parts.push(`CHECK (${column} IN (0, 1))`);
  if (field.type === 'ref' && field.table !== undefined) {
    parts.push(`REFERENCES ${quoteIdentifier(field.table)} ("id")`);
    if (field.onDelete) parts.push(`ON DELETE ${ACTIONS[field.onDelete]}`);
    if (field.onUpdate) parts.push(`ON UPDATE ${ACTIONS[field.onUpdate]}`);
  }
  return parts.join(' ');
}

function indexColumnSql(column: IndexColumn): string {
  if (typeof column === 'string') return quoteIdentifier(column);
  if ('expression' in column) return `(${column.expression})${column.desc ? ' DESC' : ''}`;
  return `${quoteIdentifier(column.column)}${column.collate ? ` COLLATE ${COLLATIONS[column.collate]}` : ''}${column.desc ? ' DESC' : ''}`;
}

/** The CREATE TABLE statement of one table. */
export function createTableStatement(name: string, table: TableDeclaration): string {
  const lines = ['"id" TEXT PRIMARY KEY NOT NULL', '"createdAt" INTEGER NOT NULL', '"updatedAt" INTEGER NOT NULL'];
  for (const [fieldName, field] of Object.entries(table.fields)) lines.push(columnDefinition(name, fieldName, field));
  for (const group of table.unique ?? []) lines.push(`UNIQUE (${group.map(quoteIdentifier).join(', ')})`);
  for (const [checkName, expression] of Object.entries(table.checks ?? {})) lines.push(`CONSTRAINT ${quoteIdentifier(checkName)} CHECK (${expression})`);
  return `CREATE TABLE ${quoteIdentifier(name)} (\n  ${lines.join(',\n  ')}\n)`;
}

const ORDER_COLUMNS = ['createdAt', 'id'] as const;

/**
 * The columns a declared index is made on: its own, then whichever of (createdAt, id) it does not
 * already end in, so that equality on its columns reads rows in the order reads return them. A unique
 * index keeps its columns as declared (adding id would make any set of values unique).
 */
export function storedIndexColumns(declaration: IndexDeclaration): IndexColumn[] {
  const columns = indexColumns(declaration);
  if (!Array.isArray(declaration) && declaration.unique) return columns;
  const plain = columns.map((column) => (typeof column === 'string' ? column : undefined));
  for (let kept = ORDER_COLUMNS.length; kept > 0; kept--) {
    const tail = ORDER_COLUMNS.slice(0, kept);
    if (plain.slice(-kept).every((column, i) => column === tail[i])) return [...columns, ...ORDER_COLUMNS.slice(kept)];
  }
  return [...columns, ...ORDER_COLUMNS];
}

/** The declared index statement in the format of the runtime before declared indexes ended in (createdAt, id). */
export function legacyIndexStatement(name: string, index: string, declaration: IndexDeclaration): string {
  return indexStatement(name, index, declaration, indexColumns(declaration));
}

function indexStatement(name: string, index: string, declaration: IndexDeclaration, columns: readonly IndexColumn[]): string {
  const unique = !Array.isArray(declaration) && declaration.unique ? 'UNIQUE ' : '';
  const where = !Array.isArray(declaration) && declaration.where !== undefined ? ` WHERE ${declaration.where}` : '';
  return `CREATE ${unique}INDEX ${quoteIdentifier(indexName(name, index))} ON ${quoteIdentifier(name)} (${columns.map(indexColumnSql).join(', ')})${where}`;
}

/** The CREATE INDEX statement of the index a table policy filters by. */
export function policyIndexStatement(name: string, policy: PolicyKind): string {
  return `CREATE INDEX ${quoteIdentifier(policyIndexName(name))} ON ${quoteIdentifier(name)} (${quoteIdentifier(POLICY_FIELDS[policy])}, "createdAt", "id")`;
}

/**
 * The CREATE INDEX statements of one table: the internal order index, the declared ones, and the
 * policy's index when the table has a policy (and declares the field the policy filters by).
 */
export function createIndexStatements(name: string, table: TableDeclaration, policy?: PolicyKind): string[] {
  const out = [`CREATE INDEX ${quoteIdentifier(orderIndexName(name))} ON ${quoteIdentifier(name)} ("createdAt", "id")`];
  for (const [index, declaration] of Object.entries(table.indexes ?? {})) out.push(indexStatement(name, index, declaration, storedIndexColumns(declaration)));
  if (policy && Object.hasOwn(table.fields, POLICY_FIELDS[policy])) out.push(policyIndexStatement(name, policy));
  return out;
}

/**
 * Table names ordered so that a referenced table comes before the tables that refer to it (SQLite
 * does not require it, but the schema reads in dependency order). Cycles keep declared order.
 */
export function tableOrder(database: DatabaseDeclaration): string[] {
  const tables = database.tables;
  const out: string[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (name: string) => {
    if (state.has(name)) return;
    state.set(name, 'visiting');
    const table = tables[name];
    if (table) {
      for (const field of Object.values(table.fields)) {
        if (field.type === 'ref' && field.table !== undefined && field.table !== name && Object.hasOwn(tables, field.table)) visit(field.table);
      }
    }
    state.set(name, 'done');
    out.push(name);
  };
  for (const name of Object.keys(tables)) visit(name);
  return out;
}

/** Table policies by table name (the server definition's `authPolicies`). */
export type TablePolicies = ReadonlyMap<string, PolicyKind>;

/** Every statement that creates the schema, in order (pure; `createSchema` runs them). */
export function schemaStatements(database: DatabaseDeclaration, policies: TablePolicies = new Map()): string[] {
  const order = tableOrder(database);
  const out: string[] = [];
  for (const name of order) out.push(createTableStatement(name, database.tables[name]!));
  for (const name of order) out.push(...createIndexStatements(name, database.tables[name]!, policies.get(name)));
  return out;
}

/** Creates every table and index of `database` on an empty database. */
export function createSchema(driver: SqlDriver, database: DatabaseDeclaration, policies?: TablePolicies): void {
  for (const statement of schemaStatements(database, policies)) driver.exec(statement);
}
