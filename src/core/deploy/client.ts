/**
 * A client of the control plane's HTTP API over an injected fetch: the CLI passes Node's fetch (or the
 * control plane's own `app.request` in tests), the playground the browser's. Every answer is one of
 * four outcomes, so callers map each to their own diagnostic codes. The one throw is a request that
 * would carry the client's credential to an origin other than the one it is bound to: a bug, stopped
 * before anything is sent.
 */
import { CONTROL_ERROR_CODES, CONTROL_PROTOCOL, isObject, type ControlError } from './protocol.ts';
import { pathOf, type AnswerOf, type BodyOf, type ParamsOf, type Route } from './routes.ts';

export type FetchLike = (request: Request) => Promise<Response>;

export type ControlOutcome<T> =
  | { kind: 'ok'; status: number; body: T }
  /** The control plane refused, with its error code. */
  | { kind: 'refused'; status: number; error: ControlError }
  /** The answer was not a control plane answer (not JSON, another protocol, a shape it never sends). */
  | { kind: 'untrusted'; status: number; message: string }
  /** No answer: the control plane could not be reached. */
  | { kind: 'unreachable'; message: string };

const ERROR_CODES: ReadonlySet<string> = new Set<string>(CONTROL_ERROR_CODES);

/**
 * A credential and the one origin it may be sent to: the origin that issued it (a builder session is
 * stored per origin) or the one it was configured with (PLATFORM_SERVICE_TOKEN goes with
 * PLATFORM_CONTROL_URL). No request to any other origin carries it.
 */
export interface BoundCredential {
  /** The secret (`xbs_…` or `xst_…`); never printed, never part of a message. */
  token: string;
  /** An exact origin (`http://localhost:4310`). */
  origin: string;
}

function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

export class ControlClient {
  readonly baseUrl: string;
  readonly #fetch: FetchLike;
  readonly #credential: BoundCredential | undefined;

  /**
   * `credential` is bound to its origin, which must be `baseUrl`'s. A bare token is one the caller keeps
   * for `baseUrl` itself (the playground keeps each under its control URL), so it is bound to that origin.
   */
  constructor(baseUrl: string, fetch: FetchLike, credential?: BoundCredential | string) {
    this.baseUrl = baseUrl;
    this.#fetch = fetch;
    const origin = originOf(baseUrl);
    if (typeof credential === 'string') {
      this.#credential = credential && origin ? { token: credential, origin } : undefined;
    } else {
      if (credential && credential.origin !== origin) {
        throw new Error(`A credential for ${credential.origin} is not given to a client of ${baseUrl}.`);
      }
      this.#credential = credential;
    }
  }

  /** The same control plane with another credential (one this control plane issued, or none). */
  withToken(token: string | undefined): ControlClient {
    return new ControlClient(this.baseUrl, this.#fetch, token);
  }

  /** Calls a route of `ROUTES` with its path parameters, body and query; the answer is checked by the route. */
  call<R extends Route<string, unknown, unknown>>(
    route: R,
    params: ParamsOf<R['path']>,
    options: { body?: BodyOf<R>; query?: Record<string, string>; headers?: Record<string, string>; check?: (body: AnswerOf<R>) => boolean } = {},
  ): Promise<ControlOutcome<AnswerOf<R>>> {
    const query = options.query ? `?${new URLSearchParams(options.query)}` : '';
    const also = options.check;
    return this.request<AnswerOf<R>>(route.method, `${pathOf(route.path, params)}${query}`, {
      ...(options.body !== undefined ? { body: options.body } : {}),
      ...(options.headers ? { headers: options.headers } : {}),
      // The route's own check first; a caller's own, stricter one after it.
      check: (body) => route.check(body) && (also === undefined || also(body as AnswerOf<R>)),
    });
  }

  /**
   * Sends one API request and checks the answer: `check` says whether a successful body has the shape
   * the caller relies on (a false answer is `untrusted`).
   */
  async request<T>(method: string, path: string, options: { body?: unknown; headers?: Record<string, string>; check: (body: Record<string, unknown>) => boolean }): Promise<ControlOutcome<T>> {
    const headers: Record<string, string> = { ...options.headers, accept: 'application/json' };
    const credential = this.#credential;
    if (credential) {
      // Checked on the URL actually requested: a path can change the origin (`@host/…`).
      const origin = originOf(`${this.baseUrl}${path}`);
      if (origin !== credential.origin) throw new Error(`A request to ${origin ?? `${this.baseUrl}${path}`} would carry the credential of ${credential.origin}; nothing was sent.`);
      headers.authorization = `Bearer ${credential.token}`;
    }
    let init: RequestInit = { method, headers };
    if (options.body !== undefined) {
      headers['content-type'] = 'application/json';
      init = { method, headers, body: JSON.stringify(options.body) };
    }
    let response: Response;
    try {
      response = await this.#fetch(new Request(`${this.baseUrl}${path}`, init));
    } catch (error) {
      // The message of a failed fetch names the host, never the credential.
      return { kind: 'unreachable', message: `The control plane at ${this.baseUrl} could not be reached${networkFailure(error)}.` };
    }
    let body: unknown;
    try {
      body = JSON.parse(await response.text());
    } catch {
      return { kind: 'untrusted', status: response.status, message: `The control plane answered ${method} ${path} with HTTP ${response.status} and a body that is not JSON.` };
    }
    if (!isObject(body) || body.protocol !== CONTROL_PROTOCOL) {
      return { kind: 'untrusted', status: response.status, message: `The control plane answered ${method} ${path} without the ${CONTROL_PROTOCOL} protocol.` };
    }
    if (!response.ok) {
      const error = body.error;
      if (!isObject(error) || typeof error.code !== 'string' || !ERROR_CODES.has(error.code) || typeof error.message !== 'string') {
        return { kind: 'untrusted', status: response.status, message: `The control plane answered HTTP ${response.status} without a usable error.` };
      }
      return { kind: 'refused', status: response.status, error: error as unknown as ControlError };
    }
    if (!options.check(body)) {
      return { kind: 'untrusted', status: response.status, message: `The control plane's answer to ${method} ${path} does not have the expected shape.` };
    }
    return { kind: 'ok', status: response.status, body: body as T };
  }
}

/** Why a fetch failed, as ` (reason)` for a message: its message and, where Node gives one, its cause's code (ECONNREFUSED, UND_ERR_SOCKET…). */
export function networkFailure(error: unknown): string {
  if (!(error instanceof Error) || !error.message) return '';
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  const detail = typeof cause?.code === 'string' ? cause.code : typeof cause?.message === 'string' ? cause.message : undefined;
  return ` (${error.message}${detail ? `: ${detail}` : ''})`;
}
