/**
 * Tunnels (docs/control-plane.md, Tunnels): `platform tunnel` opens one as a signed-in builder and gets
 * a URL on the control plane (`http://tun-<id>.localhost:<port>`) and a key. A visitor's request to that
 * URL waits here while the CLI, holding the key, takes it (a long poll), forwards it to its own loopback
 * server and posts the answer back. Only the builder who opened a tunnel, with its key, can take its
 * requests or close it; bodies are capped both ways.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Hono } from 'hono';
import { decodeBase64, encodeBase64 } from '../core/bytes';
import { TUNNEL_KEY_HEADER, TUNNEL_MAX_BODY_BYTES, type TunnelRequest, ROUTES } from '../core/deploy';
import { randomId, systemClock } from '../core/runtime';
import { BodyTooLargeError, readLimited } from './body-limit';
import { answer, jsonObject, refuse, type Caller, type Context, type Refused } from './context';
import { on, signedIn, type ControlContext, type ControlEnv, type RouteResult } from './middleware';

const TUNNEL_HOST = /^tun-([a-z2-7]{26})\.localhost(?::\d+)?$/;
/** Headers that describe one connection, never forwarded either way. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host', 'content-length']);

export interface TunnelOptions {
  /** How long a visitor's request waits for the tunnel's answer (default 30 s). */
  answerTimeoutMs?: number;
  /** How long the CLI's poll for the next request is held open (default 20 s). */
  pollMs?: number;
  /** Tunnels one builder may have open at once (default 3). */
  perBuilder?: number;
  /** Visitors' requests one tunnel holds at once, queued or taken (default 32); more are answered 503. */
  waitingPerTunnel?: number;
}

interface Waiting {
  request: TunnelRequest;
  resolve(response: Response): void;
}

interface Tunnel {
  id: string;
  builderId: string;
  key: Buffer;
  queue: Waiting[];
  /** Requests taken by the CLI, waiting for their answer. */
  taken: Map<string, Waiting>;
  /** A poll waiting for the next request. */
  poll?: (waiting: Waiting | undefined) => void;
  /** When its command last asked for a request (a tunnel whose command is gone is closed). */
  seenAt: number;
}

export const tunnelHostLabel = (id: string) => id.replace('_', '-');

export class Tunnels {
  readonly #open = new Map<string, Tunnel>();
  readonly #ctx: Context;
  readonly answerTimeoutMs: number;
  readonly pollMs: number;
  readonly perBuilder: number;
  readonly waitingPerTunnel: number;

  constructor(ctx: Context, options: TunnelOptions = {}) {
    this.#ctx = ctx;
    this.answerTimeoutMs = options.answerTimeoutMs ?? 30_000;
    this.pollMs = options.pollMs ?? 20_000;
    this.perBuilder = options.perBuilder ?? 3;
    this.waitingPerTunnel = options.waitingPerTunnel ?? 32;
  }

  /**
   * Closes tunnels whose command stopped asking for requests (killed, not Ctrl-C'd): none polling for
   * three poll periods. Otherwise they would hold the builder's tunnel quota, and their visitors would
   * wait on nothing.
   */
  #sweep(): void {
    const now = Date.now();
    for (const tunnel of [...this.#open.values()]) if (!tunnel.poll && now - tunnel.seenAt > 3 * this.pollMs) this.#close(tunnel);
  }

  /** The tunnel a Host header names (`tun-….localhost:4310`), open or not. */
  static target(host: string | undefined): string | undefined {
    const match = host ? TUNNEL_HOST.exec(host.toLowerCase()) : null;
    return match ? `tun_${match[1]}` : undefined;
  }

  url(id: string): string {
    const origin = new URL(this.#ctx.publicOrigin);
    return `${origin.protocol}//${tunnelHostLabel(id)}.localhost${origin.port ? `:${origin.port}` : ''}`;
  }

  open(caller: Caller): RouteResult<typeof ROUTES.openTunnel> {
    this.#sweep();
    const held = [...this.#open.values()].filter((t) => t.builderId === caller.builderId).length;
    if (held >= this.perBuilder) return refuse(429, 'quota_exceeded', `You have ${held} tunnels open, the most a builder may; close one first.`);
    const id = `tun_${randomId(systemClock)}`;
    const key = randomBytes(32);
    this.#open.set(id, { id, builderId: caller.builderId, key, queue: [], taken: new Map(), seenAt: Date.now() });
    return answer(201, { tunnel: { id, url: this.url(id) }, key: key.toString('base64url') });
  }

  /** The caller's open tunnel when it also holds the tunnel's key; another builder's is answered as unknown. */
  #owned(c: ControlContext): Tunnel | Refused {
    const tunnel = this.#open.get(c.req.param('id') ?? '');
    const given = Buffer.from(c.req.header(TUNNEL_KEY_HEADER) ?? '', 'base64url');
    if (!tunnel || tunnel.builderId !== c.get('caller').builderId) return refuse(404, 'tunnel_not_found', 'There is no open tunnel of yours with that id.');
    if (given.length !== tunnel.key.length || !timingSafeEqual(given, tunnel.key)) return refuse(403, 'unauthorized', 'The tunnel key is missing or wrong: only the command that opened a tunnel serves it.');
    return tunnel;
  }

  async next(c: ControlContext): Promise<RouteResult<typeof ROUTES.nextTunnelRequest>> {
    const tunnel = this.#owned(c);
    if (tunnel instanceof Response) return tunnel;
    tunnel.seenAt = Date.now();
    let waiting = tunnel.queue.shift();
    if (!waiting) {
      tunnel.poll?.(undefined); // one poller at a time: an older poll is answered empty
      waiting = await new Promise<Waiting | undefined>((resolve) => {
        const timer = setTimeout(() => finish(undefined), this.pollMs);
        const finish = (value: Waiting | undefined) => {
          clearTimeout(timer);
          tunnel.seenAt = Date.now();
          if (tunnel.poll === finish) tunnel.poll = undefined;
          resolve(value);
        };
        tunnel.poll = finish;
      });
    }
    if (!waiting) return answer(200, { request: null });
    tunnel.taken.set(waiting.request.id, waiting);
    return answer(200, { request: waiting.request });
  }

  async respond(c: ControlContext): Promise<RouteResult<typeof ROUTES.answerTunnelRequest>> {
    const tunnel = this.#owned(c);
    if (tunnel instanceof Response) return tunnel;
    const waiting = tunnel.taken.get(c.req.param('requestId') ?? '');
    if (!waiting) return refuse(404, 'not_found', 'No request of this tunnel is waiting for that answer.');
    const body = await jsonObject(c.req.raw);
    const bytes = typeof body?.body === 'string' ? decodeBase64(body.body) : undefined;
    const status = body?.status;
    const headers = body?.headers;
    if (typeof status !== 'number' || !Number.isInteger(status) || status < 200 || status > 599 || !bytes || typeof headers !== 'object' || headers === null || Array.isArray(headers)) {
      return refuse(400, 'invalid_request', 'An answer needs { status, headers, body (base64) }.');
    }
    if (bytes.byteLength > TUNNEL_MAX_BODY_BYTES) return refuse(413, 'too_large', `An answer through a tunnel has at most ${TUNNEL_MAX_BODY_BYTES} bytes.`);
    tunnel.taken.delete(waiting.request.id);
    const out = new Headers();
    for (const [name, value] of Object.entries(headers as Record<string, unknown>)) {
      if (typeof value === 'string' && !HOP_BY_HOP.has(name.toLowerCase())) {
        try {
          out.set(name, value);
        } catch {
          // A header the fetch standard refuses is dropped.
        }
      }
    }
    waiting.resolve(new Response(status === 204 || status === 304 ? null : (bytes as Uint8Array<ArrayBuffer>), { status, headers: out }));
    return answer(200, { delivered: true });
  }

  close(c: ControlContext): RouteResult<typeof ROUTES.closeTunnel> {
    const tunnel = this.#owned(c);
    if (tunnel instanceof Response) return tunnel;
    this.#close(tunnel);
    return answer(200, { closed: true });
  }

  #close(tunnel: Tunnel): void {
    this.#open.delete(tunnel.id);
    tunnel.poll?.(undefined);
    for (const waiting of [...tunnel.queue, ...tunnel.taken.values()]) waiting.resolve(gone(502, 'The tunnel closed before its server answered.'));
    tunnel.queue.length = 0;
    tunnel.taken.clear();
  }

  /** A visitor's request to a tunnel's URL: queued for the CLI, answered with what its loopback server said. */
  async visit(request: Request, id: string): Promise<Response> {
    this.#sweep();
    const tunnel = this.#open.get(id);
    if (!tunnel) return gone(404, 'No tunnel is open at this address.');
    // Each waiting request holds its body here: a flood is refused, not queued without end.
    if (tunnel.queue.length + tunnel.taken.size >= this.waitingPerTunnel) return gone(503, 'The tunnel is busy: too many requests are waiting for its server.');
    let body: Uint8Array;
    try {
      body = request.method === 'GET' || request.method === 'HEAD' ? new Uint8Array() : await readLimited(request, TUNNEL_MAX_BODY_BYTES);
    } catch (error) {
      if (error instanceof BodyTooLargeError) return gone(413, `A request through a tunnel has at most ${TUNNEL_MAX_BODY_BYTES} bytes.`);
      throw error;
    }
    const url = new URL(request.url);
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => {
      if (!HOP_BY_HOP.has(name)) headers[name] = value;
    });
    const forwarded: TunnelRequest = { id: randomBytes(12).toString('hex'), method: request.method, path: `${url.pathname}${url.search}`, headers, body: encodeBase64(body) };
    return new Promise<Response>((resolve) => {
      const timer = setTimeout(() => {
        tunnel.queue = tunnel.queue.filter((w) => w !== waiting);
        tunnel.taken.delete(forwarded.id);
        resolve(gone(504, 'The tunnel\'s server did not answer in time.'));
      }, this.answerTimeoutMs);
      const waiting: Waiting = {
        request: forwarded,
        resolve: (response) => {
          clearTimeout(timer);
          resolve(response);
        },
      };
      if (tunnel.poll) {
        tunnel.taken.set(forwarded.id, waiting);
        tunnel.poll(waiting);
      } else tunnel.queue.push(waiting);
    });
  }

  closeAll(): void {
    for (const tunnel of [...this.#open.values()]) this.#close(tunnel);
  }
}

function gone(status: number, text: string): Response {
  return new Response(`${text}\n`, { status, headers: { 'content-type': 'text/plain; charset=utf-8' } });
}

export function tunnelRoutes(app: Hono<ControlEnv>, ctx: Context, tunnels: Tunnels): void {
  on(app, ROUTES.openTunnel, signedIn(ctx), (c) => tunnels.open(c.get('caller')));
  on(app, ROUTES.nextTunnelRequest, signedIn(ctx), (c) => tunnels.next(c));
  on(app, ROUTES.answerTunnelRequest, signedIn(ctx), (c) => tunnels.respond(c));
  on(app, ROUTES.closeTunnel, signedIn(ctx), (c) => tunnels.close(c));
}
