/**
 * What `platform test` runs: the app analysed and type-checked, its server and the test files that
 * compile bundled. No test files is DG1900; a test file that does not compile is DG1901 (its type
 * errors are kept) and is skipped while the others still run; errors in the app itself stop the run.
 */
import { TESTS_ROOT } from '../project/index.ts';
import { analyzeFor, type Compiler } from './build.ts';
import { bundleProject } from '../bundle/index.ts';
import { diagnostic, hasErrors, type Diagnostic } from '../diagnostics/index.ts';
import type { FileSystem } from '../fs/index.ts';
import type { Manifest } from '../manifest/index.ts';

export interface PreparedTests {
  diagnostics: Diagnostic[];
  manifest?: Manifest;
  /** The server bundle (ESM) and its source map. */
  server?: { code: string; map: string };
  /** Each test file that compiled, with its bundle (ESM) and source map. */
  tests: Array<{ file: string; code: string; map: string }>;
}

const decoder = new TextDecoder();

export async function prepareTests(fs: FileSystem, compiler: Compiler): Promise<PreparedTests> {
  const analysis = await analyzeFor(compiler, fs, { installUnavailable: compiler.installUnavailable, ...(compiler.now ? { now: compiler.now } : {}) });
  const diagnostics = [...analysis.diagnostics];
  const { project, manifest } = analysis;
  if (!project || !manifest) return { diagnostics, tests: [] };
  if (project.testFiles.length === 0) {
    diagnostics.push(diagnostic('DG1900', `There are no test files under ${TESTS_ROOT}/.`, { hint: 'Add tests as tests/<name>.test.ts, importing test and expect from platform/test.' }));
    return { diagnostics, manifest, tests: [] };
  }
  const inTests = (d: Diagnostic) => d.file !== undefined && d.file.startsWith(`${TESTS_ROOT}/`);
  if (hasErrors(diagnostics.filter((d) => !inTests(d)))) return { diagnostics, manifest, tests: [] };

  // A test file is skipped when it, or a test helper it imports, has an error.
  const broken = new Set(diagnostics.filter((d) => d.severity === 'error' && inTests(d)).map((d) => d.file!));
  const reaches = (entry: string) => {
    const seen = new Set<string>([entry]);
    const queue = [entry];
    while (queue.length) {
      for (const next of analysis.graph?.edges.get(queue.shift()!) ?? []) {
        if (!seen.has(next)) {
          seen.add(next);
          queue.push(next);
        }
      }
    }
    return seen;
  };
  const runnable: string[] = [];
  for (const file of project.testFiles) {
    const bad = [...reaches(file)].filter((f) => broken.has(f));
    if (bad.length) diagnostics.push(diagnostic('DG1901', `${file} could not be compiled: ${bad.join(', ')} ${bad.length === 1 ? 'has' : 'have'} errors.`, { file, hint: 'Fix the type errors reported for the file; the other test files still run.' }));
    else runnable.push(file);
  }
  if (runnable.length === 0) return { diagnostics, manifest, tests: [] };

  const bundle = await bundleProject(compiler.esbuild, compiler.library, { ...project, testFiles: runnable }, ['server', 'test']);
  diagnostics.push(...bundle.diagnostics);
  if (hasErrors(bundle.diagnostics)) return { diagnostics, manifest, tests: [] };
  const text = (path: string) => decoder.decode(bundle.files.get(path));
  const tests = runnable.map((file) => {
    const out = `tests/${file.slice(`${TESTS_ROOT}/`.length).replace(/\.[^./]+$/, '')}.js`;
    return { file, code: text(out), map: text(`${out}.map`) };
  });
  return { diagnostics, manifest, server: { code: text('server/index.js'), map: text('server/index.js.map') }, tests };
}

