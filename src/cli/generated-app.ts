/**
 * A deterministic app of about `size` source files, for the bench at size (bench/dev-size.ts) and the tests of
 * `platform dev` on a big app (src/cli/dev-at-size.test.ts): the todo
 * template, plus client components and server helpers generated under src/client/gen/ and src/server/gen/,
 * three fifths client and two fifths server, and src/shared/widely.ts, which a hundred of them import
 * (seventy components, thirty helpers); the template's tests are left out. Each component renders a list through Preact with a prop type of
 * its own and calls a query; each helper computes over a table row type. The same size gives the same text.
 */
import { readTextTree } from '../adapters/node/templates';
import { join } from 'node:path';

const TEMPLATE = join(import.meta.dirname, '../../templates/todo');

/** The file a hundred others import, and the edits the bench makes to it and to a leaf and a handler. */
export const WIDELY = 'src/shared/widely.ts';
export const WIDELY_IMPORTERS = 100;

export interface GeneratedApp {
  files: Map<string, string>;
  /** A client component nothing else imports but the generated index. */
  leaf: string;
  /** The server entry, whose handler `gen.total` the server edit changes. */
  server: string;
}

function templateFiles(): Map<string, string> {
  // No tests: `platform dev` would run them after each save, beside the measurements.
  return new Map(Object.entries(readTextTree(TEMPLATE, (path) => path === 'tests')));
}

const pad = (n: number) => String(n).padStart(3, '0');

export const widelyText = (variant: number) => `/** Used by a hundred files of the generated app. */
export type Measure = { label: string; value: number; unit: 'ms' | 'items' };

export function describe(measure: Measure): string {
  const rounded = Math.round(measure.value * 100) / 100;
  return \`\${measure.label}: \${rounded} \${measure.unit} (v${variant})\`;
}

export function total(values: readonly number[]): number {
  let sum = 0;
  for (const value of values) sum += value;
  return sum;
}
`;

function component(n: number, widely: boolean): string {
  const name = `Card${pad(n)}`;
  return `import { useState } from 'preact/hooks';
import { useQuery } from 'platform/client';
${widely ? "import { describe, total, type Measure } from '../../shared/widely';\n" : ''}
export type ${name}Props = { title: string; values: number[]; onPick?: (index: number) => void };

export function ${name}({ title, values, onPick }: ${name}Props) {
  const [picked, setPicked] = useState<number | undefined>(undefined);
  const remaining = useQuery('todos.remaining', {});
  const sum = ${widely ? 'total(values)' : 'values.reduce((a, b) => a + b, 0)'};
${widely ? "  const measure: Measure = { label: title, value: sum, unit: 'items' };\n" : ''}  return (
    <section class="card-${n}">
      <h2>{title} ${pad(n)}</h2>
      <p>{${widely ? 'describe(measure)' : 'String(sum)'}} / {remaining.data ?? 0}</p>
      <ul>
        {values.map((value, index) => (
          <li key={index} class={picked === index ? 'picked' : undefined} onClick={() => { setPicked(index); onPick?.(index); }}>
            {value.toFixed(2)}
          </li>
        ))}
      </ul>
    </section>
  );
}
`;
}

function helper(n: number, widely: boolean): string {
  return `${widely ? "import { total } from '../../shared/widely';\n" : ''}
export type Row${pad(n)} = { id: string; title: string; done: boolean; weight: number };

/** Summary ${n} of a list of rows. */
export function summarize${pad(n)}(rows: readonly Row${pad(n)}[]): { done: number; open: number; weight: number } {
  let done = 0;
  for (const row of rows) if (row.done) done++;
  const weight = ${widely ? 'total(rows.map((row) => row.weight))' : 'rows.reduce((sum, row) => sum + row.weight, 0)'};
  return { done, open: rows.length - done, weight };
}
`;
}

export function generateApp(size: number): GeneratedApp {
  const files = templateFiles();
  const base = [...files.keys()].filter((path) => /\.(tsx?|json)$/.test(path)).length;
  // The generated indexes and the shared file are three files; the rest are components and helpers.
  const generated = Math.max(WIDELY_IMPORTERS + 2, size - base - 3);
  const clients = Math.round((generated * 3) / 5);
  const servers = generated - clients;
  const clientWidely = Math.min(clients, Math.round((WIDELY_IMPORTERS * 7) / 10));
  const serverWidely = WIDELY_IMPORTERS - clientWidely;
  files.set(WIDELY, widelyText(0));
  const clientNames: string[] = [];
  for (let n = 0; n < clients; n++) {
    files.set(`src/client/gen/card-${pad(n)}.tsx`, component(n, n < clientWidely));
    clientNames.push(`Card${pad(n)}`);
  }
  files.set(
    'src/client/gen/index.tsx',
    `${clientNames.map((name, n) => `import { ${name} } from './card-${pad(n)}';`).join('\n')}\n\nexport function Cards() {\n  return (\n    <div class="cards">\n${clientNames.map((name) => `      <${name} title="${name}" values={[1, 2, 3]} />`).join('\n')}\n    </div>\n  );\n}\n`,
  );
  for (let n = 0; n < servers; n++) files.set(`src/server/gen/helper-${pad(n)}.ts`, helper(n, n < serverWidely));
  files.set(
    'src/server/gen/index.ts',
    `${Array.from({ length: servers }, (_, n) => `import { summarize${pad(n)} } from './helper-${pad(n)}';`).join('\n')}\n\nexport type Row = { id: string; title: string; done: boolean; weight: number };\n\nexport function summarizeAll(rows: Row[]): number {\n  let open = 0;\n${Array.from({ length: servers }, (_, n) => `  open += summarize${pad(n)}(rows).open;`).join('\n')}\n  return open;\n}\n`,
  );
  const client = files.get('src/client/main.tsx')!;
  files.set('src/client/main.tsx', `import { Cards } from './gen/index';\n${client.replace(/(render\()/, 'void Cards;\n$1')}`);
  const server = files.get('src/server/index.ts')!;
  const withGen = server
    .replace("import { checkTitle } from '../shared/todo';", "import { checkTitle } from '../shared/todo';\nimport { summarizeAll } from './gen/index';")
    .replace('queries: {', `queries: {\n    'gen.total': query({\n      input: {},\n      handler: async (ctx) => {\n        const rows = await ctx.db.table('todos').all();\n        return summarizeAll(rows.map((row) => ({ id: row.id, title: row.title, done: row.done, weight: 1 })));\n      },\n    }),`);
  if (withGen === server || !withGen.includes('summarizeAll')) throw new Error('The todo template changed: the generator cannot add its query.');
  files.set('src/server/index.ts', withGen);
  return { files, leaf: `src/client/gen/card-${pad(clients - 1)}.tsx`, server: 'src/server/index.ts' };
}

/** The source files of a generated app the type checker sees (what `size` counts). */
export function sourceCount(app: GeneratedApp): number {
  return [...app.files.keys()].filter((path) => /\.(tsx?|json)$/.test(path)).length;
}
