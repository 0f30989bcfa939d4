/**
 * `ctx.db`: hands out table handles for one handler call, read-only in queries, writable in mutations
 * and endpoints, each with its table's policy resolved for the caller.
 */
import type { Manifest, TableDeclaration } from '../../manifest/index.ts';
import { didYouMean } from '../../text/index.ts';
import type { RuntimeClock } from '../clock.ts';
import type { CursorSigner } from '../cursor.ts';
import type { Meter } from '../limits.ts';
import type { SqlDriver } from '../sql-driver.ts';
import { Table, tableHandle, tableModel, type TableHandle, type TableModel, type TablePolicyContext } from './table.ts';

export type { TablePolicyContext } from './table.ts';

export interface DatabaseOptions {
  driver: SqlDriver;
  database: NonNullable<Manifest['database']>;
  meter: Meter;
  signer: CursorSigner;
  clock: RuntimeClock;
  /** Policy per table name, already resolved for the caller. */
  policies: Record<string, TablePolicyContext>;
  writable: boolean;
  /** Called with the table name after each successful write (for live refresh). */
  onWrite?(table: string): void;
  /** Called with the table name before each read (which tables a query depends on, for live refresh). */
  onRead?(table: string): void;
}

/** Models are pure functions of the declaration; share them across calls. */
const models = new WeakMap<TableDeclaration, TableModel>();

function modelOf(name: string, declaration: TableDeclaration): TableModel {
  let model = models.get(declaration);
  if (!model || model.name !== name) {
    model = tableModel(name, declaration);
    models.set(declaration, model);
  }
  return model;
}

const CHANGES_CHILD = new Set(['cascade', 'setNull', 'setDefault']);

/**
 * The tables a delete from `table` can change through ON DELETE actions: children with cascade,
 * set null or set default, and (through cascade) their own children, transitively.
 */
export function cascadeTargets(database: NonNullable<Manifest['database']>, table: string): string[] {
  const out = new Set<string>();
  const visit = (parent: string) => {
    for (const [child, declaration] of Object.entries(database.tables)) {
      for (const field of Object.values(declaration.fields)) {
        if (field.type !== 'ref' || field.table !== parent || !field.onDelete || !CHANGES_CHILD.has(field.onDelete)) continue;
        if (out.has(child)) continue;
        out.add(child);
        if (field.onDelete === 'cascade') visit(child);
      }
    }
  };
  visit(table);
  out.delete(table);
  return [...out];
}

export class Database {
  readonly #options: DatabaseOptions;
  readonly #handles = new Map<string, TableHandle>();

  constructor(options: DatabaseOptions) {
    this.#options = options;
  }

  /** The handle of a declared table. A read-only database's handles have no write methods at all. */
  table(name: string): TableHandle {
    const existing = this.#handles.get(name);
    if (existing) return existing;
    const { database, policies, writable } = this.#options;
    const declaration = typeof name === 'string' && Object.hasOwn(database.tables, name) ? database.tables[name] : undefined;
    if (!declaration) {
      const hint = typeof name === 'string' ? didYouMean(name, Object.keys(database.tables)) : undefined;
      throw new Error(`Unknown table "${String(name)}".${hint ? ` ${hint}` : ''}`);
    }
    const table = new Table(modelOf(name, declaration), {
      driver: this.#options.driver,
      meter: this.#options.meter,
      signer: this.#options.signer,
      clock: this.#options.clock,
      policy: Object.hasOwn(policies, name) ? policies[name] : undefined,
      writable,
      onWrite: this.#options.onWrite ? (written) => this.#options.onWrite?.(written) : undefined,
      onRead: this.#options.onRead ? (read) => this.#options.onRead?.(read) : undefined,
      cascades: cascadeTargets(database, name),
    });
    const handle = tableHandle(table, writable);
    this.#handles.set(name, handle);
    return handle;
  }
}
