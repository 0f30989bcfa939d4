/** What the benches read of a process from /proc (Linux): its resident memory. */
import { readFileSync } from 'node:fs';

/** A process's resident memory in bytes (VmRSS of /proc/<pid>/status); undefined once it is gone. */
export function residentBytes(pid: number): number | undefined {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const kib = /^VmRSS:\s+(\d+) kB/m.exec(status)?.[1];
  return kib === undefined ? undefined : Number(kib) * 1024;
}
