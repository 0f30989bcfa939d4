/**
 * The import rules: reads every TypeScript file under the checked folders, resolves its relative (and
 * `platform/*`) imports to files, and reports each strongly connected component of the module graph.
 * Every edge counts: `import`, `import type`, `export … from`, `import()` calls and `import('…')` types,
 * since a cycle of types or of lazy loads is still a cycle in the graph we keep acyclic.
 * The core's folders are also kept acyclic as a whole (`findFolderCycles`), and each is reached from
 * outside only through its entry (`findDeepImports`). `npx tsx scripts/check-cycles.ts` prints what
 * breaks a rule and exits 1 when anything does (`npm run typecheck` runs it).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** The folders checked, relative to the checkout. */
export const CHECKED_FOLDERS = ['src', 'worker', 'scripts', 'vite', 'harness', 'bench', 'e2e'];
/** Apps, not our modules: each is checked by `platform check` against its own rules. */
const SKIPPED_FOLDERS = new Set(['node_modules', 'data-app']);
const SOURCE = /\.(ts|tsx|mts)$/;

/** The module specifiers one file imports, in the order they appear. */
export function importsOf(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, fileName.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const specifiers: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      specifiers.push(node.moduleSpecifier.text);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference) && ts.isStringLiteral(node.moduleReference.expression)) {
      specifiers.push(node.moduleReference.expression.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteralLike(node.arguments[0])) {
      specifiers.push(node.arguments[0].text);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      specifiers.push(node.argument.literal.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return specifiers;
}

/**
 * The checked file a specifier names, or undefined for a package, an asset or a file outside the graph.
 * `root` is the checkout; `platform/x` is `src/modules/x.ts`, as `tsconfig.json`'s `paths` say.
 */
export function resolveImport(root: string, fromFile: string, specifier: string, isFile: (path: string) => boolean): string | undefined {
  const bare = specifier.replace(/\?.*$/, '');
  let base: string;
  if (bare.startsWith('./') || bare.startsWith('../')) base = join(dirname(fromFile), bare);
  else if (bare.startsWith('platform/')) base = join(root, 'src/modules', bare.slice('platform/'.length));
  else return undefined;
  const candidates = [base, `${base}.ts`, `${base}.tsx`, join(base, 'index.ts'), join(base, 'index.tsx')];
  if (/\.js$/.test(base)) candidates.push(base.replace(/\.js$/, '.ts'), base.replace(/\.js$/, '.tsx'));
  if (/\.mjs$/.test(base)) candidates.push(base.replace(/\.mjs$/, '.mts'));
  return candidates.find((candidate) => SOURCE.test(candidate) && isFile(candidate));
}

/** The strongly connected components with more than one file, or one file importing itself (Tarjan). */
export function stronglyConnected(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const connect = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        connect(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || (graph.get(node) ?? []).includes(node)) components.push(component.sort());
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) connect(node);
  return components.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

function sourceFiles(folder: string): string[] {
  if (!existsSync(folder)) return [];
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return SKIPPED_FOLDERS.has(entry.name) ? [] : sourceFiles(path);
    return SOURCE.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The module graph of the checked folders under `root`: each file (relative, `/`-separated) to the files it imports. */
export function moduleGraph(root: string, folders: readonly string[] = CHECKED_FOLDERS): Map<string, string[]> {
  const isFile = (path: string): boolean => existsSync(path) && statSync(path).isFile();
  const name = (path: string): string => relative(root, path).split(sep).join('/');
  const graph = new Map<string, string[]>();
  for (const file of folders.flatMap((folder) => sourceFiles(join(root, folder)))) {
    const targets = importsOf(file, readFileSync(file, 'utf8'))
      .map((specifier) => resolveImport(root, file, specifier, isFile))
      .filter((target): target is string => target !== undefined);
    graph.set(name(file), [...new Set(targets.map(name))]);
  }
  return graph;
}

/** The import cycles among the checked folders under `root`, each as its sorted files. */
export function findCycles(root: string, folders: readonly string[] = CHECKED_FOLDERS): string[][] {
  return stronglyConnected(moduleGraph(root, folders));
}

/** The folders of the platform-neutral core, whose graph is kept acyclic as a whole (each is one concept, layered). */
export const CORE_ROOT = 'src/core';
const TEST_FILE = /\.test\.tsx?$/;

/**
 * The cycles among the core's folders (`src/core/<folder>`): folder A imports B when any file of A
 * (not a test: a test may reach into what it checks) imports a file of B. Files can be free of cycles
 * while their folders are not, and then no folder can have an entry that the others import. Each cycle
 * with the imports that make it.
 */
export function findFolderCycles(root: string): Array<{ folders: string[]; imports: string[] }> {
  const folderOf = (file: string): string | undefined => (file.startsWith(`${CORE_ROOT}/`) && file.indexOf('/', CORE_ROOT.length + 1) > 0 ? file.slice(0, file.indexOf('/', CORE_ROOT.length + 1)) : undefined);
  const graph = new Map<string, Set<string>>();
  const edges: Array<[string, string]> = [];
  for (const [file, targets] of moduleGraph(root, [CORE_ROOT])) {
    const from = folderOf(file);
    if (!from || TEST_FILE.test(file)) continue;
    if (!graph.has(from)) graph.set(from, new Set());
    for (const target of targets) {
      const to = folderOf(target);
      if (!to || to === from) continue;
      graph.get(from)!.add(to);
      edges.push([file, target]);
    }
  }
  return stronglyConnected(new Map([...graph].map(([folder, next]) => [folder, [...next]]))).map((folders) => ({
    folders,
    imports: edges.filter(([file, target]) => folders.includes(folderOf(file)!) && folders.includes(folderOf(target)!)).map(([file, target]) => `${file} -> ${target}`).sort(),
  }));
}

/**
 * What a file outside a core folder may import of it: its entry (`index.ts`), its test suites' entry
 * (`testing.ts`, for the hosts that run them), and test data (`__fixtures__/`, `*.fixture.ts`).
 */
const FOLDER_FACE = /^(?:index|testing)\.ts$/;
const TEST_DATA = /(?:^|\/)__fixtures__\/|\.fixture\.tsx?$/;

/**
 * Imports that reach into a core folder (`src/core/<folder>/…`) from outside it, past its entry: each
 * as `file -> target`. Tests count too: what a folder offers the rest of the code base is its entry.
 */
export function findDeepImports(root: string, folders: readonly string[] = CHECKED_FOLDERS): string[] {
  const folderOf = (file: string): string | undefined => (file.startsWith(`${CORE_ROOT}/`) && file.indexOf('/', CORE_ROOT.length + 1) > 0 ? file.slice(0, file.indexOf('/', CORE_ROOT.length + 1)) : undefined);
  const deep: string[] = [];
  for (const [file, targets] of moduleGraph(root, folders)) {
    for (const target of targets) {
      const folder = folderOf(target);
      if (!folder || folderOf(file) === folder || TEST_DATA.test(target)) continue;
      if (FOLDER_FACE.test(target.slice(folder.length + 1))) continue;
      deep.push(`${file} -> ${target}`);
    }
  }
  return deep.sort();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = join(import.meta.dirname, '..');
  const cycles = findCycles(root);
  for (const cycle of cycles) console.error(`import cycle among ${cycle.length} files:\n${cycle.map((file) => `  ${file}`).join('\n')}`);
  const folderCycles = findFolderCycles(root);
  for (const cycle of folderCycles) console.error(`the core's folders ${cycle.folders.join(', ')} import each other:\n${cycle.imports.map((line) => `  ${line}`).join('\n')}`);
  const deep = findDeepImports(root);
  if (deep.length) console.error(`imports past a core folder's entry:\n${deep.map((line) => `  ${line}`).join('\n')}`);
  if (cycles.length || folderCycles.length || deep.length) {
    if (cycles.length) console.error(`${cycles.length} import cycle(s): move what the files share into a module they both import.`);
    if (folderCycles.length) console.error(`${folderCycles.length} cycle(s) among the core's folders: move what they share into the folder below both.`);
    if (deep.length) console.error(`${deep.length} import(s) past a core folder's entry: import the folder itself (its index.ts), and export what is needed there.`);
    process.exit(1);
  }
}
