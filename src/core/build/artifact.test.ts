import * as esbuild from 'esbuild';
import { beforeEach, describe, expect, it } from 'vitest';
import { nodeLibrary } from '../../adapters/node/library';
import { baseApp, CLIENT } from '../analyze/__fixtures__/base-app';
import { MemoryFileSystem } from '../fs';
import { artifactPath, blobPath, LATEST_FILE, verifyLatest, type ArtifactRecord } from './artifact';
import { buildProject } from './build';
import { TypeCheckSession } from '../analyze';

const library = nodeLibrary();
const compiler = { esbuild, library, typecheck: new TypeCheckSession(library) };
let fs: MemoryFileSystem;
let id: string;
let record: ArtifactRecord;

const codes = async () => (await verifyLatest(fs)).diagnostics.map((d) => d.code);

beforeEach(async () => {
  fs = new MemoryFileSystem(baseApp());
  const outcome = await buildProject(fs, compiler);
  expect(outcome.diagnostics).toEqual([]);
  id = outcome.id!;
  record = outcome.record!;
});

describe('platform build writes a content-addressed artifact', () => {
  it('writes the record, every blob, the latest pointer and the generated types', async () => {
    expect(JSON.parse((await fs.readText(LATEST_FILE))!)).toMatchObject({ format: 'platform.latest.v0', artifact: id });
    expect(JSON.parse((await fs.readText(artifactPath(id)))!)).toEqual(record);
    for (const entry of Object.values(record.files)) expect(await fs.readBytes(blobPath(entry.sha256))).toBeDefined();
    expect(await fs.readText('.platform/types/app.d.ts')).toContain("queries: \"todos.list\"");
    expect(Object.keys(record.files).sort()).toEqual(['client/app.js', 'client/app.js.map', 'client/index.html', 'public/favicon.svg', 'server/index.js', 'server/index.js.map', 'tests/todos.test.js', 'tests/todos.test.js.map']);
    expect(record.contract.queries.map((q) => q.name)).toEqual(['todos.list']);
    expect(record.contract.mutations[0]).toEqual({ name: 'todos.add', kind: 'mutation', input: { title: 'string' }, guards: [{ kind: 'authenticated' }] });
    expect(record.contract.endpoints[0]).toMatchObject({ key: 'GET /api/health', method: 'GET', path: '/api/health', params: [] });
    expect(record.contract.policies).toEqual({ todos: 'ownedTable' });
    expect(record.toolchain).toMatchObject({ esbuild: '0.28.2', typescript: '6.0.3' });
  });

  it('generates the document from the manifest', async () => {
    const html = new TextDecoder().decode(await fs.readBytes(blobPath(record.files['client/index.html']!.sha256)));
    expect(html).toContain('<title>Todos</title>');
    expect(html).toContain('<link rel="icon" href="/favicon.svg" />');
    expect(html).toContain('<script type="module" src="/_platform/app/app.js"></script>');
  });

  it('verifies clean right after the build', async () => {
    expect(await codes()).toEqual([]);
  });

  it('DG1700 without a build', async () => {
    expect((await verifyLatest(new MemoryFileSystem(baseApp()))).diagnostics.map((d) => d.code)).toEqual(['DG1700']);
    fs.delete(artifactPath(id));
    expect(await codes()).toEqual(['DG1700']);
  });

  it('DG1701 for a malformed pointer, record or server source map', async () => {
    fs.write(LATEST_FILE, '{ "format": "platform.latest.v0", ');
    expect(await codes()).toEqual(['DG1701']);
  });

  it('DG1701 for a malformed server source map', async () => {
    fs.write(blobPath(record.files['server/index.js.map']!.sha256), 'not json');
    expect(await codes()).toEqual(expect.arrayContaining(['DG1703', 'DG1701']));
  });

  it('DG1702 when the record was edited after the build', async () => {
    fs.write(artifactPath(id), JSON.stringify({ ...record, name: 'renamed' }));
    expect(await codes()).toEqual(['DG1702']);
  });

  it('DG1703 for a missing, resized or altered blob', async () => {
    const js = record.files['client/app.js']!;
    fs.write(blobPath(js.sha256), 'x');
    expect(await codes()).toEqual(['DG1703']);
    const original = (await fs.readBytes(blobPath(record.files['server/index.js']!.sha256)))!;
    const altered = new Uint8Array(original);
    altered[0] = altered[0]! ^ 1;
    fs.write(blobPath(record.files['server/index.js']!.sha256), altered);
    fs.delete(blobPath(record.files['public/favicon.svg']!.sha256));
    const found = (await verifyLatest(fs)).diagnostics.map((d) => d.message);
    expect(found.some((m) => m.includes('server/index.js does not match its SHA-256'))).toBe(true);
    expect(found.some((m) => m.includes('public/favicon.svg is missing'))).toBe(true);
  });

  it('DG1705 names the files changed since the build', async () => {
    fs.write('src/client/main.tsx', CLIENT.replace('Add</button>', 'Add it</button>'));
    fs.write('src/client/new.ts', 'export {};\n');
    const [stale] = (await verifyLatest(fs)).diagnostics;
    expect(stale).toMatchObject({ code: 'DG1705', detail: { changed: ['src/client/main.tsx', 'src/client/new.ts'] } });
    expect(stale!.message).toContain('src/client/main.tsx, src/client/new.ts changed');
  });
});
