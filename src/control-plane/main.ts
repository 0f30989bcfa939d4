/**
 * `npm run control-plane`: the control plane over HTTP on loopback.
 *
 *   tsx src/control-plane/main.ts [--port 4310] [--host 127.0.0.1] [--data .platform/control-plane]
 *     [--public-origin http://localhost:4310] [--playground-origin http://localhost:5173 …]
 *     [--max-stored-mb N] [--engine-idle-seconds N]
 *     [--database-url postgres://… (PLATFORM_DATABASE_URL)] [--node NAME] [--node-address http://…]
 *
 * Prints its URL and the operator secret, which makes a passkey account a builder (on /account or /device).
 */
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { serve } from '@hono/node-server';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { lingerOnClose } from '../adapters/node/lingering-close';
import { originProblem } from '../core/deploy';
import { endLeftoverEngines } from '../adapters/workerd/workerd-engine';
import { createControlPlane, type ControlPlane } from './control-plane';

export interface Started {
  url: string;
  port: number;
  plane: ControlPlane;
  stop(): Promise<void>;
}

/** Starts the control plane on a port (0 picks a free one) and resolves when it listens. */
export async function startControlPlane(options: Parameters<typeof createControlPlane>[0] & { port?: number; host?: string; nodeAddress?: string }): Promise<Started> {
  // A control plane killed with SIGKILL (no exit handler runs) leaves its engines running, each with
  // its environment's database open: they are ended, by their pid files, before anything is served.
  // The pool's processes too (each holds many environments' databases open).
  await Promise.all([endLeftoverEngines(join(options.dataDir, 'engines')), endLeftoverEngines(join(options.dataDir, 'pool'))]);
  const plane = await createControlPlane(options);
  const host = options.host ?? '127.0.0.1';
  return new Promise((resolvePromise, reject) => {
    const server = serve({ fetch: plane.app.fetch, port: options.port ?? 4310, hostname: host }, (info: AddressInfo) => {
      // Clients keep connections for as long as the server says (Keep-Alive: timeout=…), less a margin:
      // Node's 5 s default is shorter than a CLI's pause between requests (a build before a deploy), so
      // a pooled connection was often reset as it was reused.
      (server as unknown as { keepAliveTimeout: number; headersTimeout: number }).keepAliveTimeout = 65_000;
      (server as unknown as { keepAliveTimeout: number; headersTimeout: number }).headersTimeout = 66_000;
      const shown = host === '127.0.0.1' || host === '::1' || host === 'localhost' ? 'localhost' : host;
      // Where it is reached: given, or known only now that the port is (port 0 picks one).
      const url = options.publicOrigin ?? `http://${shown}:${info.port}`;
      plane.context.publicOrigin = url;
      // Where the other nodes sharing the records pass it requests for its apps (nodes.ts).
      const reachable = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
      const address = options.nodeAddress ?? `http://${reachable}:${info.port}`;
      void plane.context.nodes.register(address, Date.now()).then(() => resolvePromise({
        url,
        port: info.port,
        plane,
        stop: () =>
          new Promise<void>((done) => {
            (server as { closeAllConnections?: () => void }).closeAllConnections?.();
            server.close(() => void plane.close().then(done, done));
          }),
      }), reject);
    });
    server.once('error', reject);
    // A 413 is answered before the rest of a huge body is read: it must reach the client all the same.
    lingerOnClose(server as Server);
  });
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: process.env.PLATFORM_CONTROL_PORT ?? '4310' },
      host: { type: 'string', default: '127.0.0.1' },
      data: { type: 'string', default: process.env.PLATFORM_CONTROL_DATA ?? '.platform/control-plane' },
      'public-origin': { type: 'string', default: process.env.PLATFORM_PUBLIC_ORIGIN },
      'playground-origin': { type: 'string', multiple: true },
      'max-stored-mb': { type: 'string', default: process.env.PLATFORM_MAX_STORED_MB },
      'engine-idle-seconds': { type: 'string', default: process.env.PLATFORM_ENGINE_IDLE_SECONDS },
      'database-url': { type: 'string', default: process.env.PLATFORM_DATABASE_URL },
      node: { type: 'string', default: process.env.PLATFORM_NODE },
      'node-address': { type: 'string', default: process.env.PLATFORM_NODE_ADDRESS },
    },
  });
  const idleSeconds = values['engine-idle-seconds'] === undefined ? undefined : Number(values['engine-idle-seconds']);
  if (idleSeconds !== undefined && !(Number.isFinite(idleSeconds) && idleSeconds >= 0)) {
    console.error(`--engine-idle-seconds ${JSON.stringify(values['engine-idle-seconds'])} is not usable: it must be a number of seconds, 0 or more (0 keeps engines awake).`);
    process.exit(2);
  }
  const maxStoredMb = values['max-stored-mb'] === undefined ? undefined : Number(values['max-stored-mb']);
  if (maxStoredMb !== undefined && !(Number.isInteger(maxStoredMb) && maxStoredMb > 0)) {
    console.error(`--max-stored-mb ${JSON.stringify(values['max-stored-mb'])} is not usable: it must be a whole number of MiB above 0.`);
    process.exit(2);
  }
  // Playground origins: the flag (repeated, or comma-separated), else PLATFORM_PLAYGROUND_ORIGINS.
  const given = values['playground-origin'] ?? (process.env.PLATFORM_PLAYGROUND_ORIGINS ? [process.env.PLATFORM_PLAYGROUND_ORIGINS] : undefined);
  const playgroundOrigins = given?.flatMap((value) => value.split(',')).map((value) => value.trim()).filter(Boolean);
  for (const [name, origin] of [...(playgroundOrigins ?? []).map((o) => ['--playground-origin', o] as const), ['--public-origin', values['public-origin']] as const]) {
    const problem = origin === undefined ? undefined : originProblem(origin);
    if (problem) {
      console.error(`${name} ${JSON.stringify(origin)} is not usable: ${problem}.`);
      process.exit(2);
    }
  }
  const started = await startControlPlane({
    dataDir: resolve(values.data!),
    port: Number(values.port),
    host: values.host!,
    ...(playgroundOrigins ? { corsOrigins: playgroundOrigins } : {}),
    ...(values['public-origin'] ? { publicOrigin: values['public-origin'] } : {}),
    ...(maxStoredMb ? { maxStoredBytes: maxStoredMb * 1024 * 1024 } : {}),
    ...(idleSeconds !== undefined ? { engineIdleMs: idleSeconds * 1000 } : {}),
    ...(values['database-url'] ? { databaseUrl: values['database-url'] } : {}),
    ...(values.node ? { node: values.node } : {}),
    ...(values['node-address'] ? { nodeAddress: values['node-address'] } : {}),
  });
  const where = values['database-url'] ? `records in PostgreSQL, node ${started.plane.context.nodes.self}` : 'records in SQLite';
  console.log(`platform control plane on ${started.url} (data in ${resolve(values.data!)}, ${where})`);
  console.log(`Accounts sign in with passkeys at ${started.url}/account; builder status is granted once per account with the operator secret: ${started.plane.secrets.operatorSecret}`);
  console.log(`Playgrounds allowed to call the API (CORS): ${started.plane.corsOrigins.join(', ')}`);
  console.log(`Deployed apps are served at http://<app>--preview.localhost:${started.port} and http://<app>.localhost:${started.port}`);
  const stop = () => {
    void started.stop().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('control-plane/main.ts')) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
