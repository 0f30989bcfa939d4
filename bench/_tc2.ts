import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nodeCompiler } from '../src/adapters/node/compiler';
import { NodeFileSystem } from '../src/adapters/node/node-file-system';
import { analyzeProject } from '../src/core/analyze/analyze';
const root = mkdtempSync(join(tmpdir(), 'tc-'));
cpSync('templates/todo', root, { recursive: true });
const compiler = nodeCompiler();
const fs = new NodeFileSystem(root);
compiler.typecheck.warm();
const a = await analyzeProject(fs, { library: compiler.library, typecheck: compiler.typecheck, now: () => performance.now(), zones: ['client', 'server'] });
const files = new Map<string, string>(a.sources);
for (const [p, t] of a.generated) files.set(p, t);
const s = compiler.typecheck;
const variants: Record<string, string> = {
  full: files.get('src/client/main.tsx')!,
  empty: "export const x = 1;\n",
  preactImport: "import { render } from 'preact';\nexport const x = render;\n",
  oneDiv: "import { render } from 'preact';\nrender(<div class=\"a\">hi</div>, document.body);\n",
  oneInput: "import { render } from 'preact';\nrender(<input value=\"a\" onInput={(e) => console.log((e.target as HTMLInputElement).value)} />, document.body);\n",
  queryOnly: "import { useQuery, useMutation } from 'platform/client';\nexport function f() { const t = useQuery('todos.list', {}); const m = useMutation('todos.add'); return [t.data?.[0]?.title, m]; }\n",
  clientImport: "import { useQuery } from 'platform/client';\nexport const f = useQuery;\n",
};
for (let round = 0; round < 3; round++) for (const [name, text] of Object.entries(variants)) {
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    s.sync(new Map([...files, ['src/client/main.tsx', `${text}\n// ${round} ${i}\n`]]));
    const t = performance.now();
    const d = s.check(['src/client/main.tsx']);
    times.push(performance.now() - t);
    if (i === 0 && round === 0 && d.length) console.log(name, d.map((x) => x.message).slice(0, 2));
  }
  if (round === 2) console.log(name.padEnd(14), times.map((x) => x.toFixed(0)).join(' '));
}
