import { createHash } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { nodeTemplates } from '../../adapters/node/templates';
import type { Manifest } from '../manifest';
import { sampleStateExport } from '../state/__fixtures__/sample';
import { decodeBase64url, encodeBase64url } from '../bytes';
import { decodeShareLink, encodeShareLink, MAX_SHARE_LINK_CHARS, MAX_SHARE_PAYLOAD_BYTES, type ShareLink, type ShareLinkErrorCode } from '.';

const templates = nodeTemplates().map((t) => ({
  id: t.id,
  files: Object.fromEntries(Object.entries(t.files).map(([path, data]) => [path, typeof data === 'string' ? data : new TextDecoder().decode(data)])),
}));

import { frame } from './frame.fixture';

async function encodeOk(link: ShareLink): Promise<string> {
  const result = await encodeShareLink(link);
  if (!result.ok) throw new Error(result.error.message);
  return result.hash;
}

async function code(input: string): Promise<ShareLinkErrorCode | 'ok'> {
  const result = await decodeShareLink(input);
  return result.ok ? 'ok' : result.error.code;
}

const small: ShareLink = { files: { 'app.manifest.json': '{}', 'src/a.ts': 'export const a = 1;\n' }, persona: 'bob', openFile: 'src/a.ts', name: 'Mine', template: 'todo' };

describe('base64url', () => {
  it('round-trips every length and matches Node\'s encoder', () => {
    for (let n = 0; n < 70; n++) {
      const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 37 + n) & 255);
      const text = encodeBase64url(bytes);
      expect(text).toBe(Buffer.from(bytes).toString('base64url'));
      expect(decodeBase64url(text)).toEqual(bytes);
    }
    expect(decodeBase64url('ab+c')).toBe('invalid');
    expect(decodeBase64url('abcde')).toBe('truncated');
    expect(decodeBase64url('AB')).toEqual(new Uint8Array([0])); // leftover bits of a cut-off group are ignored
  });
});

describe('share links: round trips', () => {
  for (const template of templates) {
    it(`templates/${template.id}: files, persona, open file, name and template come back as they went`, async () => {
      const link: ShareLink = { files: template.files, persona: 'guest', openFile: 'app.manifest.json', name: `${template.id} copy`, template: template.id };
      const hash = await encodeOk(link);
      expect(hash).toMatch(/^v1\.[A-Za-z0-9_-]+$/);
      expect(await decodeShareLink(hash)).toEqual({ ok: true, link });
      // The payload is standard raw DEFLATE of JSON: another implementation reads it.
      const framed = Buffer.from(hash.slice(3), 'base64url');
      expect(JSON.parse(inflateRawSync(framed.subarray(8)).toString('utf8'))).toMatchObject({ persona: 'guest', files: template.files });
    });

    it(`templates/${template.id}: with its app data`, async () => {
      const manifest = JSON.parse(template.files['app.manifest.json']!) as Manifest;
      const state = sampleStateExport(manifest, 5);
      const link: ShareLink = { files: template.files, persona: 'alice', state };
      expect(await decodeShareLink(await encodeOk(link))).toEqual({ ok: true, link });
    });
  }

  it('accepts a full URL, a #fragment, and a link broken over lines', async () => {
    const hash = await encodeOk(small);
    const wrapped = hash.replace(/(.{20})/g, '$1\n  ');
    for (const input of [hash, `#${hash}`, `https://play.example/?embed#${hash}`, wrapped]) expect(await decodeShareLink(input)).toEqual({ ok: true, link: small });
  });

  it('keeps unusual but safe file names, including __proto__', async () => {
    const files = JSON.parse('{"__proto__": "x", "a b/ü.ts": "y", "constructor": "z"}') as Record<string, string>;
    const result = await decodeShareLink(frame(JSON.stringify({ files, persona: 'alice' })));
    expect(result.ok && Object.keys(result.link.files)).toEqual(['__proto__', 'a b/ü.ts', 'constructor']);
    expect(result.ok && Object.getPrototypeOf(result.link.files)).toBe(Object.prototype);
  });
});

describe('share links: refusals', () => {
  it('every cut-off prefix of a link is truncated', async () => {
    const hash = await encodeOk(small);
    for (let length = 0; length < hash.length; length++) expect(await code(hash.slice(0, length)), `length ${length}`).toBe('share_link_truncated');
  });

  it('any changed character after the header is corrupt', async () => {
    const hash = await encodeOk(small);
    const body = 3 + 11; // "v1." and the 8-byte header's base64 (10⅔ characters)
    for (let i = body + 1; i < hash.length; i++) {
      const replacement = hash[i] === 'A' ? 'B' : 'A';
      const changed = hash.slice(0, i) + replacement + hash.slice(i + 1);
      expect(await code(changed), `position ${i}`).toBe('share_link_corrupt');
    }
    // Changed header characters are refused too (as damaged, cut off or oversize), never accepted.
    for (let i = 3; i <= body; i++) expect(await code(hash.slice(0, i) + (hash[i] === 'A' ? 'B' : 'A') + hash.slice(i + 1))).not.toBe('ok');
  });

  it('tells versions apart: future, unknown, none', async () => {
    expect(await code(frame(JSON.stringify(small), { version: 'v2' }))).toBe('share_link_future_version');
    expect(await code('v37.AAAA')).toBe('share_link_future_version');
    for (const input of ['v0.AAAA', 'v01.AAAA', 'vx.AAAA', 'V1.AAAA', 'share.AAAA']) expect(await code(input), input).toBe('share_link_unknown_version');
    for (const input of ['hello', '.AAAA', '/v1.AAA', '%%%', '{"files":{}}']) expect(await code(input), input).toBe('share_link_corrupt');
  });

  const corrupt: Array<[string, string]> = [
    ['characters outside base64url', 'v1.AAAA+/AA'],
    ['a longer body than declared', `${frame('{}')}AAAA`],
    ['a valid frame around bytes that are not DEFLATE', frame('', { compressed: new Uint8Array([0xff, 0xff, 0xff, 0xff, 0x00]) })],
    ['DEFLATE of bytes that are not UTF-8', frame(new Uint8Array([0xc3, 0x28]))],
    ['DEFLATE of text that is not JSON', frame('{"files": ')],
    ['JSON that is not an object', frame('[1,2]')],
    ['no files', frame(JSON.stringify({ files: {}, persona: 'alice' }))],
    ['files not an object', frame(JSON.stringify({ files: ['a'], persona: 'alice' }))],
    ['a file that is not text', frame(JSON.stringify({ files: { a: 1 }, persona: 'alice' }))],
    ['a path with ..', frame(JSON.stringify({ files: { '../etc/passwd': 'x' }, persona: 'alice' }))],
    ['a path with a .. segment inside', frame(JSON.stringify({ files: { 'src/../../x': 'x' }, persona: 'alice' }))],
    ['an absolute path', frame(JSON.stringify({ files: { '/etc/passwd': 'x' }, persona: 'alice' }))],
    ['a drive letter', frame(JSON.stringify({ files: { 'C:/x': 'x' }, persona: 'alice' }))],
    ['a backslash', frame(JSON.stringify({ files: { 'a\\..\\..\\x': 'x' }, persona: 'alice' }))],
    ['a NUL byte', frame(JSON.stringify({ files: { 'a\u0000b': 'x' }, persona: 'alice' }))],
    ['an empty segment', frame(JSON.stringify({ files: { 'a//b': 'x' }, persona: 'alice' }))],
    ['a file that is also a folder', frame(JSON.stringify({ files: { a: 'x', 'a/b': 'y' }, persona: 'alice' }))],
    ['an unknown persona', frame(JSON.stringify({ files: { a: 'x' }, persona: 'eve' }))],
    ['no persona', frame(JSON.stringify({ files: { a: 'x' } }))],
    ['an open file that is not a file', frame(JSON.stringify({ files: { a: 'x' }, persona: 'alice', openFile: 'b' }))],
    ['an unknown key', frame(JSON.stringify({ files: { a: 'x' }, persona: 'alice', run: 'rm -rf' }))],
    ['a bad template id', frame(JSON.stringify({ files: { a: 'x' }, persona: 'alice', template: '../x' }))],
    ['an empty name', frame(JSON.stringify({ files: { a: 'x' }, persona: 'alice', name: ' ' }))],
    ['data that is not a state export', frame(JSON.stringify({ files: { a: 'x' }, persona: 'alice', state: { protocol: 'other' } }))],
  ];
  for (const [name, input] of corrupt) {
    it(`corrupt: ${name}`, async () => {
      const result = await decodeShareLink(input);
      expect(result).toMatchObject({ ok: false, error: { code: 'share_link_corrupt', message: expect.stringMatching(/^This /) } });
    });
  }

  it('too large: an over-long link is refused before any work', async () => {
    expect(await code(`v1.${'A'.repeat(MAX_SHARE_LINK_CHARS)}`)).toBe('share_link_too_large');
    // A header declaring more bytes than were sent is a cut-off link, whatever it claims.
    const claims = Buffer.from([0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 1, 2, 3, 4]).toString('base64url');
    expect(await code(`v1.${claims}`)).toBe('share_link_truncated');
  });

  it('too large: a zip bomb stops at the decompressed cap', async () => {
    const zeros = new Uint8Array(MAX_SHARE_PAYLOAD_BYTES * 4); // 64 MiB of zeros → about 64 KiB compressed
    const bomb = frame(zeros);
    expect(bomb.length).toBeLessThan(200_000);
    expect(await code(bomb)).toBe('share_link_too_large');
  });

  it('encoding refuses what decoding would refuse', async () => {
    const bad = await encodeShareLink({ files: { '../x': 'y' }, persona: 'alice' });
    expect(bad).toMatchObject({ ok: false, error: { code: 'share_link_corrupt' } });
    expect(await encodeShareLink({ files: { a: 'x' }, persona: 'mallory' as never })).toMatchObject({ ok: false, error: { code: 'share_link_corrupt' } });
    // Incompressible text past the link limit.
    let seed = 1;
    const noise = Array.from({ length: 900_000 }, () => String.fromCharCode(33 + ((seed = (seed * 48271) % 2147483647) % 90))).join('');
    expect(await encodeShareLink({ files: { 'noise.txt': noise }, persona: 'alice' })).toMatchObject({ ok: false, error: { code: 'share_link_too_large' } });
  });
});
