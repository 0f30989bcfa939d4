import * as esbuild from 'esbuild';
import { nodeLibrary } from '/work/main/src/adapters/node/library';
import { compileProject } from '/work/main/src/core/build/build';
import { TypeCheckSession } from '/work/main/src/core/build/typecheck';
import { MemoryFileSystem } from '/work/main/src/core/fs';
import { analyzeProject } from '/work/main/src/core/analyze/analyze';
import { baseApp } from '/work/main/src/core/analyze/__fixtures__/base-app';
import { compileCases } from '/work/main/src/core/analyze/__fixtures__/compile-cases';
const library = nodeLibrary();
const session = new TypeCheckSession(library);
const only = process.argv.slice(2);
for (const c of compileCases) {
  if (!only.some((o) => c.name.includes(o))) continue;
  const files: Record<string, string> = { ...baseApp() };
  for (const [p, t] of Object.entries(c.files)) { if (t === null) delete files[p]; else files[p] = t; }
  const fs = new MemoryFileSystem(files);
  const ds = c.bundle ? (await compileProject(fs, { esbuild, library, typecheck: session })).diagnostics : (await analyzeProject(fs, { library, typecheck: session })).diagnostics;
  console.log('##', c.name);
  for (const d of ds) console.log('  ', d.code, d.file, d.span ? `${d.span.line}:${d.span.column}+${d.span.length}` : '', d.primary ? 'PRIMARY' : '', d.causedBy ? `causedBy=${d.causedBy}` : '', '|', d.message.slice(0, 230), d.hint ? `| hint: ${d.hint.slice(0, 80)}` : '');
}
