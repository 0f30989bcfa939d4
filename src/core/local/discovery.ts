/**
 * Discovery records of running local servers: `platform dev` and `platform preview` write
 * `.platform/servers/<mode>.json` as they start serving and remove it on a clean stop. A record whose
 * process is gone (a crash, a kill) is stale and means not running.
 */
import type { FileSystem } from '../fs/index.ts';
import { LOCAL_MODES, serverRecordPath, type LocalMode } from './paths.ts';

export const SERVER_RECORD_FORMAT = 'platform.local-server.v0';

/** What a running local server publishes about itself. */
export interface LocalServerRecord {
  format: typeof SERVER_RECORD_FORMAT;
  mode: LocalMode;
  /** The discovery URL (the same as preview.ready's). */
  url: string;
  pid: number;
  startedAt: string;
  /** The secret that `platform db`, `export` and `import` present to the server's admin route. */
  adminSecret?: string;
}

/** Whether a process with this id is running (given by the host: Node's signal 0, /proc). */
export type ProcessAlive = (pid: number) => boolean;

/** Reads one mode's record; undefined when there is none, it is unreadable, or it is stale. */
export async function readServerRecord(fs: FileSystem, mode: LocalMode, alive: ProcessAlive): Promise<LocalServerRecord | undefined> {
  const text = await fs.readText(serverRecordPath(mode));
  if (text === undefined) return undefined;
  let value: Partial<LocalServerRecord>;
  try {
    value = JSON.parse(text) as Partial<LocalServerRecord>;
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || typeof value.url !== 'string' || !Number.isInteger(value.pid) || typeof value.startedAt !== 'string') return undefined;
  if (!alive(value.pid!)) return undefined;
  return { format: SERVER_RECORD_FORMAT, mode, url: value.url, pid: value.pid!, startedAt: value.startedAt, ...(typeof value.adminSecret === 'string' ? { adminSecret: value.adminSecret } : {}) };
}

/**
 * The local servers running for a project directory (given as its FileSystem), dev first; stale
 * records (their process is gone) are left out. `platform inspect` uses it to find a local target.
 *
 * @example
 * const servers = await findLocalServers(host.project(dir), host.local.processAlive);
 * if (servers.length !== 1) // DG2001: none, or both dev and preview
 */
export async function findLocalServers(fs: FileSystem, alive: ProcessAlive): Promise<LocalServerRecord[]> {
  const found: LocalServerRecord[] = [];
  for (const mode of LOCAL_MODES) {
    const record = await readServerRecord(fs, mode, alive);
    if (record) found.push(record);
  }
  return found;
}
