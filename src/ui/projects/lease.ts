/**
 * One tab per project: a Web Locks lease held while a project is open. A tab that cannot take it waits
 * for it (the holding tab closing hands it on by itself) and can ask, over a BroadcastChannel, who
 * holds it and since when, and ask that tab to save and hand the project over ("Take over").
 */

const CHANNEL = 'platform-playground-leases';
/** How long a take-over waits for the holding tab to answer before taking the lock by force. */
const ANSWER_MS = 3000;

export interface LeaseHolder {
  /** When the holding tab opened the project (ms since the epoch). */
  since: number;
  /** The holding tab's title, as it describes itself. */
  label: string;
}

type LeaseMessage =
  | { type: 'who-holds'; projectId: string }
  | { type: 'held-by'; projectId: string; since: number; label: string }
  | { type: 'take-over'; projectId: string; label: string }
  | { type: 'handing-over'; projectId: string };

export interface LeaseEvents {
  /** Another tab holds the project: this tab waits for it (`holder` when that tab answered who it is). */
  onWaiting(holder: LeaseHolder | undefined): void;
  /** The lease is this tab's: open the project. */
  onAcquired(): void;
  /**
   * Another tab takes the project over: stop editing and save what this tab holds; the lease goes to
   * the other tab once this resolves (and this tab waits for it again). `forced` when the other tab
   * took the lock without this tab's answer (it did not answer in time): nothing is waited for then.
   */
  onTakenOver(by: string, forced: boolean): void | Promise<void>;
}

export interface Lease {
  /** Asks the holding tab to save and hand the project to this tab; taken by force if it does not answer. */
  takeOver(): void;
  /** Releases the lease, or stops waiting for it. */
  close(): void;
}

/** Takes the lease on a project, or waits for it; `events` say which, and when it changes hands. */
export function openLease(projectId: string, label: string, events: LeaseEvents): Lease {
  const name = `platform-project:${projectId}`;
  if (!('locks' in navigator)) {
    queueMicrotask(() => events.onAcquired());
    return { takeOver() {}, close() {} };
  }
  let closed = false;
  /** Ends the holding callback (the lock is released when it returns). */
  let letGo: (() => void) | undefined;
  /** Stops a queued request. */
  let waiting: AbortController | undefined;
  let forceTimer: ReturnType<typeof setTimeout> | undefined;
  const channel = new BroadcastChannel(CHANNEL);
  const post = (message: LeaseMessage) => channel.postMessage(message);

  /** Runs while this tab holds the lock; returns (releasing it) on close or a take-over. */
  const hold = async () => {
    const since = Date.now();
    const handedOver = new Promise<{ by: string } | undefined>((resolve) => {
      letGo = () => resolve(undefined);
      holding = { since, handOver: (by) => resolve({ by }) };
    });
    events.onAcquired();
    const handover = await handedOver;
    holding = undefined;
    letGo = undefined;
    if (handover) await Promise.resolve(events.onTakenOver(handover.by, false)).catch(() => undefined);
    return handover;
  };
  let holding: { since: number; handOver(by: string): void } | undefined;

  const request = (options: LockOptions): Promise<unknown> =>
    navigator.locks.request(name, options, async (lock) => {
      if (!lock || closed) return 'unavailable';
      return hold();
    });

  /** Queues for the lock; the holding tab closing, or handing over, gives it to this tab. */
  const queue = () => {
    if (closed) return;
    waiting = new AbortController();
    request({ signal: waiting.signal }).then(afterHolding, afterLost);
  };
  const afterHolding = (handover: unknown) => {
    if (handover && typeof handover === 'object') queue();
  };
  /** The request was aborted (close, or a forced take-over by this tab), or the lock was stolen from it. */
  const afterLost = (error: unknown) => {
    if (closed || (error as { name?: string })?.name !== 'AbortError' || !holding) return;
    // Taken by force while held: this tab no longer owns the project.
    holding = undefined;
    letGo = undefined;
    void Promise.resolve(events.onTakenOver('another tab', true)).catch(() => undefined);
    queue();
  };

  channel.onmessage = (event: MessageEvent<LeaseMessage>) => {
    const message = event.data;
    if (!message || message.projectId !== projectId) return;
    if (message.type === 'who-holds' && holding) post({ type: 'held-by', projectId, since: holding.since, label });
    if (message.type === 'take-over' && holding) {
      post({ type: 'handing-over', projectId });
      holding.handOver(message.label);
    }
    if (message.type === 'handing-over') clearTimeout(forceTimer);
  };

  void (async () => {
    const first = await request({ ifAvailable: true });
    if (first !== 'unavailable') return afterHolding(first);
    if (closed) return;
    queue();
    const holder = await askHolder(channel, projectId);
    // The lock may have come while the holder was asked (that tab closed meanwhile).
    if (!closed && !holding) events.onWaiting(holder);
  })().catch(afterLost);

  return {
    takeOver() {
      if (closed || holding) return;
      post({ type: 'take-over', projectId, label });
      clearTimeout(forceTimer);
      // A tab that does not answer (hung, or frozen in the background) loses the lock by force.
      forceTimer = setTimeout(() => {
        if (closed || holding) return;
        waiting?.abort();
        request({ steal: true }).then(afterHolding, afterLost);
      }, ANSWER_MS);
    },
    close() {
      closed = true;
      clearTimeout(forceTimer);
      waiting?.abort();
      letGo?.();
      channel.close();
    },
  };
}

/** Asks the other tabs who holds a project; resolves undefined when none answers within 300 ms. */
function askHolder(channel: BroadcastChannel, projectId: string): Promise<LeaseHolder | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      channel.removeEventListener('message', onAnswer);
      resolve(undefined);
    }, 300);
    const onAnswer = (event: MessageEvent<LeaseMessage>) => {
      const message = event.data;
      if (message?.type !== 'held-by' || message.projectId !== projectId) return;
      clearTimeout(timer);
      channel.removeEventListener('message', onAnswer);
      resolve({ since: message.since, label: message.label });
    };
    channel.addEventListener('message', onAnswer);
    channel.postMessage({ type: 'who-holds', projectId } satisfies LeaseMessage);
  });
}
