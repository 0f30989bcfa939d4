import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { zipSync, type Zippable } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeCompiler } from '../../adapters/node/compiler';
import { nodeTemplates } from '../../adapters/node/templates';
import { runInProcess } from '../../testing/cli';
import { crc32 } from './crc32';
import { MAX_ZIP_ENTRY_BYTES, openZip, zipProject, type ZipErrorCode } from '.';

let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'platform-zip-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

const templates = nodeTemplates();
const todo = templates.find((t) => t.id === 'todo')!;

function zipOk(files: Record<string, string | Uint8Array>): Uint8Array {
  const result = zipProject(files);
  if (!result.ok) throw new Error(result.error.message);
  return result.bytes;
}

function errorCode(bytes: Uint8Array): ZipErrorCode | 'ok' {
  const result = openZip(bytes);
  return result.ok ? 'ok' : result.error.code;
}

/** An archive with arbitrary entry names and attributes, made by fflate directly. */
function rawZip(entries: Record<string, Uint8Array | [Uint8Array, { os?: number; attrs?: number; level?: 0 }]>): Uint8Array {
  const zippable: Zippable = {};
  for (const [name, value] of Object.entries(entries)) Object.defineProperty(zippable, name, { value, enumerable: true });
  return zipSync(zippable);
}

const text = (s: string) => new TextEncoder().encode(s);

describe('download as zip', () => {
  it('the extracted templates/todo is a project `platform check` accepts as is', async () => {
    const result = zipProject(todo.files);
    expect(result.ok && result.folder).toBe('todo');
    const archive = join(work, 'todo.zip');
    writeFileSync(archive, result.ok ? result.bytes : new Uint8Array());
    // Extracted by an independent tool (Info-ZIP's unzip), not by our own reader.
    const target = join(work, 'extracted');
    mkdirSync(target);
    execFileSync('unzip', ['-q', archive, '-d', target]);
    for (const [path, data] of Object.entries(todo.files)) expect(readFileSync(join(target, 'todo', path), typeof data === 'string' ? 'utf8' : null)).toEqual(typeof data === 'string' ? data : Buffer.from(data));

    const { code, stdout } = await runInProcess(['check', '--json', join(target, 'todo')], { cwd: work, compiler: async () => nodeCompiler() });
    const envelope = JSON.parse(stdout) as { ok: boolean; diagnostics: unknown[] };
    expect(envelope.diagnostics).toEqual([]);
    expect(envelope.ok).toBe(true);
    expect(code).toBe(0);
  }, 60_000);

  it('is deterministic, and every template opens back to the same files with the folder stripped', () => {
    for (const template of templates) {
      const bytes = zipOk(template.files);
      expect(zipOk(template.files)).toEqual(bytes);
      const opened = openZip(bytes);
      expect(opened).toEqual({ ok: true, zip: { files: template.files, root: template.id, skipped: [] } });
    }
  });

  it('keeps bytes that are not text as bytes', () => {
    const files = { 'app.manifest.json': '{"name": "bin-app"}', 'public/logo.png': new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]) };
    const opened = openZip(zipOk(files));
    expect(opened.ok && opened.zip.files).toEqual(files);
    expect(opened.ok && opened.zip.root).toBe('bin-app');
  });

  it('refuses to zip a path that could not be extracted in place', () => {
    expect(zipProject({ '../x': 'y' })).toMatchObject({ ok: false, error: { code: 'zip_unsafe_path' } });
    expect(zipProject({ a: 'y' }, { folder: '..' })).toMatchObject({ ok: false, error: { code: 'zip_unsafe_path' } });
  });
});

describe('open from zip: refusals', () => {
  const cases: Array<[string, () => Uint8Array, ZipErrorCode]> = [
    ['not a zip', () => text('hello, this is not an archive at all'), 'zip_corrupt'],
    ['empty bytes', () => new Uint8Array(), 'zip_corrupt'],
    ['cut off', () => zipOk(todo.files).slice(0, 2000), 'zip_corrupt'],
    ['a .. entry', () => rawZip({ 'p/../../evil.sh': text('x') }), 'zip_unsafe_path'],
    ['a leading ..', () => rawZip({ '../evil.sh': text('x') }), 'zip_unsafe_path'],
    ['an absolute entry', () => rawZip({ '/etc/cron.d/x': text('x') }), 'zip_unsafe_path'],
    ['a drive letter', () => rawZip({ 'C:/Windows/x': text('x') }), 'zip_unsafe_path'],
    ['a backslash', () => rawZip({ 'p\\..\\..\\x': text('x') }), 'zip_unsafe_path'],
    ['a control character', () => rawZip({ 'p/a\u0001b': text('x') }), 'zip_unsafe_path'],
    ['a symbolic link', () => rawZip({ 'p/app.manifest.json': text('{}'), 'p/link': [text('/etc/passwd'), { os: 3, attrs: 0o120777 << 16 }] }), 'zip_symlink'],
    ['an entry over the cap', () => rawZip({ 'p/big.txt': new Uint8Array(MAX_ZIP_ENTRY_BYTES + 1) }), 'zip_too_large'],
    ['only folders and litter', () => rawZip({ '__MACOSX/._x': text('x'), 'p/.DS_Store': text('x') }), 'zip_empty'],
    ['a file that is also a folder', () => rawZip({ 'p/a': text('x'), 'p/a/b': text('y') }), 'zip_corrupt'],
  ];
  for (const [name, make, code] of cases) it(`${name}: ${code}`, () => expect(errorCode(make())).toBe(code));

  it('a header that understates the size (a zip bomb) stops at the declared size', () => {
    const bytes = rawZip({ 'p/bomb.txt': new Uint8Array(200 * 1024 * 1024) });
    expect(bytes.length).toBeLessThan(400_000);
    expect(errorCode(bytes)).toBe('zip_too_large');
    // Now lie in the central directory: 100 bytes declared, 200 MiB inside.
    const view = new DataView(bytes.buffer);
    for (let at = bytes.length - 22; at >= 0; at--) {
      if (view.getUint32(at, true) === 0x02014b50) {
        view.setUint32(at + 24, 100, true);
        break;
      }
    }
    const result = openZip(bytes);
    expect(result).toMatchObject({ ok: false, error: { code: 'zip_corrupt', entry: 'p/bomb.txt' } });
    expect(result.ok ? '' : result.error.message).toMatch(/inflates past its declared size/);
  });

  it('a changed byte in an entry fails its CRC-32', () => {
    const bytes = rawZip({ 'p/a.txt': [text('hello world, stored'), { level: 0 }] });
    const at = Buffer.from(bytes).indexOf('hello');
    bytes[at] = 'j'.charCodeAt(0);
    expect(openZip(bytes)).toMatchObject({ ok: false, error: { code: 'zip_corrupt', message: expect.stringMatching(/CRC-32/) } });
  });

  it('an encrypted entry and an unknown compression method are unsupported', () => {
    const bytes = rawZip({ 'p/a.txt': text('x'.repeat(100)) });
    const view = new DataView(bytes.buffer);
    const central = Buffer.from(bytes).indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    const encrypted = bytes.slice();
    new DataView(encrypted.buffer).setUint16(central + 8, view.getUint16(central + 8, true) | 1, true);
    expect(errorCode(encrypted)).toBe('zip_unsupported');
    const lzma = bytes.slice();
    new DataView(lzma.buffer).setUint16(central + 10, 14, true);
    expect(errorCode(lzma)).toBe('zip_unsupported');
  });

  it('skips .platform/ in any case (.PLATFORM/x, .Platform/x are .platform/ on a macOS or Windows disk)', () => {
    const bytes = rawZip({ 'p/app.manifest.json': text('{}'), 'p/.PLATFORM/engines/dev/modules/a.mjs': text('x'), 'p/.Platform/x': text('x'), 'p/.platform/y': text('y'), 'p/Node_Modules/z/index.js': text('z'), 'p/.ds_store': text('a') });
    expect(openZip(bytes)).toEqual({ ok: true, zip: { files: { 'app.manifest.json': '{}' }, root: 'p', skipped: ['p/.PLATFORM/engines/dev/modules/a.mjs', 'p/.Platform/x', 'p/.platform/y', 'p/Node_Modules/z/index.js', 'p/.ds_store'] } });
  });

  it('refuses names that are one file on a disk that ignores case or Unicode normalisation (zip_corrupt, both names said)', () => {
    const nfc = 'p/caf\u00e9.ts';
    const nfd = 'p/cafe\u0301.ts';
    expect(nfc).not.toBe(nfd);
    for (const [a, b] of [['p/a.ts', 'p/A.ts'], [nfc, nfd], ['p/src/x.ts', 'p/SRC/x.ts'], ['p/A', 'p/a/b.ts']] as const) {
      const result = openZip(rawZip({ [a]: text('1'), [b]: text('2') }));
      expect(result).toMatchObject({ ok: false, error: { code: 'zip_corrupt' } });
      const message = result.ok ? '' : result.error.message;
      expect(message).toContain(JSON.stringify(a).slice(1, -1).replace(/^p\//, ''));
      expect(message).toMatch(/one file on a disk that ignores case or Unicode normalisation|both a file and the folder/);
    }
    // Zipping such a project is refused the same way.
    expect(zipProject({ 'a.ts': '1', 'A.ts': '2' })).toMatchObject({ ok: false, error: { code: 'zip_unsafe_path', message: expect.stringContaining('ignores case') } });
  });

  it('skips archiver litter and dependency folders, and keeps no common folder when there is none', () => {
    const bytes = rawZip({ 'a.txt': text('a'), 'src/b.ts': text('b'), '__MACOSX/src/._b.ts': text('x'), 'node_modules/x/index.js': text('x'), '.DS_Store': text('x') });
    expect(openZip(bytes)).toEqual({ ok: true, zip: { files: { 'a.txt': 'a', 'src/b.ts': 'b' }, skipped: ['__MACOSX/src/._b.ts', 'node_modules/x/index.js', '.DS_Store'] } });
  });

  it('never throws on mutated archives (seeded)', () => {
    const base = zipOk(todo.files);
    let seed = 99;
    const random = () => ((seed = (seed * 48271) % 2147483647) / 2147483647);
    for (let n = 0; n < 300; n++) {
      const bytes = base.slice(0, random() < 0.2 ? Math.floor(random() * base.length) : base.length);
      for (let k = 0; k < 1 + Math.floor(random() * 4); k++) bytes[Math.floor(random() * bytes.length)] = Math.floor(random() * 256);
      const result = openZip(bytes);
      if (!result.ok) expect(result.error.message.length).toBeGreaterThan(0);
      else for (const path of Object.keys(result.zip.files)) expect(path).not.toMatch(/(^|\/)\.\.(\/|$)|^\//);
    }
  });

  it('uses the standard CRC-32', () => {
    expect(crc32(text('123456789'))).toBe(0xcbf43926);
  });
});

// Extracting with our reader and writing to disk gives the same tree as the original project.
describe('open from zip onto disk', () => {
  it('writes templates/todo back where it belongs', () => {
    const opened = openZip(zipOk(todo.files));
    if (!opened.ok) throw new Error(opened.error.message);
    const dir = join(work, 'ours');
    for (const [path, data] of Object.entries(opened.zip.files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), data);
    }
    expect(readFileSync(join(dir, 'app.manifest.json'), 'utf8')).toBe(todo.files['app.manifest.json']);
  });
});
