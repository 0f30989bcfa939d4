/** What the CLI and the control plane share about tunnels: the key header, the body cap, a forwarded request's shape. */

/** The header carrying a tunnel's key (given once, when it is opened) on every call that serves it. */
export const TUNNEL_KEY_HEADER = 'x-platform-tunnel-key';
/** The largest body a tunnel carries either way (a visitor's request, the server's answer). */
export const TUNNEL_MAX_BODY_BYTES = 1024 * 1024;
/** The largest control plane request carrying an answer: the body base64 in JSON, and its headers. */
export const TUNNEL_ANSWER_MAX_REQUEST_BYTES = Math.ceil((TUNNEL_MAX_BODY_BYTES * 4) / 3) + 64 * 1024;

/** A visitor's request as the CLI takes it: the body base64, the path with its query. */
export interface TunnelRequest {
  id: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

export interface TunnelInfo {
  id: string;
  url: string;
}

export function isTunnelRequest(value: unknown): value is TunnelRequest {
  if (typeof value !== 'object' || value === null) return false;
  const r = value as Record<string, unknown>;
  return (
    typeof r.id === 'string' && typeof r.method === 'string' && typeof r.path === 'string' && r.path.startsWith('/') && typeof r.body === 'string' &&
    typeof r.headers === 'object' && r.headers !== null && Object.values(r.headers).every((v) => typeof v === 'string')
  );
}

export function isTunnelInfo(value: unknown): value is TunnelInfo {
  return typeof value === 'object' && value !== null && typeof (value as TunnelInfo).id === 'string' && /^tun_[a-z2-7]{26}$/.test((value as TunnelInfo).id) && typeof (value as TunnelInfo).url === 'string';
}
