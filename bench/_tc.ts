import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nodeCompiler } from '../src/adapters/node/compiler';
import { NodeFileSystem } from '../src/adapters/node/node-file-system';
import { analyzeProject } from '../src/core/analyze/analyze';
import { TypeCheckSession } from '../src/core/build/typecheck';
const root = mkdtempSync(join(tmpdir(), 'tc-'));
cpSync('templates/todo', root, { recursive: true });
const compiler = nodeCompiler();
const fs = new NodeFileSystem(root);
const proto = TypeCheckSession.prototype as any;
const timed: Record<string, number> = {};
for (const name of ['check', 'emitDeclarations', 'sync', 'syncPackages']) {
  const orig = proto[name];
  proto[name] = function (...args: any[]) { const t = performance.now(); const r = orig.apply(this, args); timed[name] = (timed[name] ?? 0) + performance.now() - t; if (name === 'check') timed['check:' + args[0].join(',')] = (timed['check:' + args[0].join(',')] ?? 0) + performance.now() - t; return r; };
}
const origProgram = (compiler.typecheck.service as any).getProgram;
const svc = compiler.typecheck.service as any;
svc.getProgram = function () { const t = performance.now(); const r = origProgram.call(this); timed.getProgram = (timed.getProgram ?? 0) + performance.now() - t; return r; };
compiler.typecheck.warm();
const run = async (label: string) => {
  for (const k of Object.keys(timed)) delete timed[k];
  const t = performance.now();
  const a = await analyzeProject(fs, { library: compiler.library, typecheck: compiler.typecheck, now: () => performance.now(), zones: ['client', 'server'] });
  console.log(label, Math.round(performance.now() - t), 'tc', Math.round(a.timings.typecheck), Object.entries(timed).map(([k, v]) => `${k}=${v.toFixed(1)}`).join(' '), a.diagnostics.length);
};
await run('first');
const serverPath = join(root, 'src/server/index.ts');
const src = readFileSync(serverPath, 'utf8');
const clientPath = join(root, 'src/client/main.tsx');
const csrc = readFileSync(clientPath, 'utf8');
for (let i = 0; i < 6; i++) {
  writeFileSync(serverPath, src.replace('queries: {', `queries: {\n    'bench.n${i}': query({ input: {}, handler: async () => ${i} }),`));
  await run('server');
  writeFileSync(clientPath, `${csrc}\nexport const edit${i} = ${i};\n`);
  await run('client');
}
