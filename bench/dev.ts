/**
 * `platform dev` on a copy of the todo template, as a child process (`npx tsx bench/run.ts dev`):
 * start to preview.ready, and a save to the dev server serving the new generation (the write to the
 * compile.ready event, which comes once the generation serves), for client edits and server edits.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DevProcess } from '../src/cli/dev-process';
import { median, percentile, type Row } from './stats';

const TEMPLATE = join(import.meta.dirname, '../templates/todo');

export async function devRows(): Promise<Row[]> {
  const starts: number[] = [];
  const client: number[] = [];
  const server: number[] = [];
  /** Where a save's time went, per kind of edit: the wait before compile.start, then compile.ready's phases. */
  const phases: Record<'client' | 'server', Record<string, number[]>> = { client: {}, server: {} };
  for (let run = 0; run < 3; run++) {
    const root = mkdtempSync(join(tmpdir(), 'platform-bench-dev-'));
    cpSync(TEMPLATE, root, { recursive: true });
    const started = performance.now();
    const dev = new DevProcess(['dev', '--json', '--port', '0'], root);
    try {
      await dev.kind('preview.ready');
      starts.push(performance.now() - started);
      const save = async (path: string, text: string, into: number[], kind: 'client' | 'server') => {
        const from = dev.events.length;
        const at = performance.now();
        let startedAt = 0;
        const started = dev.kind('compile.start', from).then(() => (startedAt = performance.now()));
        writeFileSync(path, text);
        const ready = await dev.kind('compile.ready', from);
        await started;
        into.push(performance.now() - at);
        const took = { 'watch and quiet window': startedAt - at, ...(ready.phases as Record<string, number>) };
        for (const [phase, ms] of Object.entries(took)) (phases[kind][phase] ??= []).push(ms);
      };
      const clientPath = join(root, 'src/client/main.tsx');
      const serverPath = join(root, 'src/server/index.ts');
      const clientSource = readFileSync(clientPath, 'utf8');
      const serverSource = readFileSync(serverPath, 'utf8');
      for (let i = 0; i < 10; i++) {
        await save(clientPath, `${clientSource}\nexport const edit${i} = ${i};\n`, client, 'client');
        await save(serverPath, serverSource.replace('queries: {', `queries: {\n    'bench.n${i}': query({ input: {}, handler: async () => ${i} }),`), server, 'server');
      }
    } finally {
      await dev.stop();
      rmSync(root, { recursive: true, force: true });
    }
  }
  const breakdown = (kind: 'client' | 'server'): Row[] => Object.entries(phases[kind]).map(([phase, values]) => ({ name: `  ${kind} edit: ${phase} p50`, value: median(values), unit: 'ms' }));
  return [
    { name: 'platform dev: start to preview.ready p50 (goal < 1000)', value: median(starts), unit: 'ms' },
    { name: 'save to serving: client edit p50 (goal < 150, native esbuild)', value: median(client), unit: 'ms' },
    { name: 'save to serving: client edit p95', value: percentile(client, 95), unit: 'ms' },
    ...breakdown('client'),
    { name: 'save to serving: server edit (runtime restarted) p50 (goal < 150)', value: median(server), unit: 'ms' },
    { name: 'save to serving: server edit (runtime restarted) p95', value: percentile(server, 95), unit: 'ms' },
    ...breakdown('server'),
  ];
}
