/**
 * One tab per project: a Web Locks lease held while a project is open. A second tab that cannot take
 * the lease asks, over a BroadcastChannel, which tab holds it and since when, so it can say so plainly.
 */

const CHANNEL = 'platform-playground-leases';

export interface LeaseHolder {
  /** When the holding tab opened the project (ms since the epoch). */
  since: number;
  /** The holding tab's title, as it describes itself. */
  label: string;
}

export type LeaseResult = { held: true; release(): void } | { held: false; holder?: LeaseHolder };

/** Tries to take the lease on a project without waiting. */
export async function acquireLease(projectId: string, label: string): Promise<LeaseResult> {
  const name = `platform-project:${projectId}`;
  if (!('locks' in navigator)) return { held: true, release() {} };
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const acquired = await new Promise<boolean>((resolve) => {
    void navigator.locks.request(name, { ifAvailable: true }, async (lock) => {
      resolve(lock !== null);
      if (lock) await released;
    });
  });
  if (!acquired) return { held: false, holder: await askHolder(projectId) };
  const since = Date.now();
  const channel = new BroadcastChannel(CHANNEL);
  channel.onmessage = (event: MessageEvent<{ type: string; projectId: string }>) => {
    if (event.data.type === 'who-holds' && event.data.projectId === projectId) channel.postMessage({ type: 'held-by', projectId, since, label });
  };
  return {
    held: true,
    release() {
      channel.close();
      release();
    },
  };
}

/** Asks the other tabs who holds a project; resolves undefined when none answers within 300 ms. */
function askHolder(projectId: string): Promise<LeaseHolder | undefined> {
  return new Promise((resolve) => {
    const channel = new BroadcastChannel(CHANNEL);
    const timer = setTimeout(() => {
      channel.close();
      resolve(undefined);
    }, 300);
    channel.onmessage = (event: MessageEvent<{ type: string; projectId: string; since: number; label: string }>) => {
      if (event.data.type !== 'held-by' || event.data.projectId !== projectId) return;
      clearTimeout(timer);
      channel.close();
      resolve({ since: event.data.since, label: event.data.label });
    };
    channel.postMessage({ type: 'who-holds', projectId });
  });
}
