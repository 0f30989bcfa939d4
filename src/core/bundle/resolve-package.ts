/** Resolves a bare import to a file of an installed package (the app's own node_modules), as bundlers do. */
import { type FileSystem, normalizeProjectPath } from '../fs/index.ts';
import { packageName } from '../project/index.ts';

const CONDITIONS = ['browser', 'import', 'module', 'default'];

function pick(target: unknown): string | undefined {
  if (typeof target === 'string') return target;
  if (Array.isArray(target)) {
    for (const item of target) {
      const found = pick(item);
      if (found) return found;
    }
    return undefined;
  }
  if (target && typeof target === 'object') {
    for (const condition of CONDITIONS) {
      if (condition in target) {
        const found = pick((target as Record<string, unknown>)[condition]);
        if (found) return found;
      }
    }
  }
  return undefined;
}

async function firstFile(fs: FileSystem, candidates: string[]): Promise<string | undefined> {
  for (const candidate of candidates) {
    const normal = normalizeProjectPath(candidate);
    if (normal !== undefined && (await fs.stat(normal)) === 'file') return normal;
  }
  return undefined;
}

/** The project-relative path of the file a bare specifier names, or undefined. */
export async function resolvePackage(fs: FileSystem, specifier: string): Promise<string | undefined> {
  const name = packageName(specifier);
  const root = `node_modules/${name}`;
  const subpath = specifier.slice(name.length);
  const text = await fs.readText(`${root}/package.json`);
  if (text === undefined) return undefined;
  let pkg: Record<string, unknown>;
  try {
    pkg = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const exportsField = pkg.exports;
  if (exportsField !== undefined) {
    const key = `.${subpath}`;
    const map = typeof exportsField === 'string' || Array.isArray(exportsField) || !Object.keys(exportsField as object).some((k) => k.startsWith('.')) ? { '.': exportsField } : (exportsField as Record<string, unknown>);
    const target = pick(map[key]);
    if (target) return firstFile(fs, [`${root}/${target}`]);
  }
  if (subpath) {
    const base = `${root}${subpath}`;
    return firstFile(fs, [base, `${base}.js`, `${base}.mjs`, `${base}/index.js`, `${base}/index.mjs`]);
  }
  const main = (typeof pkg.module === 'string' && pkg.module) || (typeof pkg.main === 'string' && pkg.main) || 'index.js';
  return firstFile(fs, [`${root}/${main}`, `${root}/${main}.js`, `${root}/${main}/index.js`, `${root}/index.js`]);
}
