/** The compiler's Library read from this checkout: node_modules for Preact, React and TypeScript, src/modules for the platform modules. */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { assembleLibrary, MODULE_FILES, REACT_FILES, type Library } from '../../core/build/library.ts';

const CHECKOUT = join(import.meta.dirname, '../../..');
let cached: Library | undefined;

/** The Library of the checkout at `root` (this one by default): also what the playground's build embeds. */
export function nodeLibrary(root: string = CHECKOUT): Library {
  if (cached && root === CHECKOUT) return cached;
  const require = createRequire(join(root, 'package.json'));
  const packageRoot = (name: string) => dirname(require.resolve(`${name}/package.json`));
  const roots: Record<string, string> = Object.fromEntries(['preact', 'typescript', ...Object.keys(REACT_FILES)].map((name) => [name, packageRoot(name)]));
  const readPackageFile = (path: string) => {
    const parts = path.split('/');
    const name = parts[0]!.startsWith('@') ? parts.splice(0, 2).join('/') : parts.shift()!;
    try {
      return readFileSync(join(roots[name]!, ...parts), 'utf8');
    } catch {
      return undefined;
    }
  };
  const moduleSources = Object.fromEntries(MODULE_FILES.map((name) => [name, readFileSync(join(root, 'src/modules', name), 'utf8')])) as Record<(typeof MODULE_FILES)[number], string>;
  const toolchainVersion = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
  const library = assembleLibrary({ readPackageFile, moduleSources, toolchainVersion });
  if (root === CHECKOUT) cached = library;
  return library;
}
