/**
 * Hosting nodes (docs/control-plane.md, More than one control plane process): control plane processes
 * that share their records in PostgreSQL, each hosting the apps placed on it. An app is placed on the
 * node that made it (`apps.node`); the records say where every node is reached (`nodes`), and a request
 * for an app placed elsewhere — its hosted origin, or its `/v0/apps/:appId/…` routes — is passed to that
 * node whole and its answer passed back. So an app's data, engine and artifacts live on one node, and any
 * node answers for it.
 *
 * A passed request carries a mark only the nodes can make (an HMAC under the shared cookie key of the
 * target node's name, the time, the request's method, host and path, and the visitor's address): a node
 * serves a marked request itself, whatever its records say, so a request is never passed on twice; a
 * mark a visitor made up is not trusted, and that request is passed on as any. A mark is good for one
 * request line for a minute: one seen in passing cannot be put on another request.
 */
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { nodeRecords } from './node-records';
import type { Records } from './records';
import { writeAtomic } from './files';
import { hmac, sameSecret } from './secrets';

/** The headers of a request passed between nodes: its mark, and the visitor's address (trusted only with the mark). Apps never see them. */
export const NODE_HEADER_PREFIX = 'x-platform-node-';
export const FORWARDED_HEADER = `${NODE_HEADER_PREFIX}forwarded`;
export const CLIENT_HEADER = `${NODE_HEADER_PREFIX}client`;

/** How long a mark is good for (the clocks of nodes may differ a little). */
const MARK_TTL_MS = 60_000;

/** Headers of one connection, not of the request or answer. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer']);

/**
 * This node's name when none is given: the machine's name and a random part, made on the first start and
 * kept in the data directory (a node's apps live in it), so it stays the same across restarts and moves.
 */
export function defaultNodeName(dataDir: string): string {
  const file = join(dataDir, 'node-name');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const name = `${hostname().replace(/[^A-Za-z0-9.-]/g, '-').slice(0, 40)}-${randomBytes(4).toString('hex')}`;
  writeAtomic(file, `${name}\n`);
  return name;
}

export class Nodes {
  /** This node's name. */
  readonly self: string;
  readonly #records: Records;
  readonly #repo: ReturnType<typeof nodeRecords>['nodes'];
  readonly #key: Buffer;
  readonly #addresses = new Map<string, string>();

  constructor(records: Records, self: string, key: Buffer) {
    this.#records = records;
    this.#repo = nodeRecords(records).nodes;
    this.self = self;
    this.#key = key;
    // An address is read again after any change (a node that moved records its new one).
    records.onChange(() => this.#addresses.clear());
  }

  /** Records where this node is reached, and places here the apps no node holds (records from before nodes). */
  register(address: string, now: number): Promise<void> {
    return this.#repo.register(this.self, address, now);
  }

  /**
   * Whether an app placed on `node` is served by another node (undefined: a record from before nodes,
   * served here). Only records in PostgreSQL are shared: with SQLite's, this control plane is the one node.
   */
  elsewhere(node: unknown, request: Request): node is string {
    return this.#records.engine === 'postgres' && typeof node === 'string' && node !== this.self && !this.#marked(request);
  }

  /** The visitor's address a marked request was passed with (the node that passed it had it from the socket). */
  clientOf(request: Request): string | undefined {
    return this.#marked(request) ? (request.headers.get(CLIENT_HEADER) ?? undefined) : undefined;
  }

  #marked(request: Request): boolean {
    const mark = request.headers.get(FORWARDED_HEADER);
    const dot = mark?.indexOf('.') ?? -1;
    if (!mark || dot < 1) return false;
    const at = Number(mark.slice(0, dot));
    if (!Number.isSafeInteger(at) || Math.abs(Date.now() - at) > MARK_TTL_MS) return false;
    return sameSecret(mark, this.#mark(this.self, at, request, request.headers.get(CLIENT_HEADER) ?? ''));
  }

  /** The mark of a request passed to `node` at `at`, with the visitor's address. */
  #mark(node: string, at: number, request: Request, client: string): string {
    const url = new URL(request.url);
    return `${at}.${hmac(this.#key, ['forward', node, at, request.method, url.host, `${url.pathname}${url.search}`, client].join('\n'))}`;
  }

  async #address(node: string): Promise<string | undefined> {
    let address = this.#addresses.get(node);
    if (!address) {
      address = await this.#repo.address(node);
      if (address) this.#addresses.set(node, address);
    }
    return address;
  }

  /** Passes a request to the node an app is placed on, and its answer back (503 when that node is unknown or unreachable). */
  async forward(request: Request, node: string, clientAddress?: string): Promise<Response> {
    const address = await this.#address(node);
    if (!address) return unavailable(`The node ${node} that hosts this app is not known to this control plane.`);
    const url = new URL(request.url);
    const target = new URL(address);
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of request.headers) if (!HOP_BY_HOP.has(name) && !name.startsWith(NODE_HEADER_PREFIX)) headers[name] = value;
    headers.host = url.host;
    headers[FORWARDED_HEADER] = this.#mark(node, Date.now(), request, clientAddress ?? '');
    if (clientAddress) headers[CLIENT_HEADER] = clientAddress;
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise<Response>((resolve, reject) => {
      const outgoing = send(
        { protocol: target.protocol, hostname: target.hostname, port: target.port, method: request.method, path: `${url.pathname}${url.search}`, headers },
        (incoming) => {
          const answer = new Headers();
          for (const [name, value] of Object.entries(incoming.headers as IncomingHttpHeaders)) {
            if (HOP_BY_HOP.has(name) || value === undefined) continue;
            for (const one of Array.isArray(value) ? value : [value]) answer.append(name, one);
          }
          const status = incoming.statusCode ?? 502;
          const empty = request.method === 'HEAD' || status === 204 || status === 304;
          if (empty) incoming.resume();
          resolve(new Response(empty ? null : (Readable.toWeb(incoming) as ReadableStream<Uint8Array>), { status, headers: answer }));
        },
      );
      outgoing.on('error', (error) => resolve(unavailable(`The node ${node} that hosts this app did not answer: ${error.message}`)));
      if (request.body && request.method !== 'GET' && request.method !== 'HEAD') {
        const body = Readable.fromWeb(request.body as never);
        // A body that fails as it is read (past this node's limit: BodyTooLargeError) fails the request here, answered as this node answers it.
        body.once('error', (error) => {
          outgoing.destroy();
          reject(error);
        });
        body.pipe(outgoing);
      } else {
        outgoing.end();
      }
    });
  }
}

/** The answer when the app's node cannot be reached: the API's error shape (`runtime_unhealthy`: the app's runtime is not answering). */
function unavailable(message: string): Response {
  return new Response(JSON.stringify({ error: { code: 'runtime_unhealthy', message } }), { status: 503, headers: { 'content-type': 'application/json; charset=utf-8', 'retry-after': '5' } });
}
