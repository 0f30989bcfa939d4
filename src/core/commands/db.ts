/**
 * `platform db tables|schema [table]|exec <sql>`: the database of the running local app (dev, or
 * preview with --state preview), read through the server's admin route. `exec` runs reading SQL only:
 * the engine runs it in a read-only transaction, so a statement that writes is refused and rolled back.
 */
import { diagnostic, envelope } from '../diagnostics/index.ts';
import { type AdminResult, callAdmin } from '../local/index.ts';
import type { CommandDefinition } from './types.ts';

export type DbResult = Exclude<AdminResult, { op: 'export-page' | 'import-begin' | 'import-rows' | 'import-commit' | 'import-abort' }>;

function cell(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (value instanceof Uint8Array) return `<${value.byteLength} bytes>`;
  return String(value);
}

export const db: CommandDefinition<DbResult> = {
  name: 'db',
  summary: 'List tables, show their schema, or run reading SQL against the running local app\'s database.',
  positionals: [
    { name: 'action', required: true, description: 'tables, schema or exec.' },
    { name: 'argument', required: false, description: 'schema: a table name; exec: one reading SQL statement.' },
  ],
  options: {
    dir: { type: 'string', valueName: '<directory>', description: 'The project directory (default: the current directory).' },
    state: { type: 'string', valueName: '<dev|preview>', description: 'Which running server (default: the one running, dev first).' },
  },
  async run(invocation, host) {
    const [action, argument] = invocation.positionals;
    const mode = invocation.options.state;
    if (mode !== undefined && mode !== 'dev' && mode !== 'preview') return envelope('db', [diagnostic('DG0002', `--state must be dev or preview (got "${String(mode)}").`, { hint: 'Write --state dev or --state preview.' })]);
    if (action !== 'tables' && action !== 'schema' && action !== 'exec') return envelope('db', [diagnostic('DG0002', `Unknown db action "${action}".`, { hint: 'Use platform db tables, platform db schema [table] or platform db exec "<sql>".' })]);
    if (action === 'exec' && !argument) return envelope('db', [diagnostic('DG0002', 'platform db exec needs one SQL statement.', { hint: 'Write platform db exec "SELECT * FROM todos".' })]);
    if (action === 'tables' && argument !== undefined) return envelope('db', [diagnostic('DG0002', `platform db tables takes no argument (got "${argument}").`)]);
    if (!host.local) return envelope('db', [diagnostic('DG0001', 'platform db runs only in the platform CLI on a machine.')]);
    const fs = host.project(typeof invocation.options.dir === 'string' ? invocation.options.dir : '.');
    const request = action === 'tables' ? ({ op: 'tables' } as const) : action === 'schema' ? ({ op: 'schema', ...(argument ? { table: argument } : {}) } as const) : ({ op: 'sql', sql: argument! } as const);
    const called = await callAdmin(fs, host.local.processAlive, mode, request, 'DG1840');
    if (!called.ok) return envelope('db', [called.diagnostic]);
    return envelope('db', [], called.result as DbResult);
  },
  text({ result }) {
    if (!result) return '';
    switch (result.op) {
      case 'tables':
        return result.tables.map((t) => `${t.name.padEnd(32)} ${String(t.rows).padStart(8)} rows${t.declared ? '' : '  (platform)'}`).join('\n');
      case 'schema':
        return result.tables
          .map((t) => [`${t.name}${t.declared ? '' : ' (platform)'}`, ...t.columns.map((c) => `  ${c.name} ${c.type}${c.notNull ? ' NOT NULL' : ''}${c.primaryKey ? ' PRIMARY KEY' : ''}`), ...t.indexes.map((i) => `  ${i.unique ? 'unique ' : ''}index ${i.name} (${i.columns.join(', ')})`)].join('\n'))
          .join('\n\n');
      case 'sql':
        return [result.columns.join('\t'), ...result.rows.map((row) => row.map(cell).join('\t')), result.truncated ? '… (more rows than shown)' : ''].filter((line, i, all) => line !== '' || i < all.length - 1).join('\n');
      default:
        return '';
    }
  },
};
