/** The compiler's Library read from this checkout: node_modules for Preact and TypeScript, src/modules for the platform modules. */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { assembleLibrary, MODULE_FILES, type Library } from '../../core/build/library';

const require = createRequire(import.meta.url);
const ROOT = join(import.meta.dirname, '../../..');
let cached: Library | undefined;

function packageRoot(name: string): string {
  return dirname(require.resolve(`${name}/package.json`));
}

export function nodeLibrary(): Library {
  if (cached) return cached;
  const roots: Record<string, string> = { preact: packageRoot('preact'), typescript: packageRoot('typescript') };
  const readPackageFile = (path: string) => {
    const [name, ...rest] = path.split('/');
    try {
      return readFileSync(join(roots[name!]!, ...rest), 'utf8');
    } catch {
      return undefined;
    }
  };
  const moduleSources = Object.fromEntries(MODULE_FILES.map((name) => [name, readFileSync(join(ROOT, 'src/modules', name), 'utf8')])) as Record<(typeof MODULE_FILES)[number], string>;
  const toolchainVersion = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  cached = assembleLibrary({ readPackageFile, moduleSources, toolchainVersion });
  return cached;
}
