/** Apps the control plane's tests deploy: built in memory by the core's compiler, as `platform deploy` builds them. */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { nodeCompiler } from '../adapters/node/compiler';
import { makeArtifact, type ArtifactRecord } from '../core/build/artifact';
import { compileProject, type Compiler } from '../core/build/build';
import { encodeBase64 } from '../core/deploy/base64';
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
  const dir = join(ROOT, 'templates', name);
  const out: Record<string, string> = {};
  const walk = (path: string) => {
    for (const entry of readdirSync(path)) {
      const full = join(path, entry);
      if (statSync(full).isDirectory()) walk(full);
      else out[relative(dir, full).split('\\').join('/')] = readFileSync(full, 'utf8');
    }
  };
  walk(dir);
  return out;
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

const CLIENT = `import { render } from 'preact';\nrender(<p>hello</p>, document.getElementById('app')!);\n`;

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
