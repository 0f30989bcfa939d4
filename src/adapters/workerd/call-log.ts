/**
 * The recent calls of a running app, for its owner: what was asked, how it was answered, how long it
 * took, and what the handler wrote with `console`. The control plane keeps one log per deployed
 * environment, a local server (`platform dev`, `preview`) one for itself. Kept in memory, the last
 * CALL_LOG_SIZE per log; a restart starts them afresh (the cursor says so: it names the log's
 * generation, and a cursor of another generation reads from the start).
 */
import { randomBytes } from 'node:crypto';
import { CALL_LOG_SIZE, type CallRecord } from '../../core/deploy';
import { CALL_REPORT_HEADER, decodeCallReport, errorOf } from '../../core/runtime';
import { LIVE_PATH } from '../../modules/wire';

/**
 * A log's last CALL_LOG_SIZE records in a fixed array written round: record `seq` (from 1) at
 * `(seq - 1) % CALL_LOG_SIZE`, so recording a call moves nothing however full the log is (a control
 * plane records one per hosted request; shifting the full array each time cost several microseconds).
 */
interface Ring {
  /** The sequence number of the next record. */
  next: number;
  records: CallRecord[];
}

export class CallLogs {
  readonly #generation = randomBytes(6).toString('hex');
  readonly #rings = new Map<string, Ring>();

  record(scope: string, call: CallRecord): void {
    let ring = this.#rings.get(scope);
    if (!ring) this.#rings.set(scope, (ring = { next: 1, records: [] }));
    ring.records[(ring.next - 1) % CALL_LOG_SIZE] = call;
    ring.next++;
  }

  /** The calls after a cursor (all kept, without one), oldest first, and the cursor to read on from. */
  read(scope: string, after?: string): { calls: CallRecord[]; cursor: string } {
    const ring = this.#rings.get(scope);
    const [generation, seq] = (after ?? '').split('.');
    const from = generation === this.#generation && /^[0-9]{1,15}$/.test(seq ?? '') ? Number(seq) : 0;
    const last = ring ? ring.next - 1 : 0;
    const calls: CallRecord[] = [];
    if (ring) for (let seq = Math.max(from + 1, last - CALL_LOG_SIZE + 1, 1); seq <= last; seq++) calls.push({ ...ring.records[(seq - 1) % CALL_LOG_SIZE]! });
    return { calls, cursor: `${this.#generation}.${last}` };
  }

  /** Forgets every log whose scope starts with `prefix` (an app's, when it is deleted). */
  forget(prefix: string): void {
    for (const scope of [...this.#rings.keys()]) if (scope.startsWith(prefix)) this.#rings.delete(scope);
  }
}

/**
 * What an engine's answer to a call says for its owner: the runtime error it answered with and the
 * lines its handler wrote, from the engine's report (taken off the answer here: a visitor never sees
 * it) or from an error this process answered with itself. Undefined for a live connection that did
 * not fail (a stream that lasts, or live updates off by a budget of 0).
 */
export function takeCallRecord(request: Request, response: Response, startedMs: number, visitor: 'guest' | 'user'): CallRecord | undefined {
  const path = new URL(request.url).pathname;
  const header = response.headers.get(CALL_REPORT_HEADER);
  if (header !== null) response.headers.delete(CALL_REPORT_HEADER);
  const report = decodeCallReport(header);
  const own = errorOf(response);
  const error = own ? { code: own.code, message: own.message, ...(own.errorId ? { errorId: own.errorId } : {}) } : report.error;
  // A live connection is kept only when it failed (its refreshes are the calls that are kept; a budget of 0 is no failure).
  if (path === LIVE_PATH && !error) return undefined;
  return {
    at: new Date().toISOString(),
    method: request.method,
    path: path.slice(0, 500),
    status: response.status,
    durationMs: Math.round((performance.now() - startedMs) * 10) / 10,
    visitor,
    ...(error ? { error } : {}),
    logs: report.logs,
  };
}
