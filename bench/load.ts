/**
 * A closed-loop HTTP load on loopback, for the benches that measure a hosted query under many
 * connections (deploy, front-door): each of `connections` loops sends its next POST over a kept-alive
 * connection as soon as the last is answered, until `seconds` have passed.
 */
import { Agent, request as httpRequest } from 'node:http';

export interface LoadTarget {
  /** The loopback port, and the Host header (a hosted origin's host, say). */
  port: number;
  host: string;
  path: string;
  body: string;
  /** Headers for each request (a cookie, or none for a visitor never seen). */
  headers?: () => Record<string, string>;
}

export interface Load {
  /** Answered with 200. */
  requests: number;
  /** Answered with anything else, or not at all. */
  failed: number;
  seconds: number;
  /** Of the requests answered with 200, ms. */
  latencies: number[];
}

/** POSTs `target.body` once; resolves the status (0 for a socket error). */
export function post(agent: Agent, target: LoadTarget): Promise<number> {
  return new Promise((resolve) => {
    const req = httpRequest(
      { agent, host: '127.0.0.1', port: target.port, path: target.path, method: 'POST', headers: { host: target.host, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(target.body)), ...target.headers?.() } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', () => resolve(0));
      },
    );
    req.on('error', () => resolve(0));
    req.end(target.body);
  });
}

export async function load(target: LoadTarget, seconds: number, connections: number): Promise<Load> {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const latencies: number[] = [];
  let failed = 0;
  const end = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < end) {
        const start = performance.now();
        const status = await post(agent, target);
        if (status === 200) latencies.push(performance.now() - start);
        else failed++;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  return { requests: latencies.length, failed, seconds: elapsed, latencies };
}
