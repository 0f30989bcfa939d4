/**
 * Live updates (runtime.md, Events): the live-update stream and which open clients a mutation
 * refreshes. One instance per runtime, so per app environment: in the playground's sandbox, in a
 * hosted app's Durable Object.
 *
 * - `GET /_platform/v0/live` opens a connection: a streamed response of newline-delimited JSON
 *   events (`LiveEvent` in modules/wire.ts). It holds a `liveConnections` slot, the same slots
 *   `stream()` responses take; without a free one it is refused 503
 *   `stream_connection_budget_exceeded` with `Retry-After`. A budget of 0 (the default) admits none.
 * - A query sent with `x-platform-live: <connection id>` (by the connection's own caller) is held by
 *   that connection, with the tables (and the store) it read.
 * - A committed mutation sends `invalidate` to every other connection holding a query that read a
 *   table it wrote, naming those queries. The mutation's own connection gets nothing (its client
 *   re-runs its own queries from the answer's `x-platform-wrote`); endpoint writes send nothing.
 * - A connection ends at the stream lifetime or past `streamedBytes` (a `close` event first), when
 *   its reader goes away (noticed at the next write at the latest: a `ping` every PING_MS), or when
 *   it falls `MAX_BEHIND` events behind; its slot is freed then.
 * - When the host names the visitor a slot is for (hosting: a signed-in person, or a guest's source
 *   network), one visitor holds at most `visitorShare` of the slots: one visitor cannot hold them all
 *   and refuse everyone else for a stream's lifetime. Local hosts name none (one developer).
 */
import { affects, LIVE_BUDGET_HEADER, LIVE_PROTOCOL, type LiveEvent, type TableSet } from '../../modules/wire.ts';
import { randomId, type RuntimeClock } from './clock.ts';
import type { Limits } from './limits.ts';
import { failedCall, type CallOutcome } from './outcome.ts';
import type { Auth } from './personas.ts';

/** The `Retry-After` of a refusal, in seconds (docs/decisions.md). */
export const RETRY_AFTER_SECONDS = 5;
/**
 * How often a connection gets a `ping`. It is also how a reader that went away is noticed: a hosted
 * engine learns that the connection closed only when it writes to it, so a closed connection's slot
 * is free again within this time.
 */
export const PING_MS = 5_000;
/** Events a connection may leave unread before it is ended (a client that stopped reading). */
export const MAX_BEHIND = 256;

/**
 * How many slots one visitor may hold of an app's `liveConnections`: a quarter, but at least two (a
 * page's live connection and one streamed response) and never more than the budget.
 */
export function visitorShare(liveConnections: number): number {
  return Math.min(liveConnections, Math.max(2, Math.floor(liveConnections / 4)));
}

type CloseReason = Extract<LiveEvent, { kind: 'close' }>['reason'];

interface Connection {
  readonly id: string;
  /** Only its own caller may add queries to it, or keep its own mutations from it. */
  readonly appUserId: string;
  /** Query name → what its runs on this connection read (the union: a name's tables are few). */
  readonly held: Map<string, TableSet>;
  send(event: LiveEvent): void;
  end(reason: CloseReason): void;
}

const encoder = new TextEncoder();

export interface LiveOptions {
  /** The ping interval; PING_MS by default. */
  pingMs?: number;
}

export class LiveUpdates {
  readonly #limits: Limits;
  readonly #clock: RuntimeClock;
  readonly #pingMs: number;
  /** Slots held: live connections and streamed responses. */
  #used = 0;
  /** Slots held by each named visitor. */
  readonly #byVisitor = new Map<string, number>();
  readonly #connections = new Map<string, Connection>();

  constructor(limits: Limits, clock: RuntimeClock, options: LiveOptions = {}) {
    this.#limits = limits;
    this.#clock = clock;
    this.#pingMs = options.pingMs ?? PING_MS;
  }

  /** Slots held now (live connections and streamed responses). */
  get used(): number {
    return this.#used;
  }

  /** Whether a slot is free. */
  get free(): boolean {
    return this.#used < this.#limits.liveConnections;
  }

  /** Open live connections. */
  get connections(): number {
    return this.#connections.size;
  }

  /**
   * Takes a slot for `visitor` (undefined: a host that names no visitor); the refusal, 503
   * `stream_connection_budget_exceeded` with `Retry-After`, when none is free or the visitor holds its share.
   */
  take(visitor?: string): CallOutcome | undefined {
    const budget = this.#limits.liveConnections;
    if (!this.free) return this.#refusal(`No free live connection: the app allows ${budget}.`);
    if (visitor !== undefined) {
      const held = this.#byVisitor.get(visitor) ?? 0;
      const share = visitorShare(budget);
      if (held >= share) return this.#refusal(`No free live connection for this visitor: one visitor may hold ${share} of the app's ${budget}.`);
      this.#byVisitor.set(visitor, held + 1);
    }
    this.#used++;
    return undefined;
  }

  /** Gives back a slot `take` gave `visitor`. */
  release(visitor?: string): void {
    this.#used = Math.max(0, this.#used - 1);
    if (visitor === undefined) return;
    const held = (this.#byVisitor.get(visitor) ?? 0) - 1;
    if (held > 0) this.#byVisitor.set(visitor, held);
    else this.#byVisitor.delete(visitor);
  }

  #refusal(message: string): CallOutcome {
    return failedCall(503, 'stream_connection_budget_exceeded', message, this.#clock, {
      'retry-after': String(RETRY_AFTER_SECONDS),
      [LIVE_BUDGET_HEADER]: String(this.#limits.liveConnections),
    });
  }

  /** Opens a live connection for `auth`, as `visitor` when the host names one: the stream's response, or the refusal. */
  open(auth: Auth, visitor?: string): Response | CallOutcome {
    const refused = this.take(visitor);
    if (refused) return refused;
    const id = `live_${randomId(this.#clock)}`;
    const { streamedBytes, streamLifetimeMs, liveConnections } = this.#limits;
    let controller!: ReadableStreamDefaultController<Uint8Array>;
    let sent = 0;
    let ended = false;
    let ping: ReturnType<typeof setInterval> | undefined;
    let lifetime: ReturnType<typeof setTimeout> | undefined;
    const finish = () => {
      if (ended) return;
      ended = true;
      clearInterval(ping);
      clearTimeout(lifetime);
      this.#connections.delete(id);
      this.release(visitor);
    };
    const line = (event: LiveEvent) => encoder.encode(`${JSON.stringify(event)}\n`);
    const close = (reason: CloseReason) => {
      if (ended) return;
      try {
        const last = line({ protocol: LIVE_PROTOCOL, kind: 'close', reason });
        if (sent + last.byteLength <= streamedBytes) controller.enqueue(last);
        controller.close();
      } catch {
        // The reader is gone already.
      }
      finish();
    };
    const send = (event: LiveEvent) => {
      if (ended) return;
      const bytes = line(event);
      // Room is kept for the closing event within streamedBytes.
      if (sent + bytes.byteLength + 128 > streamedBytes) return close('streamedBytes');
      if ((controller.desiredSize ?? 0) < -MAX_BEHIND) return close('behind');
      try {
        controller.enqueue(bytes);
        sent += bytes.byteLength;
      } catch {
        finish();
      }
    };
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        controller = c;
      },
      cancel: finish,
    });
    this.#connections.set(id, { id, appUserId: auth.appUserId, held: new Map(), send, end: close });
    send({ protocol: LIVE_PROTOCOL, kind: 'open', connection: id, liveConnections });
    ping = setInterval(() => send({ protocol: LIVE_PROTOCOL, kind: 'ping' }), this.#pingMs);
    lifetime = setTimeout(() => close('lifetime'), streamLifetimeMs);
    return new Response(body, {
      status: 200,
      headers: { 'content-type': 'application/x-ndjson; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', [LIVE_BUDGET_HEADER]: String(liveConnections) },
    });
  }

  /** The connection `id` names, if it is open and belongs to `auth`'s caller. */
  #own(id: string | null | undefined, auth: Auth): Connection | undefined {
    const connection = id ? this.#connections.get(id) : undefined;
    return connection && connection.appUserId === auth.appUserId ? connection : undefined;
  }

  /**
   * After a query or mutation ran: a query (answered or failed: it may succeed once the data
   * changes) is held by the caller's connection with what it read; a committed mutation that wrote
   * refreshes the other connections. Returns how many connections got an event.
   */
  settled(kind: 'query' | 'mutation', name: string, auth: Auth, outcome: CallOutcome, connection?: string | null): number {
    if (kind === 'query') {
      const own = this.#own(connection, auth);
      const read = outcome.read;
      if (own && read) {
        const known = own.held.get(name);
        own.held.set(name, known ? { tables: [...new Set([...known.tables, ...read.tables])], storage: known.storage || read.storage } : { tables: [...read.tables], storage: read.storage });
      }
      return 0;
    }
    if (outcome.status !== 200) return 0;
    return this.notify(outcome.wrote, this.#own(connection, auth)?.id);
  }

  /**
   * Sends `invalidate` to every connection (but `except`) holding a query that read what `wrote`
   * names. The event names those queries and only the written tables they read.
   */
  notify(wrote: TableSet, except?: string): number {
    if (wrote.tables.length === 0 && !wrote.storage) return 0;
    let notified = 0;
    for (const connection of [...this.#connections.values()]) {
      if (connection.id === except) continue;
      const queries: string[] = [];
      const tables = new Set<string>();
      let storage = false;
      for (const [name, read] of connection.held) {
        if (!affects(read, wrote)) continue;
        queries.push(name);
        for (const table of read.tables) if (wrote.tables.includes(table)) tables.add(table);
        storage ||= read.storage && wrote.storage;
      }
      if (queries.length === 0) continue;
      connection.send({ protocol: LIVE_PROTOCOL, kind: 'invalidate', queries, tables: [...tables], storage });
      notified++;
    }
    return notified;
  }

  /** Ends every connection (a `close` event with `shutdown`). */
  closeAll(): void {
    for (const connection of [...this.#connections.values()]) connection.end('shutdown');
  }
}
