/**
 * A generated project of a given number of files, for what the templates are too small to show: the
 * todo template with shared modules that both sides import, server helpers the server imports and
 * client components the client renders. It type-checks cleanly and every file is in a bundle, so the
 * compiler and the playground do a real app's work at size (bench/playground.ts, e2e/open-at-size.spec.ts).
 */
import { join } from 'node:path';
import { readTextTree } from '../src/adapters/node/templates';

const TEMPLATE = join(import.meta.dirname, '../templates/todo');

const pad = (n: number) => String(n).padStart(3, '0');

/** The todo template grown to `total` files (at least the template's and 4 more). */
export function generatedProject(total = 200): Record<string, string> {
  const files = readTextTree(TEMPLATE);
  const room = total - Object.keys(files).length - 2; // the two index files
  if (room < 3) throw new Error(`A generated project needs more than ${Object.keys(files).length + 4} files.`);
  const shared = Math.max(1, Math.round(room * 0.1));
  const server = Math.max(1, Math.round(room * 0.1));
  const parts = room - shared - server;

  for (let i = 0; i < shared; i++) {
    files[`src/shared/lib/lib${pad(i)}.ts`] = [
      `/** Shared helper ${i}: labels and a checked shape, imported by both sides. */`,
      `export interface Item${i} { id: string; rank: number; label: string }`,
      `export function label${i}(n: number): string {`,
      `  return \`item \${n} of group ${i}\`;`,
      `}`,
      `export function item${i}(id: string, rank: number): Item${i} {`,
      `  return { id, rank, label: label${i}(rank) };`,
      `}`,
      '',
    ].join('\n');
  }
  const helpers: string[] = [];
  for (let i = 0; i < server; i++) {
    const lib = i % shared;
    helpers.push(`helper${pad(i)}`);
    files[`src/server/lib/helper${pad(i)}.ts`] = [
      `import { item${lib}, type Item${lib} } from '../../shared/lib/lib${pad(lib)}';`,
      `/** Server helper ${i}: ranks items. */`,
      `export function helper${pad(i)}(ids: readonly string[]): Item${lib}[] {`,
      `  return ids.map((id, rank) => item${lib}(id, rank + ${i})).sort((a, b) => a.rank - b.rank);`,
      `}`,
      '',
    ].join('\n');
  }
  files['src/server/lib/index.ts'] = [
    ...helpers.map((name) => `import { ${name} } from './${name}';`),
    `/** Every server helper, so that each is in the server's bundle. */`,
    `export const HELPERS = [${helpers.join(', ')}];`,
    '',
  ].join('\n');
  const components: string[] = [];
  for (let i = 0; i < parts; i++) {
    const lib = i % shared;
    components.push(`Part${pad(i)}`);
    files[`src/client/parts/part${pad(i)}.tsx`] = [
      `import { label${lib} } from '../../shared/lib/lib${pad(lib)}';`,
      `/** Generated component ${i}. */`,
      `export function Part${pad(i)}(props: { n: number }) {`,
      `  return <li class="part">{label${lib}(props.n + ${i})}</li>;`,
      `}`,
      '',
    ].join('\n');
  }
  files['src/client/parts/index.ts'] = [
    ...components.map((name) => `import { ${name} } from './${name.toLowerCase()}';`),
    `/** Every generated component, so that each is in the client's bundle. */`,
    `export const PARTS = [${components.join(', ')}];`,
    '',
  ].join('\n');
  files['src/client/main.tsx'] = `${files['src/client/main.tsx']}\nimport { PARTS } from './parts';\n(globalThis as { generatedParts?: unknown }).generatedParts = PARTS;\n`;
  files['src/server/index.ts'] = `${files['src/server/index.ts']}\nimport { HELPERS } from './lib';\n(globalThis as { generatedHelpers?: unknown }).generatedHelpers = HELPERS;\n`;
  files['app.manifest.json'] = JSON.stringify({ ...JSON.parse(files['app.manifest.json']!), name: `generated-${total}` }, null, 2);
  if (Object.keys(files).length !== total) throw new Error(`generated ${Object.keys(files).length} files, not ${total}`);
  return files;
}
