/** The compiler's Library read from this checkout: node_modules for Preact, React and TypeScript, src/modules for the platform modules. */
import { createHash, randomBytes } from 'node:crypto';
import { lstatSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { assembleLibrary, MODULE_FILES, REACT_FILES, type Library } from '../../core/project/index.ts';

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

/**
 * The Library's platform modules and Preact as files esbuild can read itself (Bundler's `libraryOnDisk`,
 * the native mode): Library path → absolute path. Copies of the Library's texts, not the checkout's
 * files: the Library is what the plugin would give (a prebuilt CLI's is the one it was built with), and
 * Preact's files in node_modules sit beside source maps esbuild would follow, which the plugin's build
 * never sees. They are written once per Library into the temporary folder, in a folder named by this
 * user and the texts' digest, taken only if it is this user's own, private, and not a link (another
 * user could have made it first); else into a new private folder (mkdtemp) removed at exit. Each file
 * is read before it is used and written again (to a temporary name, then renamed) unless it holds the
 * text. An empty package.json at the top and in each package keeps a package.json above the temporary
 * folder from reaching these files.
 */
export function libraryOnDisk(library: Library): Map<string, string> {
  const scripts = [...library.files].filter(([path]) => /^\/node_modules\/(?:platform|preact)\/.+\.(?:ts|m?js)$/.test(path) && !path.endsWith('.d.ts'));
  const digest = createHash('sha256').update(JSON.stringify(scripts)).digest('hex').slice(0, 16);
  const uid = process.getuid?.();
  let folder = join(tmpdir(), `platform-library-${uid ?? 'user'}-${digest}`);
  try {
    mkdirSync(folder, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const found = lstatSync(folder);
  if (!found.isDirectory() || found.isSymbolicLink() || (uid !== undefined && found.uid !== uid) || (found.mode & 0o077) !== 0) {
    const own = mkdtempSync(join(tmpdir(), 'platform-library-'));
    process.once('exit', () => rmSync(own, { recursive: true, force: true }));
    folder = own;
  }
  folder = realpathSync(folder);
  const put = (file: string, text: string) => {
    let kept: string | undefined;
    try {
      kept = readFileSync(file, 'utf8');
    } catch {
      kept = undefined;
    }
    if (kept === text) return;
    mkdirSync(dirname(file), { recursive: true });
    const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    writeFileSync(temporary, text);
    renameSync(temporary, file);
  };
  put(join(folder, 'package.json'), '{}\n');
  for (const name of new Set(scripts.map(([path]) => path.split('/')[2]!))) put(join(folder, 'node_modules', name, 'package.json'), '{}\n');
  const onDisk = new Map<string, string>();
  for (const [path, text] of scripts) {
    const file = join(folder, path);
    put(file, text);
    onDisk.set(path, file);
  }
  return onDisk;
}
