/**
 * A small per-project record the page keeps in localStorage under `<prefix>:<projectId>`: the
 * playground's layout, each file's cursor and scroll, a lesson's progress. Each read, write and
 * removal is inside its own try, the read of `localStorage` included: where a browser refuses a frame
 * its storage (an embed on another site) reading `localStorage` itself throws, and in Node there is
 * none. A record that is missing, unreadable or refused is the kind's fallback; a write that is
 * refused (or finds the storage full) is only not kept.
 */
export interface ProjectEntry<T> {
  load(projectId: string, storage?: Pick<Storage, 'getItem'>): T;
  save(projectId: string, value: T, storage?: Pick<Storage, 'setItem'>): void;
  /** A deleted project's record goes with it. */
  forget(projectId: string, storage?: Pick<Storage, 'removeItem'>): void;
}

/** `parse`: the kept JSON (null when there is none) to a value, which may throw for the fallback. */
export function projectEntry<T>(prefix: string, parse: (kept: unknown) => T, fallback: () => T): ProjectEntry<T> {
  const key = (projectId: string) => `${prefix}:${projectId}`;
  return {
    load(projectId, storage) {
      try {
        return parse(JSON.parse((storage ?? localStorage).getItem(key(projectId)) ?? 'null'));
      } catch {
        return fallback();
      }
    },
    save(projectId, value, storage) {
      try {
        (storage ?? localStorage).setItem(key(projectId), JSON.stringify(value));
      } catch {
        // Refused or full: only not kept.
      }
    },
    forget(projectId, storage) {
      try {
        (storage ?? localStorage).removeItem(key(projectId));
      } catch {
        // Refused: nothing was kept.
      }
    },
  };
}
