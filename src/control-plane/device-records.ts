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
    ensureColumns: (): Promise<void> =>
      records.transaction(async () => {
        const columns = await records.columns('devices');
        if (!columns.includes('source')) await records.run('ALTER TABLE devices ADD COLUMN source TEXT');
        if (!columns.includes('requester')) await records.run('ALTER TABLE devices ADD COLUMN requester TEXT');
        await records.run('CREATE INDEX IF NOT EXISTS devices_by_source ON devices (source, state, expiresAt)');
      }),
    insert: (device: { deviceHash: string; userCode: string; createdAt: number; expiresAt: number; source: string; requester: string | null }): Promise<void> =>
      records.run('INSERT INTO devices (deviceHash, userCode, createdAt, expiresAt, state, source, requester) VALUES (?, ?, ?, ?, ?, ?, ?)', [
        device.deviceHash, device.userCode, device.createdAt, device.expiresAt, 'pending', device.source, device.requester,
      ]),
    exists: async (deviceHash: string): Promise<boolean> => (await records.get('SELECT 1 FROM devices WHERE deviceHash = ?', [deviceHash])) !== undefined,
    userCodeTaken: async (userCode: string): Promise<boolean> => (await records.get('SELECT 1 FROM devices WHERE userCode = ?', [userCode])) !== undefined,
    byHash: (deviceHash: string): Promise<Row | undefined> => records.get('SELECT * FROM devices WHERE deviceHash = ?', [deviceHash]),
    byUserCode: (userCode: string): Promise<Row | undefined> => records.get('SELECT * FROM devices WHERE userCode = ?', [userCode]),
    /** Who a waiting code's sign-in is for: the playground origin that asked, null for a terminal, undefined when no such code waits. */
    requesterOfWaiting: async (userCode: string): Promise<string | null | undefined> => {
      const row = await records.get("SELECT requester FROM devices WHERE userCode = ? AND state = 'pending'", [userCode]);
      return row ? ((row.requester as string | null) ?? null) : undefined;
    },
    setState: (deviceHash: string, state: DeviceState): Promise<void> => records.run('UPDATE devices SET state = ? WHERE deviceHash = ?', [state, deviceHash]),
    approve: (deviceHash: string, builderId: string): Promise<void> => records.run('UPDATE devices SET state = ?, builderId = ? WHERE deviceHash = ?', ['approved', builderId, deviceHash]),
    /** Deletes the codes that expired before `cutoff`. */
    purgeExpiredBefore: (cutoff: number): Promise<void> => records.removeExpired('devices', cutoff),
    /** A waiting code expires at once: its terminal is told `expired_token` and asks for a new one. */
    expireWaiting: (deviceHash: string, now: number): Promise<void> => records.run("UPDATE devices SET expiresAt = ? WHERE deviceHash = ? AND state = 'pending'", [now - 1, deviceHash]),
    /** The codes `source` has waiting at `now`, and the first of them to expire. */
    waitingOf: async (source: string, now: number): Promise<{ count: number; firstExpiry: number }> => {
      const row = await records.get(`SELECT count(*) AS n, min(expiresAt) AS t FROM devices WHERE ${WAITING} AND source IS NOT DISTINCT FROM ?`, [now, source]);
      return { count: Number(row?.n ?? 0), firstExpiry: Number(row?.t) };
    },
    /** The codes waiting at `now`, whoever asked. */
    waitingTotal: async (now: number): Promise<number> => Number((await records.get(`SELECT count(*) AS n FROM devices WHERE ${WAITING}`, [now]))?.n ?? 0),
    /** The source holding the most waiting codes (the one whose oldest is oldest, among equals), with how many. */
    busiestSource: async (now: number): Promise<{ source: string | null; count: number } | undefined> => {
      const row = await records.get(`SELECT source, count(*) AS n, min(createdAt) AS first FROM devices WHERE ${WAITING} GROUP BY source ORDER BY n DESC, first ASC LIMIT 1`, [now]);
      return row ? { source: (row.source as string | null) ?? null, count: Number(row.n) } : undefined;
    },
    /** When the first waiting code expires, if any waits. */
    nextExpiry: async (now: number): Promise<number | undefined> => {
      const next = (await records.get(`SELECT min(expiresAt) AS t FROM devices WHERE ${WAITING}`, [now]))?.t;
      return next === null || next === undefined ? undefined : Number(next);
    },
    /** The hash of the oldest code `source` has waiting. */
    oldestWaitingOf: async (source: string | null, now: number): Promise<string | undefined> => {
      const row = await records.get(`SELECT deviceHash FROM devices WHERE ${WAITING} AND source IS NOT DISTINCT FROM ? ORDER BY createdAt, rowid LIMIT 1`, [now, source]);
      return row ? String(row.deviceHash) : undefined;
    },
  };
}

export type DeviceRecords = ReturnType<typeof deviceRecords>;
