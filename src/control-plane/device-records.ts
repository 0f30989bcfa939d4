/**
 * The records of the device codes `platform auth login` waits on (docs/control-plane.md, Sign-in): the
 * SQL of the `devices` records, by what the sign-in flow and its cap (device-codes.ts) do with them.
 * A code is kept as its hash; the user code is what a person types. Rows are the records' rows.
 */
import type { Records, Row } from './records';

export type DeviceState = 'pending' | 'approved' | 'denied' | 'used';

/** A code still waiting for approval at `now`. */
const WAITING = "state = 'pending' AND expiresAt >= ?";

export function deviceRecords(records: Records) {
  return {
    /**
     * Adds the `source` column to the device codes of records made before it (a code without one is a
     * source of its own), and `requester`: the playground origin that asked (its Origin header, when it is
     * one of the allowed playground origins), null for a terminal.
     */
    ensureColumns: (): void => {
      if (!records.get("SELECT 1 FROM pragma_table_info('devices') WHERE name = 'source'")) records.run('ALTER TABLE devices ADD COLUMN source TEXT');
      if (!records.get("SELECT 1 FROM pragma_table_info('devices') WHERE name = 'requester'")) records.run('ALTER TABLE devices ADD COLUMN requester TEXT');
      records.run('CREATE INDEX IF NOT EXISTS devices_by_source ON devices (source, state, expiresAt)');
    },
    insert: (device: { deviceHash: string; userCode: string; createdAt: number; expiresAt: number; source: string; requester: string | null }): void =>
      records.run('INSERT INTO devices (deviceHash, userCode, createdAt, expiresAt, state, source, requester) VALUES (?, ?, ?, ?, ?, ?, ?)', [
        device.deviceHash, device.userCode, device.createdAt, device.expiresAt, 'pending', device.source, device.requester,
      ]),
    exists: (deviceHash: string): boolean => records.get('SELECT 1 FROM devices WHERE deviceHash = ?', [deviceHash]) !== undefined,
    userCodeTaken: (userCode: string): boolean => records.get('SELECT 1 FROM devices WHERE userCode = ?', [userCode]) !== undefined,
    byHash: (deviceHash: string): Row | undefined => records.get('SELECT * FROM devices WHERE deviceHash = ?', [deviceHash]),
    byUserCode: (userCode: string): Row | undefined => records.get('SELECT * FROM devices WHERE userCode = ?', [userCode]),
    /** Who a waiting code's sign-in is for: the playground origin that asked, null for a terminal, undefined when no such code waits. */
    requesterOfWaiting: (userCode: string): string | null | undefined => {
      const row = records.get("SELECT requester FROM devices WHERE userCode = ? AND state = 'pending'", [userCode]);
      return row ? ((row.requester as string | null) ?? null) : undefined;
    },
    setState: (deviceHash: string, state: DeviceState): void => records.run('UPDATE devices SET state = ? WHERE deviceHash = ?', [state, deviceHash]),
    approve: (deviceHash: string, builderId: string): void => records.run('UPDATE devices SET state = ?, builderId = ? WHERE deviceHash = ?', ['approved', builderId, deviceHash]),
    /** Deletes the codes that expired before `cutoff`. */
    purgeExpiredBefore: (cutoff: number): void => records.removeExpired('devices', cutoff),
    /** A waiting code expires at once: its terminal is told `expired_token` and asks for a new one. */
    expireWaiting: (deviceHash: string, now: number): void => records.run("UPDATE devices SET expiresAt = ? WHERE deviceHash = ? AND state = 'pending'", [now - 1, deviceHash]),
    /** The codes `source` has waiting at `now`, and the first of them to expire. */
    waitingOf: (source: string, now: number): { count: number; firstExpiry: number } => {
      const row = records.get(`SELECT count(*) AS n, min(expiresAt) AS t FROM devices WHERE ${WAITING} AND source IS ?`, [now, source]);
      return { count: Number(row?.n ?? 0), firstExpiry: Number(row?.t) };
    },
    /** The codes waiting at `now`, whoever asked. */
    waitingTotal: (now: number): number => Number(records.get(`SELECT count(*) AS n FROM devices WHERE ${WAITING}`, [now])?.n ?? 0),
    /** The source holding the most waiting codes (the one whose oldest is oldest, among equals), with how many. */
    busiestSource: (now: number): { source: string | null; count: number } | undefined => {
      const row = records.get(`SELECT source, count(*) AS n, min(createdAt) AS first FROM devices WHERE ${WAITING} GROUP BY source ORDER BY n DESC, first ASC LIMIT 1`, [now]);
      return row ? { source: (row.source as string | null) ?? null, count: Number(row.n) } : undefined;
    },
    /** When the first waiting code expires, if any waits. */
    nextExpiry: (now: number): number | undefined => {
      const next = records.get(`SELECT min(expiresAt) AS t FROM devices WHERE ${WAITING}`, [now])?.t;
      return next === null || next === undefined ? undefined : Number(next);
    },
    /** The hash of the oldest code `source` has waiting. */
    oldestWaitingOf: (source: string | null, now: number): string | undefined => {
      const row = records.get(`SELECT deviceHash FROM devices WHERE ${WAITING} AND source IS ? ORDER BY createdAt, rowid LIMIT 1`, [now, source]);
      return row ? String(row.deviceHash) : undefined;
    },
  };
}

export type DeviceRecords = ReturnType<typeof deviceRecords>;
