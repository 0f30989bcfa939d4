import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { frame } from './frame.fixture';
import {
  chooseObjects,
  decodeShareLink,
  encodeShareLink,
  MAX_LINK_OBJECT_BYTES,
  MAX_SHARED_OBJECTS,
  parseProjectData,
  parseSharedObjects,
  PROJECT_DATA_PROTOCOL,
  projectDataText,
  toSharedObject,
  type ShareLink,
} from '.';

const hello = { key: 'uploads/hello.txt', contentType: 'text/plain', uploadedAt: 1_700_000_000_000, bytes: new TextEncoder().encode('hello from a teacher') };
const files = { 'app.manifest.json': '{}', 'src/a.ts': 'export const a = 1;\n' };

describe('stored objects beside the state', () => {
  it('round-trip through the link, bytes and metadata alike (Node decodes the same base64url)', async () => {
    const binary = { key: 'b/bin', contentType: 'application/octet-stream', uploadedAt: 0, bytes: new Uint8Array(randomBytes(1000)) };
    const link: ShareLink = { files, persona: 'alice', objects: [toSharedObject(hello), toSharedObject(binary)] };
    expect(Buffer.from(link.objects![1]!.data, 'base64url')).toEqual(Buffer.from(binary.bytes));
    const encoded = await encodeShareLink(link);
    if (!encoded.ok) throw new Error(encoded.error.message);
    const decoded = await decodeShareLink(encoded.hash);
    if (!decoded.ok) throw new Error(decoded.error.message);
    const parsed = parseSharedObjects(decoded.link.objects, MAX_LINK_OBJECT_BYTES);
    expect(parsed).toEqual({ ok: true, objects: [hello, binary] });
  });

  it('chooses the objects that fit the budget in order and names the rest', () => {
    const listed = [
      { key: 'a', size: 100 },
      { key: 'b', size: 300 },
      { key: 'c', size: 50 },
    ];
    expect(chooseObjects(listed, 200)).toEqual({ included: [listed[0], listed[2]], leftOut: [{ key: 'b', size: 300 }] });
    expect(chooseObjects(listed, 0).leftOut.map((o) => o.key)).toEqual(['a', 'b', 'c']);
    const many = Array.from({ length: MAX_SHARED_OBJECTS + 2 }, (_, i) => ({ key: `k${i}`, size: 0 }));
    expect(chooseObjects(many, 1).leftOut).toHaveLength(2);
  });

  it('refuses hostile objects with a stable code and a message naming the object', () => {
    const ok = toSharedObject(hello);
    const cases: Array<[unknown, string, RegExp]> = [
      ['nope', 'stored_objects_invalid', /not a list/],
      [[{ ...ok, key: '../etc/passwd' }], 'stored_objects_invalid', /not a storage key/],
      [[{ ...ok, key: '' }], 'stored_objects_invalid', /not a storage key/],
      [[{ ...ok, key: 'a//b' }], 'stored_objects_invalid', /not a storage key/],
      [[ok, ok], 'stored_objects_invalid', /appears twice/],
      [[{ ...ok, data: 'ab$c' }], 'stored_objects_invalid', /not base64url \(invalid\)/],
      [[{ ...ok, data: 'abcde' }], 'stored_objects_invalid', /not base64url \(truncated\)/],
      [[{ ...ok, data: 7 }], 'stored_objects_invalid', /no data/],
      [[{ ...ok, contentType: 'text/plain\n' }], 'stored_objects_invalid', /content type/],
      [[{ ...ok, uploadedAt: -1 }], 'stored_objects_invalid', /upload time/],
      [[{ ...ok, extra: 1 }], 'stored_objects_invalid', /unknown key "extra"/],
      [[Object.assign(Object.create({ polluted: true }) as object, ok)], 'stored_objects_invalid', /not an object/],
      [[{ ...ok, data: 'A'.repeat(400) }], 'stored_objects_too_large', /more than 100 bytes/],
      [Array.from({ length: MAX_SHARED_OBJECTS + 1 }, () => ok), 'stored_objects_too_large', /at most 1000/],
    ];
    for (const [value, code, message] of cases) {
      const result = parseSharedObjects(value, 100);
      expect(result.ok, JSON.stringify(value).slice(0, 80)).toBe(false);
      if (!result.ok) {
        expect(result.error.code).toBe(code);
        expect(result.error.message).toMatch(message);
      }
    }
  });

  it('a hostile link (bad key, bad base64, oversize) is refused whole with a stable code', async () => {
    const base = { files, persona: 'alice' };
    const link = (objects: unknown) => frame(JSON.stringify({ ...base, objects }));
    const bad = await decodeShareLink(link([{ ...toSharedObject(hello), key: '/abs' }]));
    expect(bad.ok ? 'ok' : [bad.error.code, bad.error.message]).toEqual(['share_link_corrupt', expect.stringMatching(/stored_objects_invalid: .*"\/abs", which is not a storage key/)]);
    const base64 = await decodeShareLink(link([{ ...toSharedObject(hello), data: '!!!!' }]));
    expect(base64.ok ? 'ok' : base64.error.code).toBe('share_link_corrupt');
    const big = await decodeShareLink(link([{ ...toSharedObject(hello), data: 'A'.repeat(Math.ceil((MAX_LINK_OBJECT_BYTES * 4) / 3) + 8) }]));
    expect(big.ok ? 'ok' : [big.error.code, big.error.message]).toEqual(['share_link_too_large', expect.stringContaining('stored_objects_too_large')]);
    // The encoder refuses what the decoder would.
    const encoded = await encodeShareLink({ ...base, persona: 'alice', objects: [{ ...toSharedObject(hello), key: 'a/../b' }] });
    expect(encoded.ok ? 'ok' : encoded.error.code).toBe('share_link_corrupt');
  });

  it('a project-data document carries the state as given and the objects checked', () => {
    const state = { protocol: 'platform.state-export.v0' };
    const parsed = parseProjectData(JSON.parse(projectDataText(state, [toSharedObject(hello)])), 1000);
    expect(parsed).toEqual({ ok: true, data: { state, objects: [hello] } });
    expect(parseProjectData({ protocol: PROJECT_DATA_PROTOCOL, objects: [], more: 1 }, 1000)).toMatchObject({ ok: false, error: { code: 'stored_objects_invalid' } });
    expect(parseProjectData({ protocol: 'other' }, 1000)).toMatchObject({ ok: false, error: { code: 'stored_objects_invalid' } });
    expect(parseProjectData({ protocol: PROJECT_DATA_PROTOCOL, objects: [toSharedObject(hello)] }, 5)).toMatchObject({ ok: false, error: { code: 'stored_objects_too_large' } });
  });
});
