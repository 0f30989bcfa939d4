/**
 * The recent calls of each deployed app environment, for its owner: what was asked, how it was
 * answered, how long it took, and what the handler wrote with `console`. Kept in memory, the last
 * CALL_LOG_SIZE per environment; a restart of the control plane starts them afresh (the cursor says so:
 * it names the log's generation, and a cursor of another generation reads from the start).
 */
import { randomBytes } from 'node:crypto';
import { CALL_LOG_SIZE, type CallRecord, type Environment } from '../../core/deploy/protocol';

interface Ring {
  /** The sequence number of the next record. */
  next: number;
  records: Array<CallRecord & { seq: number }>;
}

export class CallLogs {
  readonly #generation = randomBytes(6).toString('hex');
  readonly #rings = new Map<string, Ring>();

  record(appId: string, environment: Environment, call: CallRecord): void {
    const key = `${appId}:${environment}`;
    let ring = this.#rings.get(key);
    if (!ring) this.#rings.set(key, (ring = { next: 1, records: [] }));
    ring.records.push({ ...call, seq: ring.next++ });
    if (ring.records.length > CALL_LOG_SIZE) ring.records.splice(0, ring.records.length - CALL_LOG_SIZE);
  }

  /** The calls after a cursor (all kept, without one), oldest first, and the cursor to read on from. */
  read(appId: string, environment: Environment, after?: string): { calls: CallRecord[]; cursor: string } {
    const ring = this.#rings.get(`${appId}:${environment}`);
    const [generation, seq] = (after ?? '').split('.');
    const from = generation === this.#generation && /^[0-9]{1,15}$/.test(seq ?? '') ? Number(seq) : 0;
    const records = (ring?.records ?? []).filter((r) => r.seq > from);
    return { calls: records.map(({ seq: _, ...call }) => call), cursor: `${this.#generation}.${ring ? ring.next - 1 : 0}` };
  }

  forget(appId: string): void {
    for (const environment of ['preview', 'production'] as const) this.#rings.delete(`${appId}:${environment}`);
  }
}
