/**
 * `platform tunnel --port <port>`: exposes the HTTP server listening on this machine's loopback at that
 * port (for example `platform dev`) at a URL of the control plane, through a tunnel only the signed-in
 * builder can open. It runs until stopped (Ctrl-C), then closes the tunnel and prints one envelope.
 * Requests are only ever sent to http://127.0.0.1:<port>: the visitor's path cannot name another host,
 * and redirects are passed on to the visitor, never followed here.
 */
import { readBodyCapped, decodeBase64, encodeBase64 } from '../bytes.ts';
import { diagnostic, envelope } from '../diagnostics/index.ts';
import { ROUTES, TUNNEL_KEY_HEADER, TUNNEL_MAX_BODY_BYTES, type TunnelRequest } from '../deploy/index.ts';
import { connect, CONTROL_URL_OPTION, outcomeDiagnostic, type CodeFamily } from './control.ts';
import type { CommandDefinition } from './types.ts';

export interface TunnelResult {
  url: string;
  target: string;
  /** Requests answered through the tunnel while it was open. */
  served: number;
  closed: string;
}

/** Tunnels have no codes of their own (docs/decisions.md): the builder-authentication family's. */
const FAMILY: CodeFamily = { rejected: 'DG5009', untrusted: 'DG5004', failure: 'DG5009' };
/** Headers of one connection, not forwarded to the loopback server or back. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host', 'content-length', 'content-encoding']);

/** The loopback URL a visitor's path is sent to: always on `target`'s origin, whatever the path says. */
export function loopbackUrl(target: string, path: string): string | undefined {
  const clean = `/${path.replace(/^[/\\]+/, '')}`;
  const url = new URL(`${target}${clean}`);
  return url.origin === target ? url.href : undefined;
}

/** Sends a visitor's request to the loopback server and returns the answer to post back. */
async function forward(target: string, request: TunnelRequest): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  const plain = (status: number, text: string) => ({ status, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: encodeBase64(new TextEncoder().encode(`${text}\n`)) });
  const url = loopbackUrl(target, request.path);
  if (!url) return plain(400, 'The path does not name a resource of the tunnel\'s server.');
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) if (!HOP_BY_HOP.has(name.toLowerCase())) headers.set(name, value);
  const body = decodeBase64(request.body) ?? new Uint8Array();
  let response: Response;
  try {
    response = await fetch(new Request(url, { method: request.method, headers, redirect: 'manual', ...(body.byteLength && request.method !== 'GET' && request.method !== 'HEAD' ? { body: body as Uint8Array<ArrayBuffer> } : {}) }));
  } catch (error) {
    return plain(502, `The tunnel's server did not answer (${error instanceof Error ? error.message : String(error)}).`);
  }
  const bytes = await readBodyCapped(response, TUNNEL_MAX_BODY_BYTES).catch(() => undefined);
  if (!bytes) return plain(502, `The tunnel's server answered more than ${TUNNEL_MAX_BODY_BYTES} bytes; a tunnel carries at most that.`);
  const out: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (!HOP_BY_HOP.has(name)) out[name] = value;
  });
  return { status: response.status, headers: out, body: encodeBase64(bytes) };
}

export const tunnel: CommandDefinition<TunnelResult> = {
  name: 'tunnel',
  summary: 'Expose a loopback HTTP server (such as platform dev) at a URL of the control plane until stopped.',
  positionals: [],
  options: {
    port: { type: 'string', valueName: '<port>', description: 'The port of the HTTP server on 127.0.0.1 to expose.' },
    ...CONTROL_URL_OPTION,
  },
  async run(invocation, host) {
    const given = invocation.options.port;
    const port = typeof given === 'string' && /^[0-9]{1,5}$/.test(given) ? Number(given) : NaN;
    if (!(port >= 1 && port <= 65535)) {
      return envelope('tunnel', [diagnostic('DG0002', given === undefined ? 'platform tunnel needs --port <port>.' : `--port ${JSON.stringify(given)} is not a port (1 to 65535).`, { hint: 'Give the port your local server listens on, for example --port 5173.' })]);
    }
    if (!host.local) return envelope('tunnel', [diagnostic('DG5009', 'This host cannot keep a tunnel open.', { hint: 'Run platform tunnel with the platform CLI.' })]);
    const target = `http://127.0.0.1:${port}`;
    // The server must be there before anything is exposed.
    try {
      await (await fetch(new Request(`${target}/`, { redirect: 'manual' }))).body?.cancel();
    } catch {
      return envelope('tunnel', [diagnostic('DG2001', `Nothing answers HTTP at ${target}.`, { hint: 'Start the server first (platform dev prints its port), then open the tunnel.' })]);
    }
    const connection = await connect(invocation, host, FAMILY);
    if (!connection.ok) return envelope('tunnel', connection.diagnostics);
    const { client, plane } = connection.value;
    const opened = await client.call(ROUTES.openTunnel, {}, { body: {} });
    if (opened.kind !== 'ok') return envelope('tunnel', [outcomeDiagnostic(opened, FAMILY)]);
    const { tunnel: info, key } = opened.body;
    const headers = { [TUNNEL_KEY_HEADER]: key };
    plane.notify(`tunnel open: ${info.url} → ${target} (Ctrl-C closes it)`);

    let served = 0;
    let stopped: string | undefined;
    const stop = host.local.stopped().then((reason) => (stopped = reason));
    let failure: ReturnType<typeof outcomeDiagnostic> | undefined;
    const pending = new Set<Promise<void>>();
    while (stopped === undefined && !failure) {
      const next = await Promise.race([client.call(ROUTES.nextTunnelRequest, { id: info.id }, { headers }), stop.then(() => undefined)]);
      if (next === undefined) break;
      if (next.kind !== 'ok') {
        failure = outcomeDiagnostic(next, FAMILY);
        break;
      }
      const request = next.body.request;
      if (!request) continue;
      const work = forward(target, request).then(async (answer) => {
        const posted = await client.call(ROUTES.answerTunnelRequest, { id: info.id, requestId: request.id }, { body: answer, headers });
        if (posted.kind === 'ok') served++;
      });
      pending.add(work);
      void work.finally(() => pending.delete(work));
    }
    await Promise.allSettled([...pending]);
    await client.call(ROUTES.closeTunnel, { id: info.id }, { headers });
    if (failure) return envelope('tunnel', [failure]);
    return envelope('tunnel', [], { url: info.url, target, served, closed: stopped ?? 'stopped' });
  },
  text({ result }) {
    return result ? `✓ tunnel ${result.url} closed (${result.closed}); ${result.served} requests served from ${result.target}` : '';
  },
};
