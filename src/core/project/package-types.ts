/**
 * What the type checker needs of the app's installed dependencies: each declared package's
 * `package.json` and declaration files (read), and which of its JavaScript files exist (not read:
 * the checker never reads JavaScript under node_modules, but whether it is there decides between
 * "no declaration file" and "cannot find module"). Packages the declarations import, and their
 * `@types`, come along.
 */
import type { FileSystem } from '../fs/index.ts';

/** Read for the checker: manifests and declarations (a package may also ship `.ts` sources as its types). */
const READ = /(^|\/)package\.json$|\.(d\.[cm]?ts|[cm]?tsx?)$/;
/** Known to exist only. */
const PRESENT = /\.([cm]?jsx?|json)$/;

export interface PackageFiles {
  /** Project-relative path (`node_modules/…`) → text. */
  texts: Map<string, string>;
  /** Project-relative paths of files the checker may resolve to without reading. */
  present: Set<string>;
}

interface CachedPackage {
  /** The package.json text the files were read with: a reinstall changes it. */
  manifest: string;
  texts: Map<string, string>;
  present: string[];
  requires: string[];
}

/** Packages read by earlier loads, by folder; a long-lived host (the dev loop, the playground) keeps one. */
export type PackageCache = Map<string, CachedPackage>;

function typesPackage(name: string): string {
  return `@types/${name.startsWith('@') ? name.slice(1).replace('/', '__') : name}`;
}

function requiresOf(manifest: string): string[] {
  try {
    const pkg = JSON.parse(manifest) as Record<string, unknown>;
    const names = new Set<string>();
    for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies']) {
      const deps = pkg[field];
      if (deps && typeof deps === 'object') for (const name of Object.keys(deps)) names.add(name);
    }
    return [...names];
  } catch {
    return [];
  }
}

async function readPackage(fs: FileSystem, root: string, manifest: string): Promise<CachedPackage> {
  const texts = new Map<string, string>();
  const present: string[] = [];
  const walk = async (dir: string) => {
    for (const name of await fs.readDir(dir)) {
      if (name === '.git') continue;
      const path = `${dir}/${name}`;
      const kind = await fs.stat(path);
      if (kind === 'directory') await walk(path);
      else if (kind === 'file' && READ.test(path)) {
        const text = await fs.readText(path);
        if (text !== undefined) texts.set(path, text);
      } else if (kind === 'file' && PRESENT.test(path)) present.push(path);
    }
  };
  await walk(root);
  return { manifest, texts, present, requires: requiresOf(manifest) };
}

/**
 * The files of the named packages (the app's declared dependencies) as installed in `node_modules`,
 * with the packages they depend on and their `@types`. Packages not installed are skipped (DG1208
 * reports them), and so are the `exclude`d (what the platform supplies).
 */
export async function loadPackageFiles(fs: FileSystem, names: readonly string[], options: { cache?: PackageCache; exclude?: readonly string[] } = {}): Promise<PackageFiles> {
  const { cache = new Map(), exclude = [] } = options;
  const out: PackageFiles = { texts: new Map(), present: new Set() };
  const withTypes = (name: string) => (exclude.includes(name) ? [] : name.startsWith('@types/') ? [name] : [name, typesPackage(name)]);
  const queue = names.flatMap(withTypes);
  const seen = new Set<string>();
  while (queue.length) {
    const name = queue.shift()!;
    if (seen.has(name)) continue;
    seen.add(name);
    const root = `node_modules/${name}`;
    const manifest = await fs.readText(`${root}/package.json`);
    if (manifest === undefined) continue;
    let pkg = cache.get(root);
    if (pkg?.manifest !== manifest) {
      pkg = await readPackage(fs, root, manifest);
      cache.set(root, pkg);
    }
    for (const [path, text] of pkg.texts) out.texts.set(path, text);
    for (const path of pkg.present) out.present.add(path);
    for (const required of pkg.requires) queue.push(...withTypes(required));
  }
  return out;
}
