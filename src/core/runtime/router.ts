/** Endpoint routing: `'<METHOD> /api/...'` keys with `:params`, matched segment by segment, params percent-decoded. */
import { parseEndpointKey, type HttpMethod } from '../project/index.ts';

interface Route<T> {
  method: HttpMethod;
  segments: Array<{ literal: string } | { param: string }>;
  value: T;
}

export interface RouteMatch<T> {
  value: T;
  /** Matched parameters, percent-decoded; empty for a route without parameters. */
  params: Record<string, string>;
}

export class Router<T> {
  readonly #routes: Route<T>[] = [];

  /** Adds a route; returns false for a malformed key (the compiler reports those as DG1302). */
  add(key: string, value: T): boolean {
    const parsed = parseEndpointKey(key);
    if (!parsed) return false;
    const segments = parsed.path
      .slice(1)
      .split('/')
      .map((segment) => (segment.startsWith(':') ? { param: segment.slice(1) } : { literal: segment }));
    this.#routes.push({ method: parsed.method, segments, value });
    return true;
  }

  /**
   * The route for a method and a URL path (still percent-encoded), or undefined. `methodAllowed` tells
   * a path that exists under another method (405) from one that does not (404).
   */
  match(method: string, path: string): { match?: RouteMatch<T>; methodAllowed: boolean } {
    const parts = path.replace(/^\//, '').split('/');
    let pathExists = false;
    for (const route of this.#routes) {
      if (route.segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      let ok = true;
      for (let i = 0; i < parts.length && ok; i++) {
        const segment = route.segments[i]!;
        const part = parts[i]!;
        if ('literal' in segment) ok = segment.literal === part;
        else if (part === '') ok = false;
        else {
          try {
            params[segment.param] = decodeURIComponent(part);
          } catch {
            ok = false;
          }
        }
      }
      if (!ok) continue;
      pathExists = true;
      if (route.method === method) return { match: { value: route.value, params }, methodAllowed: true };
    }
    return { methodAllowed: !pathExists };
  }
}
