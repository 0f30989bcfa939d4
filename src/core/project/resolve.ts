/**
 * How a relative import names a project file, shared by the module graph and the bundler's plugin.
 * Without TypeScript: the bundler worker loads this, and not the type checker.
 */
import { normalizeProjectPath, type FileSystem } from '../fs/index.ts';
import { assetKind } from './packages.ts';

const SOURCE_EXTENSIONS = ['.ts', '.tsx', '.js', '.jsx', '.mjs', '.cjs'];

/** Resolves a relative specifier from a file to an existing project file, or reports why it cannot. */
export async function resolveRelative(project: { fs: Pick<FileSystem, 'stat'> }, from: string, specifier: string): Promise<{ path?: string; outside?: boolean }> {
  const base = from.includes('/') ? from.slice(0, from.lastIndexOf('/')) : '';
  const joined = normalizeProjectPath(base ? `${base}/${specifier}` : specifier);
  if (joined === undefined) return { outside: true };
  const candidates = [joined];
  // TypeScript convention: `./x.js` names `./x.ts`.
  const withoutJs = joined.replace(/\.(m|c)?jsx?$/, '');
  for (const ext of SOURCE_EXTENSIONS) candidates.push(`${withoutJs}${ext}`);
  if (!assetKind(joined)) for (const ext of SOURCE_EXTENSIONS) candidates.push(`${joined}/index${ext}`);
  for (const candidate of candidates) {
    if ((await project.fs.stat(candidate)) === 'file') return { path: candidate };
  }
  return {};
}
