/**
 * Watches a project's tree for `platform dev`: one non-recursive fs.watch (inotify on Linux) per
 * directory, added as directories appear, because Node 20's recursive watch on Linux delivers events
 * late and loses files an editor replaces by rename. `.platform/` is watched itself (its env files) but
 * not below; `node_modules/` and `.git/` not at all.
 */
import { readdirSync, statSync, watch, type FSWatcher } from 'node:fs';
import { join, relative, sep } from 'node:path';

const SKIPPED = new Set(['node_modules', '.git']);

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

export class TreeWatcher {
  readonly #root: string;
  readonly #onChange: (paths: string[]) => void;
  readonly #watchers = new Map<string, FSWatcher>();
  #closed = false;

  /** Starts watching; throws when the root itself cannot be watched. */
  constructor(root: string, onChange: (paths: string[]) => void) {
    this.#root = root;
    this.#onChange = onChange;
    this.#add(root, true);
  }

  #relative(path: string): string {
    return relative(this.#root, path).split(sep).join('/');
  }

  #add(dir: string, required = false): void {
    if (this.#closed || this.#watchers.has(dir)) return;
    let watcher: FSWatcher;
    try {
      watcher = watch(dir, (_event, name) => {
        if (!name) return;
        const path = join(dir, String(name));
        // A directory that appeared (or was replaced) is watched too, with what is already in it.
        if (this.#descend(dir) && !SKIPPED.has(String(name)) && isDirectory(path)) this.#add(path);
        this.#onChange([this.#relative(path)]);
      });
    } catch (error) {
      if (required) throw error;
      return;
    }
    watcher.on('error', () => {
      watcher.close();
      this.#watchers.delete(dir);
    });
    this.#watchers.set(dir, watcher);
    if (this.#descend(dir)) this.#walkBelow(dir);
  }

  /** Whether the watch goes below this directory. */
  #descend(dir: string): boolean {
    const path = this.#relative(dir);
    return path !== '.platform' && !path.startsWith('.platform/');
  }

  #walkBelow(dir: string): void {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (!entry.isDirectory() || SKIPPED.has(entry.name)) continue;
      const path = join(dir, entry.name);
      this.#add(path);
    }
  }

  close(): void {
    this.#closed = true;
    for (const watcher of this.#watchers.values()) watcher.close();
    this.#watchers.clear();
  }
}
