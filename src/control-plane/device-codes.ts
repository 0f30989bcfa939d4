/**
 * The cap on device codes waiting for approval: a share per source (an IPv4 /24 or IPv6 /64,
 * rate-limit.ts's clientSource) and a total, with fair eviction when the total is reached, so that no
 * set of sources can lock a new one out of `platform auth login`. docs/control-plane.md, Sign-in.
 */
import type { DeviceRecords } from './device-records';

/** Codes one source may have waiting at once: past it, its next one waits for one of them to be used or to expire. */
export const PENDING_DEVICES_PER_SOURCE = 5;
/** Codes waiting at once, whoever asked: past it, the source holding the most loses its oldest. */
export const MAX_PENDING_DEVICES = 1000;

/**
 * Whether one more code from `source` fits at `now`: the code to evict to make room for it (or none),
 * or when there will be room. Under the total, a source is refused only past its own share. At the
 * total, the source holding the most codes (the one whose oldest code is oldest, among equals) loses
 * its oldest, as long as it holds more than `source` does: a source holding none is always admitted,
 * and a person's single code goes only when every source holds one. Reads only; the devices' `expireWaiting`
 * then expires the code in the transaction that inserts the new one.
 */
export async function roomForDevice(devices: DeviceRecords, source: string, now: number): Promise<{ evict?: string } | { retryAt: number; reason: 'source' | 'total' }> {
  const mine = await devices.waitingOf(source, now);
  if (mine.count >= PENDING_DEVICES_PER_SOURCE) return { retryAt: mine.firstExpiry, reason: 'source' };
  if ((await devices.waitingTotal(now)) < MAX_PENDING_DEVICES) return {};
  const most = await devices.busiestSource(now);
  if (!most || most.count <= mine.count) return { retryAt: (await devices.nextExpiry(now)) ?? now + 1000, reason: 'total' };
  return { evict: (await devices.oldestWaitingOf(most.source, now))! };
}
