/**
 * Where the control plane's SQL may be written (issue 34): in the records' schema (records.ts) and the
 * repositories (`*-records.ts`), each named for the resources it keeps; never in a route, the
 * middleware, the context, the start-up, or a module of logic such as accounts or domains. A statement
 * found elsewhere fails here with its file and line, so code that needs a new read asks a repository
 * for it instead of writing it inline.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = import.meta.dirname;

/** The records' schema (records.ts) and the repositories, one module per group of resources, each named `<what>-records.ts`. */
const isRepository = (file: string) => file === 'records.ts' || /^[a-z-]+-records\.ts$/.test(file);

/** A string that starts an SQL statement, or a line of a multi-line string that does. */
const STATEMENT = /(['"`]\s*|^\s*)(SELECT|INSERT|UPDATE|DELETE|CREATE|ALTER|DROP|REPLACE|WITH)\s/;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** The control plane's source files, relative to its folder. */
const FILES = sources(ROOT).map((path) => relative(ROOT, path).split('\\').join('/'));

/** `file:line` of each line of `text` that starts an SQL statement. */
export function statementsIn(file: string, text: string): string[] {
  return text.split('\n').flatMap((line, i) => (STATEMENT.test(line) && !/^\s*(\*|\/\/)/.test(line) ? [`${file}:${i + 1}`] : []));
}

describe('the control plane keeps its SQL in repositories', () => {
  it('finds no statement outside them', () => {
    const outside = FILES.filter((file) => !isRepository(file)).flatMap((file) => statementsIn(file, readFileSync(join(ROOT, file), 'utf8')));
    expect(outside).toEqual([]);
  });

  it('reads the repositories it exempts, and they hold SQL', () => {
    const repositories = FILES.filter(isRepository);
    expect(repositories).toEqual(expect.arrayContaining(['records.ts', 'app-records.ts', 'builder-records.ts', 'device-records.ts']));
    for (const file of repositories) expect(statementsIn(file, readFileSync(join(ROOT, file), 'utf8')).length, file).toBeGreaterThan(0);
  });

  it('sees a statement in any quoting, and not in a comment', () => {
    expect(statementsIn('x.ts', "records.get('SELECT 1 FROM apps WHERE id = ?', [id]);")).toEqual(['x.ts:1']);
    expect(statementsIn('x.ts', 'records.run(`UPDATE apps SET state = ?`, [s]);')).toEqual(['x.ts:1']);
    expect(statementsIn('x.ts', 'const q = "DELETE FROM serving";')).toEqual(['x.ts:1']);
    expect(statementsIn('x.ts', 'const schema = `\nCREATE TABLE IF NOT EXISTS t (id TEXT);\n`;')).toEqual(['x.ts:2']);
    expect(statementsIn('x.ts', ' * SELECT rows the caller may read.\n// UPDATE later')).toEqual([]);
  });
});
