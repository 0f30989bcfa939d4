/** A FileSystem over a map of project-relative paths to text: the playground's projects and the tests' fixtures. */
import { normalizeProjectPath, type EntryKind, type WritableFileSystem } from './file-system.ts';

const decoder = new TextDecoder();
const encoder = new TextEncoder();

export class MemoryFileSystem implements WritableFileSystem {
  readonly #files = new Map<string, string | Uint8Array>();

  constructor(files: Record<string, string | Uint8Array> = {}) {
    for (const [path, text] of Object.entries(files)) this.write(path, text);
  }

  write(path: string, text: string | Uint8Array): void {
    const normal = normalizeProjectPath(path);
    if (normal === undefined || normal === '') throw new Error(`Not a project-relative file path: ${path}`);
    this.#files.set(normal, text);
  }

  delete(path: string): void {
    const normal = normalizeProjectPath(path);
    if (normal !== undefined) this.#files.delete(normal);
  }

  async writeFile(path: string, data: string | Uint8Array): Promise<void> {
    this.write(path, data);
  }

  /** Every file, keyed by path, in path order. */
  entries(): Array<[string, string | Uint8Array]> {
    return [...this.#files.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  }

  async readText(path: string): Promise<string | undefined> {
    const normal = normalizeProjectPath(path);
    const data = normal === undefined ? undefined : this.#files.get(normal);
    return typeof data === 'string' || data === undefined ? data : decoder.decode(data);
  }

  async readBytes(path: string): Promise<Uint8Array | undefined> {
    const normal = normalizeProjectPath(path);
    const data = normal === undefined ? undefined : this.#files.get(normal);
    return typeof data === 'string' ? encoder.encode(data) : data;
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
