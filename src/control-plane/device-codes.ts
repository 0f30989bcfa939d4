/**
 * The cap on device codes waiting for approval: a share per source (an IPv4 /24 or IPv6 /64,
 * rate-limit.ts's clientSource) and a total, with fair eviction when the total is reached, so that no
 * set of sources can lock a new one out of `platform auth login`. docs/control-plane.md, Sign-in.
 */
import type { Context } from './context';
import type { Records } from './records';

/** Codes one source may have waiting at once: past it, its next one waits for one of them to be used or to expire. */
export const PENDING_DEVICES_PER_SOURCE = 5;
/** Codes waiting at once, whoever asked: past it, the source holding the most loses its oldest. */
export const MAX_PENDING_DEVICES = 1000;

/**
 * Adds the `source` column to the device codes of records made before it (a code without one is a
 * source of its own), and `requester`: the playground origin that asked (its Origin header, when it is
 * one of the allowed playground origins), null for a terminal.
 */
export function ensureDeviceSources(records: Records): void {
  if (!records.get("SELECT 1 FROM pragma_table_info('devices') WHERE name = 'source'")) records.run('ALTER TABLE devices ADD COLUMN source TEXT');
  if (!records.get("SELECT 1 FROM pragma_table_info('devices') WHERE name = 'requester'")) records.run('ALTER TABLE devices ADD COLUMN requester TEXT');
  records.run('CREATE INDEX IF NOT EXISTS devices_by_source ON devices (source, state, expiresAt)');
}

const WAITING = "state = 'pending' AND expiresAt >= ?";

/**
 * Whether one more code from `source` fits at `now`: the code to evict to make room for it (or none),
 * or when there will be room. Under the total, a source is refused only past its own share. At the
 * total, the source holding the most codes (the one whose oldest code is oldest, among equals) loses
 * its oldest, as long as it holds more than `source` does: a source holding none is always admitted,
 * and a person's single code goes only when every source holds one. Reads only; `evictDevice` then
 * expires the code in the transaction that inserts the new one.
 */
export function roomForDevice(ctx: Context, source: string, now: number): { evict?: string } | { retryAt: number; reason: 'source' | 'total' } {
  const mine = ctx.records.get(`SELECT count(*) AS n, min(expiresAt) AS t FROM devices WHERE ${WAITING} AND source IS ?`, [now, source])!;
  const held = Number(mine.n ?? 0);
  if (held >= PENDING_DEVICES_PER_SOURCE) return { retryAt: Number(mine.t), reason: 'source' };
  const total = Number(ctx.records.get(`SELECT count(*) AS n FROM devices WHERE ${WAITING}`, [now])?.n ?? 0);
  if (total < MAX_PENDING_DEVICES) return {};
  const most = ctx.records.get(`SELECT source, count(*) AS n, min(createdAt) AS first FROM devices WHERE ${WAITING} GROUP BY source ORDER BY n DESC, first ASC LIMIT 1`, [now]);
  if (!most || Number(most.n) <= held) {
    const next = ctx.records.get(`SELECT min(expiresAt) AS t FROM devices WHERE ${WAITING}`, [now])?.t;
    return { retryAt: Number(next ?? now + 1000), reason: 'total' };
  }
  const oldest = ctx.records.get(`SELECT deviceHash FROM devices WHERE ${WAITING} AND source IS ? ORDER BY createdAt, rowid LIMIT 1`, [now, most.source ?? null])!;
  return { evict: String(oldest.deviceHash) };
}

/** Expires a waiting code at once: its terminal is told `expired_token` (DG5005) and asks for a new one; it is purged like any expired code. */
export function evictDevice(ctx: Context, deviceHash: string, now: number): void {
  ctx.records.run("UPDATE devices SET expiresAt = ? WHERE deviceHash = ? AND state = 'pending'", [now - 1, deviceHash]);
}
