/**
 * `platform check`'s answer kept in the project's `.platform/check-cache.json`, so checking a project
 * nothing changed in since its last check answers without type-checking it again.
 *
 * What the check read is its key: every read of the project's file system (text, bytes, kind, folder
 * listing; the sources, the manifest, package.json and the declarations of installed packages alike) is
 * recorded in order with a digest of its result, and the answer (the whole printed output and the exit
 * status) is kept with that trace. A later check with the same arguments reads the same paths again:
 * only when every result is the same, and the CLI is the same (this build of it, the TypeScript and the
 * platform's library it checks with), is the kept answer printed. Whatever the check did not read cannot
 * change its answer, so an edit of anything it read is checked again.
 *
 * The file also keeps the type checker's per-file results of that check (KeptResults, kept and taken by
 * KeptResultsSession in src/adapters/node/compiler.ts), each under a digest of what it depends on: a
 * check after an edit, whose kept answer no longer holds, types only the files whose keys changed.
 *
 * A cloned repository is a stranger: the file is signed with a key made anew by every build of the CLI
 * (`build/cli/check-cache.key`, scripts/build-cli.ts), and a file that is not whole, not well formed or
 * not signed by this build is ignored (and replaced by the next check), never trusted. A CLI whose build
 * is not current (the sources ran) keeps no answer. The file is written through the confined writer
 * (NodeFileSystem.writeFile), which follows no link; a write refused or failing changes nothing of the
 * check's answer.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { closeSync, constants, fstatSync, lstatSync, openSync, readFileSync, readSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { prebuiltEntry } from '../../bin/prebuilt.mjs';
import type { Library } from '../core/project';
import type { EntryKind, WritableFileSystem } from '../core/fs';
import { MANIFEST_FILE } from '../core/manifest';
import type { KeptResults } from '../adapters/node/compiler';
import { nodeLibrary } from '../adapters/node/library';
import { startupSnapshot } from '../adapters/node/startup-snapshot';

/** Project-relative: where a project's kept answer is. */
export const CHECK_CACHE_FILE = '.platform/check-cache.json';
/** Checkout-relative: the key a build of the CLI signs kept answers with (written by scripts/build-cli.ts). */
export const CHECK_CACHE_KEY = 'build/cli/check-cache.key';
const FORMAT = 'platform.check-cache.v1';
/** A kept answer larger than this is not read (a check's answer is some kilobytes). */
const MAX_BYTES = 8 * 1024 * 1024;
const CHECKOUT = new URL('../../', import.meta.url);

/** One read of the check: the operation, the project-relative path, and a digest of what it returned (null: nothing there). */
type Read = [op: 'text' | 'bytes' | 'stat' | 'dir', path: string, result: string | null];

export interface CheckAnswer {
  output: string;
  exitCode: number;
}

const digest = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');
const listing = (names: readonly string[]) => digest(names.join('\0'));

/**
 * The project directory of a `check` invocation whose answer may be kept: `check`, at most one
 * directory, and `--json` (anywhere, as runCommandLine takes it); undefined for anything else.
 */
export function checkDirectory(args: readonly string[]): string | undefined {
  const rest = args.filter((arg) => arg !== '--json');
  if (rest[0] !== 'check' || rest.length > 2) return undefined;
  const directory = rest[1] ?? '.';
  return directory.startsWith('-') ? undefined : directory;
}

const libraryDigests = new WeakMap<Library, string>();

/** A digest of the platform's library (the declarations and modules every app is checked against); kept per library. */
export function libraryDigest(library: Library): string {
  let known = libraryDigests.get(library);
  if (!known) {
    const hash = createHash('sha256');
    for (const [path, text] of [...library.files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) hash.update(`${path}\0${text}\0`);
    libraryDigests.set(library, (known = hash.digest('hex')));
  }
  return known;
}

/** The version of the TypeScript a check runs: the start-up snapshot's, else the one the CLI would load (read without loading it). */
function typescriptVersion(): string {
  const loaded = startupSnapshot()?.ts.version;
  if (loaded) return loaded;
  const require = createRequire(new URL('package.json', CHECKOUT));
  return (JSON.parse(readFileSync(require.resolve('typescript/package.json'), 'utf8')) as { version: string }).version;
}

/**
 * The key this CLI signs kept answers with, and what identifies the CLI besides it: undefined (no
 * answer kept or used) unless the prebuilt CLI is current, so the build the key belongs to is the code
 * running.
 */
export function buildCheckCacheKey(): { key: Uint8Array; identity: string } | undefined {
  try {
    if (!prebuiltEntry(CHECKOUT)) return undefined;
    const key = readFileSync(new URL(CHECK_CACHE_KEY, CHECKOUT));
    if (key.length < 32) return undefined;
    return { key, identity: checkIdentity() };
  } catch {
    return undefined;
  }
}

/** What a check's answer depends on in the CLI beyond its build: TypeScript's version, the library and Node's version. */
export function checkIdentity(library: Library = nodeLibrary()): string {
  return JSON.stringify([typescriptVersion(), libraryDigest(library), process.version]);
}

/**
 * The project's file system as the check sees it, recording each read (see the module's comment). A
 * write, or a read whose result differs from the same read earlier in the run (a file edited while it
 * was checked), makes the trace unusable: nothing is kept.
 */
export class RecordingFileSystem implements WritableFileSystem {
  readonly #inner: WritableFileSystem;
  readonly reads: Read[] = [];
  readonly #seen = new Map<string, string | null>();
  /** The names of each folder listed, for `kept`. */
  readonly #listings = new Map<string, string[]>();
  usable = true;

  constructor(inner: WritableFileSystem) {
    this.#inner = inner;
  }

  #note(op: Read[0], path: string, result: string | null): void {
    const at = `${op}\0${path}`;
    if (!this.#seen.has(at)) {
      this.#seen.set(at, result);
      this.reads.push([op, path, result]);
    } else if (this.#seen.get(at) !== result) {
      this.usable = false;
    }
  }

  async readText(path: string): Promise<string | undefined> {
    const text = await this.#inner.readText(path);
    this.#note('text', path, text === undefined ? null : digest(text));
    return text;
  }

  async readBytes(path: string): Promise<Uint8Array | undefined> {
    const bytes = await this.#inner.readBytes(path);
    this.#note('bytes', path, bytes === undefined ? null : digest(bytes));
    return bytes;
  }

  async stat(path: string): Promise<EntryKind | undefined> {
    const kind = await this.#inner.stat(path);
    this.#note('stat', path, kind ?? null);
    return kind;
  }

  async readDir(path: string): Promise<string[]> {
    const names = await this.#inner.readDir(path);
    this.#note('dir', path, listing(names));
    if (!this.#listings.has(path)) this.#listings.set(path, names);
    return names;
  }

  async writeFile(path: string, data: string | Uint8Array): Promise<void> {
    this.usable = false;
    return this.#inner.writeFile(path, data);
  }

  /**
   * The trace as the project will read once the answer is kept: keeping it makes `.platform/` where
   * there was none, which the project's own listing then shows.
   */
  kept(): Read[] {
    return this.reads.map(([op, path, result]): Read => {
      const names = op === 'dir' && (path === '' || path === '.') ? this.#listings.get(path) : undefined;
      if (!names || names.includes('.platform')) return [op, path, result];
      return [op, path, listing([...names, '.platform'].sort())];
    });
  }
}

function inCheckoutTemplates(root: string): boolean {
  try {
    const templates = realpathSync(fileURLToPath(new URL('templates', CHECKOUT)));
    const real = realpathSync(root);
    return real === templates || real.startsWith(`${templates}${sep}`);
  } catch {
    return false;
  }
}

/** The signature of a kept answer: over the CLI's identity, the arguments, the trace, the answer and the per-file results. */
function sign(key: Uint8Array, identity: string, args: readonly string[], reads: readonly Read[], answer: CheckAnswer, results: KeptResults | null): string {
  return createHmac('sha256', key).update(JSON.stringify([FORMAT, identity, args, reads, answer.output, answer.exitCode, results])).digest('hex');
}

/** The kept answer's text, or undefined: only a regular file (no link, no device or pipe) of at most MAX_BYTES. */
function readKeptFile(root: string): string | undefined {
  try {
    if (!lstatSync(join(root, '.platform')).isDirectory()) return undefined;
    const fd = openSync(join(root, CHECK_CACHE_FILE), constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
    try {
      const stat = fstatSync(fd);
      if (!stat.isFile() || stat.size > MAX_BYTES) return undefined;
      const buffer = Buffer.alloc(stat.size);
      let offset = 0;
      while (offset < stat.size) {
        const read = readSync(fd, buffer, offset, stat.size - offset, offset);
        if (read === 0) break;
        offset += read;
      }
      return buffer.subarray(0, offset).toString('utf8');
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
}

const isRead = (value: unknown): value is Read =>
  Array.isArray(value) &&
  value.length === 3 &&
  ['text', 'bytes', 'stat', 'dir'].includes(value[0] as string) &&
  typeof value[1] === 'string' &&
  (value[2] === null || typeof value[2] === 'string');

/** The same read again, on the project as it is now. */
async function readAgain(fs: WritableFileSystem, [op, path]: Read): Promise<string | null> {
  if (op === 'text') {
    const text = await fs.readText(path);
    return text === undefined ? null : digest(text);
  }
  if (op === 'bytes') {
    const bytes = await fs.readBytes(path);
    return bytes === undefined ? null : digest(bytes);
  }
  if (op === 'stat') return (await fs.stat(path)) ?? null;
  return listing(await fs.readDir(path));
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Per-file results of the shape KeptResults has (they are used only when signed by this build; a shape check besides). */
function isResults(value: unknown): value is KeptResults {
  if (!isRecord(value) || typeof value.packages !== 'string' || !isRecord(value.checked) || !isRecord(value.signatures)) return false;
  if (!Object.values(value.checked).every((entry) => isRecord(entry) && typeof entry.key === 'string' && Array.isArray(entry.diagnostics))) return false;
  if (!Object.values(value.signatures).every((entry) => isRecord(entry) && typeof entry.text === 'string' && typeof entry.context === 'string')) return false;
  const declarations = value.declarations;
  return declarations === null || (isRecord(declarations) && Array.isArray(declarations.keys) && isRecord(declarations.files));
}

/** What a project's kept file gives a check: the answer, and the per-file results (either may be absent). */
export interface Kept {
  answer?: CheckAnswer;
  results?: KeptResults;
}

/**
 * What the project at `root` (`fs` its file system) keeps for `check` with these arguments, when it is
 * signed with `key` for this `identity`: the answer, when the arguments are the same and every read it
 * recorded returns the same now; and the per-file results (keyed by digests of what each depends on,
 * KeptResults), whatever changed since.
 */
export async function readKept(fs: WritableFileSystem, root: string, args: readonly string[], key: Uint8Array, identity: string): Promise<Kept> {
  const text = readKeptFile(root);
  if (text === undefined) return {};
  let kept: { format?: unknown; args?: unknown; reads?: unknown; output?: unknown; exitCode?: unknown; results?: unknown; signature?: unknown };
  try {
    kept = JSON.parse(text) as typeof kept;
  } catch {
    return {};
  }
  if (!isRecord(kept) || kept.format !== FORMAT || typeof kept.output !== 'string' || typeof kept.signature !== 'string') return {};
  if (!Number.isInteger(kept.exitCode) || !Array.isArray(kept.args) || !kept.args.every((arg) => typeof arg === 'string') || !Array.isArray(kept.reads) || !kept.reads.every(isRead)) return {};
  const results = kept.results === null || isResults(kept.results) ? kept.results : undefined;
  if (results === undefined) return {};
  const answer = { output: kept.output, exitCode: kept.exitCode as number };
  const expected = Buffer.from(sign(key, identity, kept.args as string[], kept.reads, answer, results), 'hex');
  const given = Buffer.from(kept.signature, 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return {};
  const found: Kept = results ? { results } : {};
  if (kept.args.length !== args.length || kept.args.some((arg, i) => arg !== args[i])) return found;
  for (const read of kept.reads) if ((await readAgain(fs, read)) !== read[2]) return found;
  return { ...found, answer };
}

/**
 * Keeps the answer of a check whose reads `recorded` holds, with its per-file results (`results`, null
 * for none); a trace that cannot stand, or a write that fails or is refused, keeps nothing.
 */
export async function keepAnswer(fs: WritableFileSystem, root: string, recorded: RecordingFileSystem, args: readonly string[], key: Uint8Array, identity: string, answer: CheckAnswer, results: KeptResults | null): Promise<void> {
  // Only a project's answer: a directory without a manifest gets no `.platform/` of the CLI's making.
  if (!recorded.usable || !recorded.reads.some(([op, path, result]) => op === 'text' && path === MANIFEST_FILE && result !== null)) return;
  // Nor the CLI's own templates in its checkout: what `platform new` copies, and tests copy whole.
  if (inCheckoutTemplates(root)) return;
  const reads = recorded.kept();
  const text = JSON.stringify({ format: FORMAT, args, reads, output: answer.output, exitCode: answer.exitCode, results, signature: sign(key, identity, args, reads, answer, results) });
  try {
    await fs.writeFile(CHECK_CACHE_FILE, `${text}\n`);
  } catch {
    // Best effort: the answer stands whether or not it was kept.
  }
}
