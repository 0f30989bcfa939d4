/**
 * Where the control plane's SQL may be written (issue 34): in the records' schema and the repositories,
 * each named for the resources it keeps, never in a route, the middleware, the context or the start-up.
 * A statement found elsewhere fails here with its file and line, so a handler that needs a new read asks
 * a repository for it instead of writing it inline.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = import.meta.dirname;

/** The files that hold SQL, each with what it keeps. */
const REPOSITORIES: Record<string, string> = {
  'records.ts': 'the schema',
  'app-records.ts': 'apps, deployments, what environments serve, object stores, environment values',
  'builder-records.ts': 'builders, builder sessions, service tokens',
  'device-records.ts': 'device codes of the sign-in flow',
  'accounts.ts': 'accounts, passkeys, account sessions',
  'app-auth.ts': "app sign-in codes, app sessions, workspaces and their members and invitations",
  'domains.ts': 'custom domains and their claims',
  'browser-keys.ts': "playgrounds' keys",
  'artifacts.ts': 'which builder uploaded which blob',
};

/** A string that starts an SQL statement, or a line of a multi-line string that does. */
const STATEMENT = /(['"`]\s*|^\s*)(SELECT|INSERT|UPDATE|DELETE|CREATE|ALTER|DROP|REPLACE|WITH)\s/;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** `file:line` of each line of `text` that starts an SQL statement. */
export function statementsIn(file: string, text: string): string[] {
  return text.split('\n').flatMap((line, i) => (STATEMENT.test(line) && !/^\s*(\*|\/\/)/.test(line) ? [`${file}:${i + 1}`] : []));
}

describe('the control plane keeps its SQL in repositories', () => {
  it('finds no statement outside them', () => {
    const outside = sources(ROOT)
      .map((path) => relative(ROOT, path).split('\\').join('/'))
      .filter((file) => !(file in REPOSITORIES))
      .flatMap((file) => statementsIn(file, readFileSync(join(ROOT, file), 'utf8')));
    expect(outside).toEqual([]);
  });

  it('every repository it names exists and holds SQL', () => {
    for (const file of Object.keys(REPOSITORIES)) expect(statementsIn(file, readFileSync(join(ROOT, file), 'utf8')).length, file).toBeGreaterThan(0);
  });

  it('sees a statement in any quoting, and not in a comment', () => {
    expect(statementsIn('x.ts', "records.get('SELECT 1 FROM apps WHERE id = ?', [id]);")).toEqual(['x.ts:1']);
    expect(statementsIn('x.ts', 'records.run(`UPDATE apps SET state = ?`, [s]);')).toEqual(['x.ts:1']);
    expect(statementsIn('x.ts', 'const q = "DELETE FROM serving";')).toEqual(['x.ts:1']);
    expect(statementsIn('x.ts', 'const schema = `\nCREATE TABLE IF NOT EXISTS t (id TEXT);\n`;')).toEqual(['x.ts:2']);
    expect(statementsIn('x.ts', ' * SELECT rows the caller may read.\n// UPDATE later')).toEqual([]);
  });
});
