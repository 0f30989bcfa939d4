/**
 * The app's declared npm dependencies: installed or not (DG1208), renderer packages the platform
 * provides (DG1210, DG1211), and the untyped-dependency acknowledgments (DG1212 to DG1214).
 */
import { diagnostic, type Diagnostic } from '../diagnostics/index.ts';
import { JsonDocument, MANIFEST_FILE } from '../manifest/index.ts';
import type { FileSystem } from '../fs/index.ts';
import type { PackageJson } from './graph.ts';

export interface DependencyFacts {
  /** The versions of the renderer packages the platform supplies (preact, react, react-dom), to compare an installed copy against. */
  rendererVersions: Readonly<Record<string, string>>;
  /** Why packages cannot be installed in this host, when they cannot (the browser without a WebContainer). */
  installUnavailable?: string;
}

async function readJson(fs: FileSystem, path: string): Promise<Record<string, unknown> | undefined> {
  const text = await fs.readText(path);
  if (text === undefined) return undefined;
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** True when an installed package ships type declarations, or has them under @types. */
export async function hasTypes(fs: FileSystem, name: string): Promise<boolean> {
  const pkg = await readJson(fs, `node_modules/${name}/package.json`);
  if (pkg && (typeof pkg.types === 'string' || typeof pkg.typings === 'string')) return true;
  if (pkg && JSON.stringify(pkg.exports ?? {}).includes('"types"')) return true;
  if ((await fs.stat(`node_modules/${name}/index.d.ts`)) === 'file') return true;
  const typesName = name.startsWith('@') ? name.slice(1).replace('/', '__') : name;
  return (await fs.stat(`node_modules/@types/${typesName}/package.json`)) === 'file';
}

export async function checkDependencies(fs: FileSystem, packageJson: PackageJson | undefined, untyped: readonly string[], manifestText: string, facts: DependencyFacts): Promise<Diagnostic[]> {
  const out: Diagnostic[] = [];
  const deps = packageJson?.dependencies ?? {};
  const pkgText = (await fs.readText('package.json')) ?? '';
  const pkgDoc = new JsonDocument(pkgText);
  const at = (name: string) => ({ file: 'package.json', span: pkgDoc.keySpan(['dependencies', name]) });

  for (const name of Object.keys(deps)) {
    const supplied = Object.prototype.hasOwnProperty.call(facts.rendererVersions, name) ? facts.rendererVersions[name] : undefined;
    if (supplied !== undefined) {
      out.push(diagnostic('DG1210', `package.json declares "${name}", which the platform provides.`, { ...at(name), hint: `Remove "${name}" from dependencies: the platform supplies the renderer, so your copy is never used.` }));
      const installed = await readJson(fs, `node_modules/${name}/package.json`);
      if (installed && typeof installed.version === 'string' && installed.version !== supplied) {
        out.push(diagnostic('DG1211', `The installed ${name} is ${installed.version}, but the platform bundles ${supplied}.`, { ...at(name), hint: `Remove ${name} from dependencies and node_modules; the platform supplies it.` }));
      }
      continue;
    }
    if ((await fs.stat(`node_modules/${name}/package.json`)) !== 'file') {
      const why = facts.installUnavailable ? ` ${facts.installUnavailable}` : '';
      out.push(diagnostic('DG1208', `The dependency "${name}" is declared but not installed.${why}`, { ...at(name), hint: facts.installUnavailable ? 'Use the CLI (npm install, then platform build), or the terminal where a WebContainer is available.' : 'Run npm install in the project.' }));
    }
  }

  const manifestDoc = new JsonDocument(manifestText);
  for (const [index, name] of untyped.entries()) {
    const span = manifestDoc.valueSpan(['untypedDependencies', index]);
    if (!Object.prototype.hasOwnProperty.call(deps, name)) {
      out.push(diagnostic('DG1212', `untypedDependencies lists "${name}", which package.json does not declare in dependencies.`, { file: MANIFEST_FILE, span, hint: `Remove "${name}" from untypedDependencies, or add it to dependencies.` }));
    } else if ((await fs.stat(`node_modules/${name}/package.json`)) === 'file') {
      if (await hasTypes(fs, name)) {
        out.push(diagnostic('DG1213', `untypedDependencies lists "${name}", but it has type declarations; the acknowledgment is ignored.`, { file: MANIFEST_FILE, span, hint: `Remove "${name}" from untypedDependencies.` }));
      } else {
        out.push(diagnostic('DG1214', `"${name}" has no type declarations and is acknowledged: it is typed as any.`, { file: MANIFEST_FILE, span }));
      }
    }
  }
  return out;
}
