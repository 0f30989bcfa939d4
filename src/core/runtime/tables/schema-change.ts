/**
 * Schema changes that keep data: which changes of a `database` declaration the rows already stored can
 * follow, decided the same way wherever a declaration meets data (the runtime opening a database, a
 * state import of an older export). Pure: the caller says what the data holds through `DataFacts`.
 *
 * The rules (docs/runtime.md, "Schema changes" has them as one table): a table without rows takes any
 * change; on a table with rows a change applies when it only widens what the table accepts, and a
 * change that would lose or reinterpret stored values, or narrow what the rows must satisfy, is
 * refused with a problem naming the table, the field (or index, check) and the reason.
 */
import { canonicalJson, sha256Hex } from '../../hash/index.ts';
import type { FieldDeclaration, IndexDeclaration, TableDeclaration } from '../../manifest/index.ts';
import { POLICY_FIELDS, type DatabaseDeclaration, type PolicyKind } from './schema.ts';

/** The schema identity of a declaration (hex): what a database's meta table and a state export record. */
export function databaseIdentity(database: DatabaseDeclaration | null): string {
  return sha256Hex(canonicalJson({ database }));
}

export { POLICY_FIELDS, type PolicyKind } from './schema.ts';

/** One reason a change cannot keep the data. */
export interface SchemaProblem {
  table: string;
  field?: string;
  index?: string;
  check?: string;
  reason: string;
}

/** What the stored data holds, as far as the rules need to know. */
export interface DataFacts {
  /** Rows stored in a table of the old declaration. */
  rows(table: string): number;
  /** Rows whose value of `field` is neither absent (null) nor the field's declared default. */
  rowsHolding(table: string, field: string, declaration: FieldDeclaration): number;
}

export interface SchemaComparison {
  /** Empty when the data can follow the change. */
  problems: SchemaProblem[];
  /**
   * Per table present in both declarations: the fields whose stored values are copied into the new
   * table as they are (same type, or ref → string; neither generated). Other new fields take their
   * default, or stay absent.
   */
  carried: Record<string, string[]>;
}

/** The stable code of a refused schema change, whatever the message says. */
export const SCHEMA_CHANGE_REFUSED = 'schema_change_refused';

/** Thrown by the runtime when a database cannot follow its new declaration; nothing was changed. */
export interface SchemaChangeRefused extends Error {
  readonly code: typeof SCHEMA_CHANGE_REFUSED;
  readonly problems: readonly SchemaProblem[];
}

/** Where a problem is: `todos.title`, `todos (index byDone)`, or `todos`. */
export function problemSubject(problem: SchemaProblem): string {
  if (problem.field !== undefined) return `${problem.table}.${problem.field}`;
  if (problem.index !== undefined) return `${problem.table} (index ${problem.index})`;
  if (problem.check !== undefined) return `${problem.table} (check ${problem.check})`;
  return problem.table;
}

/** The problems as one sentence each, the first few of them. */
export function describeProblems(problems: readonly SchemaProblem[], most = 5): string {
  const shown = problems.slice(0, most).map((p) => `${problemSubject(p)}: ${p.reason}`);
  if (problems.length > most) shown.push(`and ${problems.length - most} more`);
  return shown.join('; ');
}

export function schemaChangeRefused(problems: readonly SchemaProblem[]): SchemaChangeRefused {
  const error = new Error(
    `The stored data cannot follow the new database declaration (an incompatible schema change): ${describeProblems(problems)}. ` +
      'Change the declaration back, or reset the data to adopt it.',
  ) as Error & { code: string; problems: readonly SchemaProblem[] };
  error.name = 'SchemaChangeRefused';
  error.code = SCHEMA_CHANGE_REFUSED;
  error.problems = problems;
  return error as SchemaChangeRefused;
}

/** Recognised by its code, across realms and bundles. */
export function isSchemaChangeRefused(value: unknown): value is SchemaChangeRefused {
  return typeof value === 'object' && value !== null && (value as { code?: unknown }).code === SCHEMA_CHANGE_REFUSED && Array.isArray((value as { problems?: unknown }).problems);
}

const rowsText = (n: number) => `${n} row${n === 1 ? '' : 's'}`;

/** `a string field`, `a ref to lists`, `a generated number field`: how messages name a field's type. */
function typeName(field: FieldDeclaration): string {
  if (field.type === 'ref' && !field.generated) return `a ref to ${field.table ?? '?'}`;
  const type = `${field.generated ? 'generated ' : ''}${field.type} field`;
  return `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`;
}

/** The stored representation: fields of the same kind keep their values as they are. */
function sameKind(before: FieldDeclaration, after: FieldDeclaration): boolean {
  if (Boolean(before.generated) !== Boolean(after.generated)) return false;
  if (before.type === after.type) return before.type !== 'ref' || before.table === after.table;
  // A ref's value is a string (an id): dropping the reference only widens what the field accepts.
  return before.type === 'ref' && after.type === 'string';
}

function uniqueColumns(field: string, table: TableDeclaration): boolean {
  if (table.fields[field]?.unique) return true;
  if ((table.unique ?? []).some((group) => group.includes(field))) return true;
  return Object.values(table.indexes ?? {}).some((index) => !Array.isArray(index) && index.unique && index.columns.some((c) => c === field || (typeof c === 'object' && 'column' in c && c.column === field)));
}

const groupKey = (group: readonly string[]) => [...group].sort().join('\u0000');
const isUnique = (index: IndexDeclaration | undefined) => index !== undefined && !Array.isArray(index) && index.unique === true;

/** The problems of one field present in both declarations of a table that holds rows. */
function fieldProblems(table: string, name: string, before: FieldDeclaration, after: FieldDeclaration, beforeTable: TableDeclaration, afterTable: TableDeclaration, facts: DataFacts): SchemaProblem[] {
  const out: SchemaProblem[] = [];
  const problem = (reason: string) => out.push({ table, field: name, reason });
  if (!sameKind(before, after)) {
    if (before.generated || after.generated) {
      // A generated column holds no values of its own; a plain one that becomes generated loses its own.
      const held = before.generated ? 0 : facts.rowsHolding(table, name, before);
      if (held > 0) problem(`is ${typeName(before)} holding values in ${rowsText(held)} and would become ${typeName(after)}; its stored values would be lost`);
      else if (!after.generated && !after.optional && after.default === undefined) problem(`becomes a stored, required field without a default; the table's ${rowsText(facts.rows(table))} have no value for it`);
      return out;
    }
    const held = facts.rowsHolding(table, name, before);
    if (held > 0) {
      problem(`is ${typeName(before)} holding values in ${rowsText(held)} and would become ${typeName(after)}; a retyped field cannot keep its data`);
    } else if (!after.optional && after.default === undefined) {
      problem(`is retyped to ${typeName(after)}, required and without a default; the table's ${rowsText(facts.rows(table))} have no value for it`);
    }
    return out;
  }
  if (after.generated) return out; // computed again for every row
  const string = (f: FieldDeclaration) => f.type === 'string';
  if (before.optional && !after.optional) problem('becomes required; rows without a value would not fit');
  if (string(after)) {
    const was = string(before) ? before.maxLength : undefined;
    if (after.maxLength !== undefined && (was === undefined || after.maxLength < was)) {
      problem(was === undefined ? `gains maxLength ${after.maxLength}; longer stored values would not fit` : `maxLength narrows from ${was} to ${after.maxLength}; longer stored values would not fit`);
    }
    const wasEnum = string(before) ? before.enum : undefined;
    if (after.enum && !wasEnum) problem('gains an enum; other stored values would not fit');
    if (after.enum && wasEnum) {
      const lost = wasEnum.filter((value) => !after.enum!.includes(value));
      if (lost.length > 0) problem(`loses the enum value${lost.length === 1 ? '' : 's'} ${lost.slice(0, 5).map((v) => JSON.stringify(v)).join(', ')}; stored values may use ${lost.length === 1 ? 'it' : 'them'}`);
    }
  }
  if (after.unique && !before.unique) problem('becomes unique; stored values may repeat');
  if ((before.collate ?? 'binary') !== (after.collate ?? 'binary') && (uniqueColumns(name, beforeTable) || uniqueColumns(name, afterTable) || after.enum !== undefined)) {
    problem(`changes collation from ${before.collate ?? 'binary'} to ${after.collate ?? 'binary'} while unique or an enum; which stored values count as equal would change`);
  }
  return out;
}

/**
 * Compares the declaration the data was stored under with a new one. Problems are listed in table
 * order, fields in declared order; an empty list means the change applies and keeps every row.
 *
 * @example
 * const { problems } = compareSchemas(stored, manifest.database ?? null, facts, policies);
 * if (problems.length) throw schemaChangeRefused(problems);
 */
export function compareSchemas(
  before: DatabaseDeclaration | null,
  after: DatabaseDeclaration | null,
  facts: DataFacts,
  policies: ReadonlyMap<string, PolicyKind> = new Map(),
): SchemaComparison {
  const problems: SchemaProblem[] = [];
  const carried: Record<string, string[]> = {};
  const oldTables = before?.tables ?? {};
  const newTables = after?.tables ?? {};
  for (const [table, old] of Object.entries(oldTables)) {
    const next = Object.hasOwn(newTables, table) ? newTables[table] : undefined;
    const rows = facts.rows(table);
    if (!next) {
      if (rows > 0) problems.push({ table, reason: `holds ${rowsText(rows)}; removing the table would lose them` });
      continue;
    }
    carried[table] = Object.keys(next.fields).filter((name) => {
      const a = old.fields[name];
      const b = next.fields[name]!;
      return a !== undefined && !a.generated && !b.generated && sameKind(a, b);
    });
    if (rows === 0) continue; // an empty table takes any change
    const policy = policies.get(table);
    const policyField = policy ? POLICY_FIELDS[policy] : undefined;
    for (const [name, field] of Object.entries(old.fields)) {
      if (Object.hasOwn(next.fields, name)) continue;
      const held = field.generated ? 0 : facts.rowsHolding(table, name, field);
      if (held > 0) problems.push({ table, field: name, reason: `holds data in ${rowsText(held)}; removing the field would lose it` });
    }
    for (const [name, field] of Object.entries(next.fields)) {
      const was = Object.hasOwn(old.fields, name) ? old.fields[name] : undefined;
      if (name === policyField && (!was || canonicalJson(was) !== canonicalJson(field))) {
        problems.push({ table, field: name, reason: `is the field the ${policy}() policy reads; it cannot ${was ? 'change' : 'be added'} while the table holds rows, as that would change who they belong to` });
        continue;
      }
      if (!was) {
        if (!field.generated && !field.optional && field.default === undefined) {
          problems.push({ table, field: name, reason: `is new and required without a default; the table's ${rowsText(rows)} have no value for it (make it optional or give it a default)` });
        } else if (field.unique && !field.generated && !field.optional && rows > 1) {
          problems.push({ table, field: name, reason: `is new, unique and required; the table's ${rowsText(rows)} would all take the same default (make it optional)` });
        }
        continue;
      }
      problems.push(...fieldProblems(table, name, was, field, old, next, facts));
    }
    const oldGroups = new Set((old.unique ?? []).map(groupKey));
    for (const group of next.unique ?? []) {
      if (!oldGroups.has(groupKey(group))) problems.push({ table, field: group[0]!, reason: `gains the unique group (${group.join(', ')}); stored rows may repeat it` });
    }
    for (const [check, expression] of Object.entries(next.checks ?? {})) {
      const was = old.checks?.[check];
      if (was !== expression) problems.push({ table, check, reason: was === undefined ? 'is a new check; stored rows may not satisfy it' : 'changes its expression; stored rows may not satisfy it' });
    }
    for (const [index, declaration] of Object.entries(next.indexes ?? {})) {
      if (!isUnique(declaration)) continue;
      const was = old.indexes?.[index];
      if (was === undefined || canonicalJson(was) !== canonicalJson(declaration)) {
        problems.push({ table, index, reason: `${was === undefined ? 'is a new' : 'becomes a changed'} unique index; stored rows may repeat its columns` });
      }
    }
  }
  return { problems, carried };
}
