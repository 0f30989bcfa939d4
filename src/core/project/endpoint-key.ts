/** The endpoint key grammar, `'<METHOD> /api/...'`: shared by the compiler and the runtime's router, with no TypeScript import. */

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS' | 'HEAD';
export const METHODS: readonly HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'];

/** Parses an endpoint key; undefined when it is malformed (DG1302). */
export function parseEndpointKey(key: string): { method: HttpMethod; path: string; shape: string; params: string[] } | undefined {
  const match = /^([A-Z]+) (\/\S*)$/.exec(key);
  if (!match) return undefined;
  const method = match[1] as HttpMethod;
  const path = match[2]!;
  if (!METHODS.includes(method)) return undefined;
  if (path !== '/api' && !path.startsWith('/api/')) return undefined;
  const params: string[] = [];
  const shape: string[] = [];
  for (const segment of path.slice(1).split('/')) {
    if (/^:[A-Za-z_][A-Za-z0-9_]*$/.test(segment)) {
      params.push(segment.slice(1));
      shape.push(':');
    } else if (/^[A-Za-z0-9_.-]+$/.test(segment)) {
      shape.push(segment);
    } else {
      return undefined;
    }
  }
  if (new Set(params).size !== params.length) return undefined;
  return { method, path, shape: `${method} /${shape.join('/')}`, params };
}
