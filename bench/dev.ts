/**
 * `platform dev` on a copy of the todo template, as a child process (`npx tsx bench/run.ts dev`):
 * start to preview.ready, and a save to the dev server serving the new generation (the write to the
 * compile.ready event, which comes once the generation serves), for client edits and three kinds of server
 * edit: one that adds a query (the contract changes where the client does not look, so it is not checked
 * again), one in a handler's body (the contract does not change), and one that changes the result type of
 * a query the client calls (the client is checked again, in a new checker).
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DevProcess } from '../src/testing/dev-process';
import { median, percentile, type Row } from './stats';

const TEMPLATE = join(import.meta.dirname, '../templates/todo');
/** A line of the todo template's `todos.list` handler, after which the body edits go. */
const LIST_ROWS = "const rows = await ctx.db.table('todos').all();";
/** The todo template's `todos.remaining` handler, whose result the client shows. */
const REMAINING = "handler: async (ctx) => ctx.db.table('todos').count({ where: { ownerId: ctx.auth.appUserId, done: false } }),";

type Kind = 'client' | 'server' | 'body' | 'used';

export async function devRows(): Promise<Row[]> {
  const starts: number[] = [];
  const client: number[] = [];
  const server: number[] = [];
  const body: number[] = [];
  const used: number[] = [];
  /** Where a save's time went, per kind of edit: the wait before compile.start, then compile.ready's phases. */
  const phases: Record<Kind, Record<string, number[]>> = { client: {}, server: {}, body: {}, used: {} };
  for (let run = 0; run < 3; run++) {
    const root = mkdtempSync(join(tmpdir(), 'platform-bench-dev-'));
    cpSync(TEMPLATE, root, { recursive: true });
    const started = performance.now();
    const dev = new DevProcess(['dev', '--json', '--port', '0'], root);
    try {
      await dev.kind('preview.ready');
      starts.push(performance.now() - started);
      const save = async (path: string, text: string, into: number[], kind: Kind) => {
        const from = dev.events.length;
        const at = performance.now();
        let startedAt = 0;
        const started = dev.kind('compile.start', from).then(() => (startedAt = performance.now()));
        writeFileSync(path, text);
        const ready = await dev.kind('compile.ready', from);
        await started;
        into.push(performance.now() - at);
        // compile.start is announced once the files have been quiet for the window; the build itself starts at the save.
        const took = { 'compile.start announced (quiet window)': startedAt - at, ...(ready.phases as Record<string, number>) };
        for (const [phase, ms] of Object.entries(took)) (phases[kind][phase] ??= []).push(ms);
      };
      const clientPath = join(root, 'src/client/main.tsx');
      const serverPath = join(root, 'src/server/index.ts');
      const clientSource = readFileSync(clientPath, 'utf8');
      const serverSource = readFileSync(serverPath, 'utf8');
      for (let i = 0; i < 10; i++) {
        await save(clientPath, `${clientSource}\nexport const edit${i} = ${i};\n`, client, 'client');
        const withQuery = serverSource.replace('queries: {', `queries: {\n    'bench.n${i}': query({ input: {}, handler: async () => ${i} }),`);
        await save(serverPath, withQuery, server, 'server');
        // A handler's body only: the contract's types stay as they were, so the client is not checked again.
        await save(serverPath, withQuery.replace(LIST_ROWS, `${LIST_ROWS}\n        if (rows.length === ${1000 + i}) throw new Error('bench ${i}');`), body, 'body');
      }
      // todos.remaining's result, which the client renders, a string and a number in turn: the client is checked again.
      const asText = REMAINING.replace('=> ctx.db', '=> String(await ctx.db').replace('}),', '})),');
      if (!serverSource.includes(REMAINING)) throw new Error('The todo template has no todos.remaining handler to edit.');
      for (let i = 0; i < 10; i++) await save(serverPath, serverSource.replace(REMAINING, i % 2 === 0 ? asText : REMAINING), used, 'used');
    } finally {
      await dev.stop();
      rmSync(root, { recursive: true, force: true });
    }
  }
  const breakdown = (kind: Kind): Row[] => Object.entries(phases[kind]).map(([phase, values]) => ({ name: `  ${kind} edit: ${phase} p50`, value: median(values), unit: 'ms' }));
  return [
    { name: 'platform dev: start to preview.ready p50 (goal < 1000)', value: median(starts), unit: 'ms' },
    { name: 'save to serving: client edit p50 (goal < 150, native esbuild)', value: median(client), unit: 'ms' },
    { name: 'save to serving: client edit p95', value: percentile(client, 95), unit: 'ms' },
    ...breakdown('client'),
    { name: 'save to serving: server edit, new query (contract changed, client not checked again) p50 (goal < 150)', value: median(server), unit: 'ms' },
    { name: 'save to serving: server edit, new query p95', value: percentile(server, 95), unit: 'ms' },
    ...breakdown('server'),
    { name: 'save to serving: server edit, a handler body (runtime restarted) p50 (goal < 150)', value: median(body), unit: 'ms' },
    { name: 'save to serving: server edit, a handler body p95', value: percentile(body, 95), unit: 'ms' },
    ...breakdown('body'),
    { name: 'save to serving: server edit, a called query\'s result type (client checked again) p50', value: median(used), unit: 'ms' },
    { name: 'save to serving: server edit, a called query\'s result type p95', value: percentile(used, 95), unit: 'ms' },
    ...breakdown('used'),
  ];
}
