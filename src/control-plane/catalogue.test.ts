/**
 * The template catalogue through the real CLI against a control plane listening on loopback:
 * `platform new --template <catalogue id>` downloads the archive the control plane serves, checks its
 * SHA-256, opens it with the zip safety rules and writes the project; every failure is its DG30xx code
 * and writes nothing.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOGUE_PROTOCOL } from '../core/templates';
import { zipProject } from '../core/zip';
import { archivePath, repositoryCatalogue, type CatalogueTemplate } from './catalogue';
import { compiler, templateFiles } from '../testing/control-plane-apps';
import { startControlPlane, type Started } from './main';
import { platformOverLoopback } from '../testing/control-plane';

let work: string;
let started: Started;
let fakeUrl: string;
let closedUrl: string;
const encoder = new TextEncoder();

function zipped(files: Record<string, string>, folder: string): Uint8Array {
  const result = zipProject(files, { folder });
  if (!result.ok) throw new Error(result.error.message);
  return result.bytes;
}

const endpoints = templateFiles('endpoints');
/** Entries that are wrong in each of the ways an installation can fail. */
function badEntries(): CatalogueTemplate[] {
  const good = zipped(endpoints, 'good');
  return [
    { id: 'wrong-hash', title: 'Hash differs', root: 'good', archive: good, sha256: 'f'.repeat(64) },
    // Built by hand: zipProject refuses such names, an attacker's archive does not.
    { id: 'escapes', title: 'Escapes', root: 'good', archive: zipSync({ 'good/app.manifest.json': encoder.encode(endpoints['app.manifest.json']!), 'good/../../evil.txt': encoder.encode('pwned') }) },
    { id: 'not-a-zip', title: 'Not a zip', root: 'good', archive: encoder.encode('this is not a zip archive at all, just text') },
    { id: 'other-root', title: 'Root differs', root: 'expected', archive: good },
    { id: 'no-manifest', title: 'No manifest', root: 'good', archive: zipped({ 'README.md': '# hi\n' }, 'good') },
    { id: 'gone', title: 'Archive missing', root: 'good', archive: good, archiveUrl: `/v0/templates/nothing-here/archive.zip` },
    { id: 'unreachable', title: 'Archive unreachable', root: 'good', archive: good, archiveUrl: 'http://127.0.0.1:1/archive.zip' },
  ];
}

const platform = (args: string[], controlUrl = started.url) => platformOverLoopback(args, { cwd: work, work, controlUrl, compiler });
const codes = (run: { envelope: { diagnostics: Array<{ code: string }> } }) => run.envelope.diagnostics.map((d) => d.code);

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'platform-catalogue-'));
  started = await startControlPlane({ dataDir: join(work, 'data'), port: 0, catalogue: [...repositoryCatalogue(), ...badEntries()] });
  // Something that is not a control plane's catalogue: it answers HTTP 500.
  fakeUrl = await serveDocument('broken', 500);
  closedUrl = 'http://127.0.0.1:1';
}, 60_000);

afterAll(async () => {
  await started?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('platform new --template <catalogue id>', () => {
  it('serves a catalogue of the repository templates with archives whose SHA-256 it states', async () => {
    const response = await fetch(`${started.url}/v0/templates`);
    const catalogue = (await response.json()) as { protocol: string; templates: Array<{ id: string; archive: string; sha256: string; root: string }> };
    expect(catalogue.protocol).toBe(CATALOGUE_PROTOCOL);
    const todo = catalogue.templates.find((t) => t.id === 'todo-starter')!;
    expect(todo).toMatchObject({ root: 'todo-starter', archive: `${started.url}${archivePath('todo-starter')}`, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
  });

  it('installs a catalogue template: the project passes check', async () => {
    const made = await platform(['new', 'shop', '--template', 'endpoints-starter']);
    expect(made.envelope.diagnostics).toEqual([]);
    expect(made.envelope.result).toMatchObject({ template: 'endpoints-starter', name: 'shop' });
    expect(JSON.parse(readFileSync(join(work, 'shop', 'app.manifest.json'), 'utf8')).name).toBe('shop');
    expect(readFileSync(join(work, 'shop', 'src/server/index.ts'), 'utf8')).toBe(endpoints['src/server/index.ts']);
    const checked = await platformOverLoopback(['check', 'shop'], { cwd: work, work, controlUrl: started.url, compiler });
    expect(checked.envelope.diagnostics.filter((d: { severity: string }) => d.severity === 'error')).toEqual([]);
  }, 120_000);

  it('refuses an unknown id (DG3002), --ui with a catalogue template (DG3013) and a non-empty target (DG3001)', async () => {
    const unknown = await platform(['new', 'a', '--template', 'todo-startr']);
    expect(codes(unknown), JSON.stringify(unknown.envelope.diagnostics)).toEqual(['DG3002']);
    expect(unknown.envelope.diagnostics[0].hint).toContain('todo-starter');
    expect(codes(await platform(['new', 'b', '--template', 'todo-starter', '--ui', 'preact']))).toEqual(['DG3013']);
    mkdirSync(join(work, 'full'));
    writeFileSync(join(work, 'full', 'keep.txt'), 'mine');
    expect(codes(await platform(['new', 'full', '--template', 'todo-starter']))).toEqual(['DG3001']);
    expect(readdirSync(join(work, 'full'))).toEqual(['keep.txt']);
  });

  it('reports a catalogue it cannot reach or read (DG3007) and one it cannot install from (DG3008)', async () => {
    expect(codes(await platform(['new', 'c', '--template', 'some-app'], closedUrl))).toEqual(['DG3007']);
    expect(codes(await platform(['new', 'c', '--template', 'some-app'], `${fakeUrl}`))).toEqual(['DG3007']); // HTTP 500
    const documents = {
      text: ['not json', 'DG3007'],
      protocol: [JSON.stringify({ protocol: 'something.else', templates: [] }), 'DG3008'],
      entries: [JSON.stringify({ protocol: CATALOGUE_PROTOCOL, templates: [{ id: 'x-app', title: 'X', archive: '/a.zip', sha256: 'not-hex', root: 'x' }] }), 'DG3008'],
      twice: [JSON.stringify({ protocol: CATALOGUE_PROTOCOL, templates: [1, 2].map(() => ({ id: 'x-app', title: 'X', archive: '/a.zip', sha256: 'a'.repeat(64), root: 'x' })) }), 'DG3008'],
      scheme: [JSON.stringify({ protocol: CATALOGUE_PROTOCOL, templates: [{ id: 'x-app', title: 'X', archive: 'file:///etc/passwd', sha256: 'a'.repeat(64), root: 'x' }] }), 'DG3008'],
    } as const;
    for (const [name, [body, code]] of Object.entries(documents)) {
      expect(codes(await platform(['new', 'c', '--template', 'x-app'], await serveDocument(body))), name).toEqual([code]);
    }
    expect(existsSync(join(work, 'c'))).toBe(false);
  });

  it('refuses a download that fails (DG3009), a wrong hash (DG3010), unsafe content (DG3011) and another project root (DG3012), writing nothing', async () => {
    for (const [id, code] of [['gone', 'DG3009'], ['unreachable', 'DG3009'], ['wrong-hash', 'DG3010'], ['escapes', 'DG3011'], ['not-a-zip', 'DG3011'], ['other-root', 'DG3012'], ['no-manifest', 'DG3012']] as const) {
      const run = await platform(['new', `t-${id}`, '--template', id]);
      expect(codes(run), id).toEqual([code]);
      expect(run.code, id).not.toBe(0);
      expect(existsSync(join(work, `t-${id}`)), id).toBe(false);
    }
    expect(existsSync(join(work, '..', 'evil.txt'))).toBe(false);
  });
});

/** A loopback origin that answers every request with `body` (the catalogue documents a control plane never serves). */
const servers: Server[] = [];
async function serveDocument(body: string, status = 200): Promise<string> {
  const server = createServer((_req, res) => {
    res.statusCode = status;
    res.end(body);
  });
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}
afterAll(() => Promise.all(servers.map((server) => new Promise((done) => server.close(done)))));
