/** An app project as the compiler sees it: its manifest, its entrypoints, its zones and its test files. */
import type { EntryKind, FileSystem } from '../fs/index.ts';
import { normalizeProjectPath } from '../fs/index.ts';
import type { Manifest } from '../manifest/index.ts';
import type { Renderer } from './packages.ts';

export type Zone = 'client' | 'server' | 'test';
export type Owner = Zone | 'shared' | 'unowned';

export const SHARED_ROOT = 'src/shared';
export const TESTS_ROOT = 'tests';
/** Where a lesson's steps are (core/lesson): not the app's files, so the analysis keeps them out of the check unless the app imports one. */
export const LESSON_ROOT = 'lesson';

/** A test file: `tests/**\/*.test.ts` or `.test.tsx` (the one rule, for every host). */
export const isTestFile = (path: string): boolean => path.startsWith(`${TESTS_ROOT}/`) && /\.test\.tsx?$/.test(path);

export interface Project {
  fs: FileSystem;
  manifest: Manifest;
  clientEntry: string;
  serverEntry: string;
  /** `tests/**\/*.test.ts`, sorted. */
  testFiles: string[];
  /** The folder each zone owns, when its entrypoint's folder can be told apart from the other's. */
  zoneRoots: Partial<Record<Zone, string>>;
  /** The renderer the client zone selected (set by the analysis from the module graph; Preact when absent). */
  renderer?: Renderer;
  /**
   * The files as this analysis found them (set by the analysis): the module graph and the bundler
   * resolve and load from it, so one build sees one state of the files, and each file is read once.
   */
  snapshot?: ProjectSnapshot;
}

/**
 * Every file under the project root as `listFiles` lists them (node_modules and dot-folders aside),
 * sorted, and the text of each source file, read once. Plain data: it travels to a bundle thread.
 */
export interface ProjectSnapshot {
  files: readonly string[];
  texts: ReadonlyMap<string, string>;
}

/** A path with a segment `listFiles` skips: node_modules, or a name that starts with a dot. */
const UNLISTED = /(?:^|\/)(?:node_modules(?:\/|$)|\.)/;

/** Each snapshot's files and the folders that hold them, as sets (made once per snapshot). */
const indexes = new WeakMap<ProjectSnapshot, { files: Set<string>; directories: Set<string> }>();

/**
 * What a snapshot says a path is: a file, a folder, or nothing (`undefined`); `'unlisted'` for a path
 * `listFiles` does not walk (under node_modules or a dot-folder), which only the file system can answer.
 */
export function snapshotStat(snapshot: ProjectSnapshot, path: string): EntryKind | undefined | 'unlisted' {
  if (UNLISTED.test(path)) return 'unlisted';
  let index = indexes.get(snapshot);
  if (!index) {
    const directories = new Set<string>(['']);
    for (const file of snapshot.files) for (let i = file.indexOf('/'); i > 0; i = file.indexOf('/', i + 1)) directories.add(file.slice(0, i));
    indexes.set(snapshot, (index = { files: new Set(snapshot.files), directories }));
  }
  return index.files.has(path) ? 'file' : index.directories.has(path) ? 'directory' : undefined;
}

function dirname(path: string): string {
  const index = path.lastIndexOf('/');
  return index < 0 ? '' : path.slice(0, index);
}

function within(path: string, root: string): boolean {
  return root !== '' && (path === root || path.startsWith(`${root}/`));
}

/** Every file under a folder, recursively, sorted; `node_modules` and dot-folders are skipped. */
export async function listFiles(fs: FileSystem, root: string): Promise<string[]> {
  const out: string[] = [];
  const skipped = (name: string) => name === 'node_modules' || name.startsWith('.');
  const entries = async (dir: string) =>
    fs.readDirEntries?.(dir) ?? Promise.all((await fs.readDir(dir)).filter((name) => !skipped(name)).map(async (name) => ({ name, kind: await fs.stat(dir ? `${dir}/${name}` : name) })));
  const walk = async (dir: string) => {
    for (const { name, kind } of await entries(dir)) {
      if (skipped(name)) continue;
      const path = dir ? `${dir}/${name}` : name;
      if (kind === 'directory') await walk(path);
      else if (kind === 'file') out.push(path);
    }
  };
  if ((await fs.stat(root)) === 'directory') await walk(root);
  return out.sort();
}

/** `listed`: every file under the root, as `listFiles(fs, '')` gives them (the tests are found among them instead of listed again). */
export async function openProject(fs: FileSystem, manifest: Manifest, listed?: readonly string[]): Promise<Project> {
  const clientEntry = normalizeProjectPath(manifest.entrypoints.client) ?? manifest.entrypoints.client;
  const serverEntry = normalizeProjectPath(manifest.entrypoints.server) ?? manifest.entrypoints.server;
  const inTests = listed ? listed.filter((f) => f.startsWith(`${TESTS_ROOT}/`)) : await listFiles(fs, TESTS_ROOT);
  const testFiles = inTests.filter(isTestFile);
  // An entrypoint's folder is its zone's own only when it holds neither the other entrypoint nor shared code.
  const zoneRoots: Partial<Record<Zone, string>> = {};
  const clientDir = dirname(clientEntry);
  const serverDir = dirname(serverEntry);
  if (clientDir && !within(serverEntry, clientDir) && !within(SHARED_ROOT, clientDir) && !within(TESTS_ROOT, clientDir)) zoneRoots.client = clientDir;
  if (serverDir && !within(clientEntry, serverDir) && !within(SHARED_ROOT, serverDir) && !within(TESTS_ROOT, serverDir)) zoneRoots.server = serverDir;
  zoneRoots.test = TESTS_ROOT;
  return { fs, manifest, clientEntry, serverEntry, testFiles, zoneRoots };
}

/** Which zone a file belongs to by where it lives. */
export function ownerOf(project: Project, path: string): Owner {
  if (within(path, SHARED_ROOT)) return 'shared';
  for (const zone of ['test', 'client', 'server'] as const) {
    const root = project.zoneRoots[zone];
    if (root !== undefined && within(path, root)) return zone;
  }
  if (path === project.clientEntry) return 'client';
  if (path === project.serverEntry) return 'server';
  return 'unowned';
}
