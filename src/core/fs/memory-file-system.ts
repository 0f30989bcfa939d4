/** A FileSystem over a map of project-relative paths to text: the playground's projects and the tests' fixtures. */
import { normalizeProjectPath, type EntryKind, type FileSystem } from './file-system';

export class MemoryFileSystem implements FileSystem {
  readonly #files = new Map<string, string>();

  constructor(files: Record<string, string> = {}) {
    for (const [path, text] of Object.entries(files)) this.write(path, text);
  }

  write(path: string, text: string): void {
    const normal = normalizeProjectPath(path);
    if (normal === undefined || normal === '') throw new Error(`Not a project-relative file path: ${path}`);
    this.#files.set(normal, text);
  }

  delete(path: string): void {
    const normal = normalizeProjectPath(path);
    if (normal !== undefined) this.#files.delete(normal);
  }

  /** Every file, keyed by path, in path order. */
  entries(): Array<[string, string]> {
    return [...this.#files.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }

  async readText(path: string): Promise<string | undefined> {
    const normal = normalizeProjectPath(path);
    return normal === undefined ? undefined : this.#files.get(normal);
  }

  async stat(path: string): Promise<EntryKind | undefined> {
    const normal = normalizeProjectPath(path);
    if (normal === undefined) return undefined;
    if (normal === '') return 'directory';
    if (this.#files.has(normal)) return 'file';
    const prefix = `${normal}/`;
    for (const key of this.#files.keys()) if (key.startsWith(prefix)) return 'directory';
    return undefined;
  }

  async readDir(path: string): Promise<string[]> {
    const normal = normalizeProjectPath(path);
    if (normal === undefined) return [];
    const prefix = normal === '' ? '' : `${normal}/`;
    const names = new Set<string>();
    for (const key of this.#files.keys()) {
      if (key.startsWith(prefix)) names.add(key.slice(prefix.length).split('/')[0]!);
    }
    return [...names].sort();
  }
}
