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
  for (let run = 0; run < 3; run++) {
    const root = mkdtempSync(join(tmpdir(), 'platform-bench-dev-'));
    cpSync(TEMPLATE, root, { recursive: true });
    const started = performance.now();
    const dev = new DevProcess(['dev', '--json', '--port', '0'], root);
    try {
      await dev.kind('preview.ready');
      starts.push(performance.now() - started);
      const save = async (path: string, text: string, into: number[]) => {
        const from = dev.events.length;
        const at = performance.now();
        writeFileSync(path, text);
        await dev.kind('compile.ready', from);
        into.push(performance.now() - at);
      };
      const clientPath = join(root, 'src/client/main.tsx');
      const serverPath = join(root, 'src/server/index.ts');
      const clientSource = readFileSync(clientPath, 'utf8');
      const serverSource = readFileSync(serverPath, 'utf8');
      for (let i = 0; i < 10; i++) {
        await save(clientPath, `${clientSource}\nexport const edit${i} = ${i};\n`, client);
        await save(serverPath, serverSource.replace('queries: {', `queries: {\n    'bench.n${i}': query({ input: {}, handler: async () => ${i} }),`), server);
      }
    } finally {
      await dev.stop();
      rmSync(root, { recursive: true, force: true });
    }
  }
  return [
    { name: 'platform dev: start to preview.ready p50 (goal < 1000)', value: median(starts), unit: 'ms' },
    { name: 'save to serving: client edit p50 (goal < 150, native esbuild)', value: median(client), unit: 'ms' },
    { name: 'save to serving: client edit p95', value: percentile(client, 95), unit: 'ms' },
    { name: 'save to serving: server edit (runtime restarted) p50 (goal < 150)', value: median(server), unit: 'ms' },
    { name: 'save to serving: server edit (runtime restarted) p95', value: percentile(server, 95), unit: 'ms' },
  ];
}
