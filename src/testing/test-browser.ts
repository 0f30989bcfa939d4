/**
 * Tests only: a browser as far as signing in to hosted apps needs one. It keeps cookies per host
 * (host-only, with their Path, Max-Age and SameSite: a Strict cookie is not sent on a navigation that
 * came from another site, a Lax one only on a top-level GET), sends `Origin` and `Sec-Fetch-Site` as
 * Chromium does, follows redirects and `<meta http-equiv="refresh">`, and treats `*.localhost` and
 * `localhost` as different sites. Requests go through `send`: the control plane in process, or over
 * loopback HTTP (`overHttp`).
 */
import { request as httpRequest } from 'node:http';

interface Cookie {
  value: string;
  path: string;
  sameSite: 'strict' | 'lax' | 'none';
  expiresAt: number;
}

export type Send = (request: Request) => Promise<Response>;

/** Sends a request to the server listening on 127.0.0.1 at the URL's port, with the URL's Host (`*.localhost` included). */
export const overHttp: Send = (request) =>
  new Promise((resolve, reject) => {
    const url = new URL(request.url);
    void request.arrayBuffer().then((body) => {
      const headers: Record<string, string> = { host: url.host };
      request.headers.forEach((value, name) => (headers[name] = value));
      if (body.byteLength) headers['content-length'] = String(body.byteLength);
      const req = httpRequest({ host: '127.0.0.1', port: Number(url.port), path: url.pathname + url.search, method: request.method, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const out = new Headers();
          for (const [name, value] of Object.entries(res.headers)) {
            if (value === undefined) continue;
            for (const one of Array.isArray(value) ? value : [value]) out.append(name, one);
          }
          const status = res.statusCode ?? 0;
          resolve(new Response(status === 204 || status === 304 || request.method === 'HEAD' ? null : Buffer.concat(chunks), { status, headers: out }));
        });
      });
      req.on('error', reject);
      if (body.byteLength) req.write(Buffer.from(body));
      req.end();
    }, reject);
  });

export interface Visit {
  response: Response;
  url: string;
  text: string;
}

export class TestBrowser {
  readonly #send: Send;
  readonly #jar = new Map<string, Map<string, Cookie>>();
  /** The origin of the page the browser shows (where its next request comes from). */
  page: string | undefined;

  constructor(send: Send) {
    this.#send = send;
  }

  /** Sets a cookie as a response would have (tests that sign in to the control plane with the passkey helpers). */
  setCookie(origin: string, header: string): void {
    this.#store(new URL(origin).host, header);
  }

  /** The cookies this browser holds for a host, `name=value`. */
  cookies(origin: string): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [name, cookie] of this.#jar.get(new URL(origin).host) ?? []) if (cookie.expiresAt > Date.now()) out[name] = cookie.value;
    return out;
  }

  #store(host: string, header: string): void {
    const [pair, ...attributes] = header.split(';').map((part) => part.trim());
    const at = pair!.indexOf('=');
    const name = pair!.slice(0, at);
    const value = pair!.slice(at + 1);
    const cookie: Cookie = { value, path: '/', sameSite: 'lax', expiresAt: Number.POSITIVE_INFINITY };
    for (const attribute of attributes) {
      const [key, val = ''] = attribute.split('=');
      const lower = key!.toLowerCase();
      if (lower === 'path') cookie.path = val;
      else if (lower === 'max-age') cookie.expiresAt = Date.now() + Number(val) * 1000;
      else if (lower === 'samesite') cookie.sameSite = val.toLowerCase() as Cookie['sameSite'];
    }
    let cookies = this.#jar.get(host);
    if (!cookies) this.#jar.set(host, (cookies = new Map()));
    if (cookie.expiresAt <= Date.now()) cookies.delete(name);
    else cookies.set(name, cookie);
  }

  /** Whether two origins are the same site: `localhost` and each `*.localhost` name are sites of their own. */
  static sameSite(a: string, b: string): boolean {
    return new URL(a).hostname === new URL(b).hostname;
  }

  /**
   * One request, as a page at `from` (or the address bar: undefined) makes it; redirects are not followed.
   * `navigation`: a top-level navigation (Lax cookies go along from another site on GET).
   */
  async request(url: string, init: { method?: string; form?: Record<string, string>; json?: unknown; from?: string; navigation?: boolean; site?: string; headers?: Record<string, string> } = {}): Promise<Response> {
    const target = new URL(url);
    const method = init.method ?? (init.form || init.json !== undefined ? 'POST' : 'GET');
    const from = init.from;
    const site = init.site ?? (from === undefined ? 'none' : new URL(from).origin === target.origin ? 'same-origin' : TestBrowser.sameSite(from, target.origin) ? 'same-site' : 'cross-site');
    const navigation = init.navigation ?? false;
    const headers = new Headers({ 'sec-fetch-site': site, ...init.headers });
    if (method !== 'GET' && method !== 'HEAD' && from !== undefined && !headers.has('origin')) headers.set('origin', new URL(from).origin);
    const sent: string[] = [];
    for (const [name, cookie] of this.#jar.get(target.host) ?? []) {
      if (cookie.expiresAt <= Date.now() || !target.pathname.startsWith(cookie.path)) continue;
      if (site === 'cross-site' && (cookie.sameSite === 'strict' || (cookie.sameSite === 'lax' && !(navigation && method === 'GET')))) continue;
      sent.push(`${name}=${cookie.value}`);
    }
    if (sent.length) headers.set('cookie', sent.join('; '));
    let body: string | undefined;
    if (init.form) {
      headers.set('content-type', 'application/x-www-form-urlencoded');
      body = new URLSearchParams(init.form).toString();
    } else if (init.json !== undefined) {
      headers.set('content-type', 'application/json');
      body = JSON.stringify(init.json);
    }
    const response = await this.#send(new Request(url, { method, headers, ...(body !== undefined ? { body } : {}), redirect: 'manual' }));
    for (const header of response.headers.getSetCookie()) this.#store(target.host, header);
    return response;
  }

  /**
   * A top-level navigation (a link followed, a form submitted, the address bar): follows redirects and
   * meta refreshes, and the browser then shows the last page.
   */
  async navigate(url: string, init: { method?: string; form?: Record<string, string>; from?: string | null } = {}): Promise<Visit> {
    let from = init.from === undefined ? this.page : (init.from ?? undefined);
    let next = url;
    let method = init.method;
    let form = init.form;
    let crossed = false;
    for (let hops = 0; hops < 10; hops++) {
      if (from !== undefined && new URL(from).origin !== new URL(next).origin) crossed = true;
      const site = from === undefined ? 'none' : crossed ? 'cross-site' : 'same-origin';
      const response = await this.request(next, { ...(method ? { method } : {}), ...(form ? { form } : {}), ...(from !== undefined ? { from } : {}), navigation: true, site });
      if (response.status >= 300 && response.status < 400 && response.headers.get('location')) {
        // The redirect keeps the chain's initiator: the site of the first page is what the cookies are judged by.
        next = new URL(response.headers.get('location')!, next).toString();
        method = undefined;
        form = undefined;
        continue;
      }
      const text = await response.text();
      const refresh = /<meta http-equiv="refresh" content="0;url=([^"]+)">/.exec(text);
      if (refresh) {
        // The page itself navigates: its own origin is the initiator.
        const target = new URL(refresh[1]!.replace(/&amp;/g, '&'), next).toString();
        from = new URL(next).origin;
        crossed = false;
        next = target;
        continue;
      }
      this.page = new URL(next).origin;
      return { response, url: next, text };
    }
    throw new Error(`too many redirects from ${url}`);
  }

  /** `fetch` from the page the browser shows (a script on it): Origin and Sec-Fetch-Site as Chromium sends them. */
  fetch(path: string, init: { method?: string; json?: unknown; headers?: Record<string, string> } = {}): Promise<Response> {
    if (!this.page) throw new Error('no page is open');
    return this.request(new URL(path, this.page).toString(), { ...init, from: this.page });
  }
}
