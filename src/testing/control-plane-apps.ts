/** Apps the control plane's tests deploy: built in memory by the core's compiler, as `platform deploy` builds them. */
import { readTextTree } from '../adapters/node/templates';
import { join } from 'node:path';
import { nodeCompiler } from '../adapters/node/compiler';
import { makeArtifact, type ArtifactRecord, compileProject, type Compiler } from '../core/build';
import { encodeBase64 } from '../core/bytes';
import { MemoryFileSystem } from '../core/fs';

const ROOT = join(import.meta.dirname, '../..');
let shared: Compiler | undefined;
export const compiler = async () => (shared ??= nodeCompiler());

export interface BuiltApp {
  id: string;
  record: ArtifactRecord;
  files: Map<string, Uint8Array>;
}

/** The files of a template under `templates/`. */
export function templateFiles(name: string): Record<string, string> {
  return readTextTree(join(ROOT, 'templates', name));
}

export async function build(files: Record<string, string>): Promise<BuiltApp> {
  const outcome = await compileProject(new MemoryFileSystem(files), await compiler());
  if (!outcome.id || !outcome.record || !outcome.files) throw new Error(`fixture did not build: ${outcome.diagnostics.map((d) => `${d.code} ${d.message}`).join('; ')}`);
  return { id: outcome.id, record: outcome.record, files: outcome.files };
}

/** The same artifact with one file's bytes replaced, re-addressed so that it still verifies. */
export function withFile(app: BuiltApp, path: string, text: string): BuiltApp {
  const files = new Map(app.files);
  files.set(path, new TextEncoder().encode(text));
  const { format: _f, files: _files, schemaId: _s, ...input } = app.record;
  const { id, record } = makeArtifact(input, files);
  return { id, record, files };
}

/** The body of `POST /v0/apps/:appId/deployments`. */
export function deployBody(app: BuiltApp, environment = 'preview') {
  const blobs: Record<string, string> = {};
  for (const [path, bytes] of app.files) blobs[app.record.files[path]!.sha256] = encodeBase64(bytes);
  return { environment, artifact: { id: app.id, record: app.record, blobs } };
}

/** Creates an app named `name` on the control plane at `controlUrl` and deploys `files` to its preview over the HTTP API; its preview origin. */
export async function deployOverHttp(controlUrl: string, token: string, name: string, files: Record<string, string>): Promise<string> {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const created = (await (await fetch(`${controlUrl}/v0/apps`, { method: 'POST', headers, body: JSON.stringify({ name }) })).json()) as { app: { id: string; urls: { preview: string } } };
  const answer = await fetch(`${controlUrl}/v0/apps/${created.app.id}/deployments`, { method: 'POST', headers, body: JSON.stringify(deployBody(await build(files))) });
  if (answer.status !== 201) throw new Error(`deploy of ${name} failed: ${await answer.text()}`);
  return created.app.urls.preview;
}

const CLIENT = `import { render } from 'preact';\nrender(<p>hello</p>, document.getElementById('app')!);\n`;

/** An app with a database: its name, tables (field name → type), server source, budgets and client source. */
export function databaseApp(options: { name: string; tables: Record<string, Record<string, string>>; server: string; budgets?: Record<string, number>; client?: string }): Record<string, string> {
  const tables = Object.fromEntries(Object.entries(options.tables).map(([table, fields]) => [table, { fields: Object.fromEntries(Object.entries(fields).map(([field, type]) => [field, { type }])) }]));
  const manifest = {
    format: 'platform.application-source.v0',
    name: options.name,
    entrypoints: { client: 'src/client/main.tsx', server: 'src/server/index.ts' },
    capabilities: ['database'],
    database: { tables },
    ...(options.budgets ? { budgets: options.budgets } : {}),
  };
  return { 'app.manifest.json': JSON.stringify(manifest, null, 2), 'src/client/main.tsx': options.client ?? `document.body.textContent = ${JSON.stringify(options.name)};\n`, 'src/server/index.ts': options.server };
}

/** A small app: `storage` (objects.put / objects.list) or not (objects.list answers nothing), plus a runaway query. */
export function smallApp(options: { storage: boolean; name?: string; database?: boolean }): Record<string, string> {
  const capabilities = [...(options.database ? ['database'] : []), ...(options.storage ? ['storage'] : [])];
  const manifest = {
    format: 'platform.application-source.v0',
    name: options.name ?? 'small-app',
    entrypoints: { client: 'src/client/main.tsx', server: 'src/server/index.ts' },
    ...(capabilities.length ? { capabilities } : {}),
    ...(options.storage ? { storage: {} } : {}),
    ...(options.database ? { database: { tables: { notes: { fields: { text: { type: 'string' } } } } } } : {}),
  };
  const server = options.storage
    ? `import { defineServer, mutation, query } from 'platform/server';
export default defineServer({
  queries: {
    'objects.list': query({ input: {}, handler: async (ctx) => (await ctx.storage.list({})).objects.map((o) => o.key) }),
    'spin.forever': query({ input: {}, handler: async () => { let i = 0; while (i >= 0) i++; return i; } }),
  },
  mutations: {
    'objects.put': mutation({ input: { key: 'string' }, handler: async (ctx, input) => { await ctx.storage.put(input.key, 'x'); } }),
  },
});
`
    : `import { defineServer, query } from 'platform/server';
export default defineServer({
  queries: {
    'objects.list': query({ input: {}, handler: async (): Promise<string[]> => [] }),
    'spin.forever': query({ input: {}, handler: async () => { let i = 0; while (i >= 0) i++; return i; } }),
  },
});
`;
  return { 'app.manifest.json': JSON.stringify(manifest, null, 2), 'src/client/main.tsx': CLIENT, 'src/server/index.ts': server };
}

/**
 * A hostile app's server (the security suite deploys it; the bench's abuse run too): it reaches for
 * Node, child processes, files, the network and the control plane, spins forever, holds 256 MiB
 * buffers, and streams `n` MiB.
 */
export const HOSTILE = `import { defineServer, endpoint, stream } from 'platform/server';

const g = globalThis as unknown as Record<string, any>;
const held: Uint8Array[] = [];
async function attempt(work: () => unknown): Promise<string> {
  try {
    return 'reached: ' + String(await work());
  } catch (error) {
    return 'refused: ' + String(error);
  }
}

export default defineServer({
  endpoints: {
    'GET /api/node': endpoint(async () => Response.json({
      process: typeof g.process,
      globalProcess: typeof g.globalThis.process,
      require: typeof g.require,
      // The engine's entry takes V8's gc() (exposed to it) before this module loads: never the app's.
      gc: typeof g.gc,
      getBuiltinModule: await attempt(() => g.process.getBuiltinModule('node:fs').readFileSync('/etc/passwd', 'utf8')),
      functionThis: await attempt(() => typeof g.Function('return this')().process),
      childProcess: await attempt(() => String(g.process.getBuiltinModule('node:child_process').execSync('id'))),
    })),
    'GET /api/read': endpoint(async (request) => {
      const path = new URL(request.url).searchParams.get('path') ?? '';
      return Response.json({
        fetchFile: await attempt(async () => (await fetch('file://' + path)).text()),
        fs: await attempt(() => g.process.getBuiltinModule('node:fs').readFileSync(path, 'utf8')),
      });
    }),
    'GET /api/fetch': endpoint(async (request) => {
      const target = new URL(request.url).searchParams.get('url') ?? '';
      return Response.json({ fetch: await attempt(async () => (await fetch(target)).status) });
    }),
    'GET /api/spin': endpoint(async () => {
      for (;;) {
        // never yields
      }
    }),
    'GET /api/stream/:mib': endpoint<'GET /api/stream/:mib'>(async (_request, ctx) => {
      const chunk = new Uint8Array(64 * 1024).fill(120);
      let left = Number(ctx.params.mib) * 16;
      return stream(new ReadableStream<Uint8Array>({ pull: (controller) => (left-- > 0 ? controller.enqueue(chunk) : controller.close()) }));
    }),
    'GET /api/hold': endpoint(async () => {
      const buffer = new Uint8Array(256 * 1024 * 1024);
      buffer.fill(1);
      held.push(buffer);
      return Response.json({ held: held.length });
    }),
  },
});
`;

/** The endpoints template with `server` as its server (a plain client, no tests), with `budgets` over its own. */
export function hostileFiles(server = HOSTILE, budgets: Record<string, number> = {}): Record<string, string> {
  const files = templateFiles('endpoints');
  for (const path of Object.keys(files)) if (path.startsWith('tests/')) delete files[path];
  const manifest = JSON.parse(files['app.manifest.json']!) as { budgets?: Record<string, number> };
  manifest.budgets = { ...manifest.budgets, ...budgets };
  return { ...files, 'app.manifest.json': JSON.stringify(manifest, null, 2), 'src/server/index.ts': server, 'src/client/main.tsx': "document.body.textContent = 'hostile';\n" };
}
