import { describe, expect, it } from 'vitest';
import { nodeSqlDriverFactory } from '../../../adapters/node/sqljs';
import { testClock } from '../clock';
import { CursorSigner } from '../cursor';
import { DEFAULT_LIMITS, Meter } from '../limits';
import { storageConformance } from './conformance';
import { KEY_REFUSAL, isValidKey, isValidPrefix, quoteForMessage, validateKey, validatePrefix } from './keys';
import { MemoryObjectStore, SqlObjectStore, compareKeys } from './object-store';
import type { ObjectStore } from './object-store';
import { createStorage } from './storage';

describe('storage conformance (sql.js in Node)', () => {
  for (const c of storageConformance) {
    it(c.name, async () => c.run(await nodeSqlDriverFactory()));
  }
});

describe('keys', () => {
  const refused = (value: unknown): string => KEY_REFUSAL + quoteForMessage(value);

  it('accepts legal keys and returns them unchanged', () => {
    for (const key of ['a', 'a/b', 'A-Z_0.9~!(x)\'*', 'with space/x', '...', '.a/..b', 'a'.repeat(512)]) {
      expect(validateKey(key)).toBe(key);
      expect(isValidKey(key)).toBe(true);
    }
  });

  it('refuses illegal keys with the exact message', () => {
    const cases: Array<[unknown, string]> = [
      ['', '""'],
      ['/a', '"/a"'],
      ['a/', '"a/"'],
      ['a//b', '"a//b"'],
      ['.', '"."'],
      ['a/../b', '"a/../b"'],
      ['a:b', '"a:b"'],
      ['local:alice:abc123', '"local:alice:abc123"'],
      ['a\nb', '"a\\nb"'],
      ['é', '"é"'],
      [undefined, '"undefined"'],
      [12, '"12"'],
      [null, '"null"'],
      ['a'.repeat(513), `"${'a'.repeat(64)}…"`],
    ];
    for (const [key, quoted] of cases) {
      expect(() => validateKey(key)).toThrow(new Error(KEY_REFUSAL + quoted));
      expect(isValidKey(key)).toBe(false);
    }
    expect(KEY_REFUSAL).toBe('A storage key must be slash-separated printable segments without dot segments: ');
  });

  it('refuses the local appUserId shape, wherever it appears', () => {
    for (const key of ['local:alice:abc123', 'local:bob:x/file', 'users/local:carol:9f/avatar.png']) {
      expect(() => validateKey(key)).toThrow(refused(key));
    }
  });

  it('counts UTF-8 bytes and cuts the quoted key by characters, never inside a surrogate pair', () => {
    expect(isValidKey('a'.repeat(512))).toBe(true);
    expect(isValidKey('a'.repeat(513))).toBe(false);
    expect(quoteForMessage('😀'.repeat(70))).toBe(`"${'😀'.repeat(64)}…"`);
    expect(quoteForMessage('x'.repeat(64))).toBe(`"${'x'.repeat(64)}"`);
    expect(quoteForMessage(Object.create(null))).toBe('"[object Object]"');
    expect(quoteForMessage(Symbol('s'))).toBe('"Symbol(s)"');
  });

  it('prefixes: like keys, but may be empty, end in a slash, or end mid-segment', () => {
    for (const prefix of ['', 'a', 'a/', 'a/b', 'a/b/', 'a/b/c', '.', 'a/.', 'a/..', 'a/.h']) {
      expect(validatePrefix(prefix)).toBe(prefix);
      expect(isValidPrefix(prefix)).toBe(true);
    }
    for (const prefix of ['/', '/a', 'a//b', 'a//', './a', '../', 'a/../b', 'a/./', 'a:', 'a%', 'a'.repeat(513)]) {
      expect(() => validatePrefix(prefix)).toThrow(refused(prefix));
    }
    expect(() => validatePrefix(undefined)).toThrow(refused(undefined));
    expect(() => validatePrefix(7)).toThrow(`${KEY_REFUSAL}"7"`);
  });
});

describe('object stores', () => {
  const stores: Array<[string, () => Promise<ObjectStore>]> = [
    ['MemoryObjectStore', async () => new MemoryObjectStore()],
    ['SqlObjectStore', async () => new SqlObjectStore((await nodeSqlDriverFactory())())],
  ];

  for (const [name, makeStore] of stores) {
    it(`${name}: put, head, get, replace, delete, list with prefix, after and limit`, async () => {
      const store = await makeStore();
      const record = (key: string, text = key) => ({ key, size: text.length, contentType: 'text/plain', uploadedAt: 5, bytes: new TextEncoder().encode(text) });
      for (const key of ['b', 'a/2', 'a/1', 'a_1', 'a', 'ab', 'A']) await store.put(record(key));
      expect(await store.head('a/1')).toEqual({ key: 'a/1', size: 3, contentType: 'text/plain', uploadedAt: 5 });
      expect(await store.get('a/1')).toEqual(record('a/1'));
      expect(await store.get('zz')).toBeNull();
      await store.put(record('a/1', 'changed'));
      expect((await store.get('a/1'))?.size).toBe(7);
      await store.delete('b');
      await store.delete('b');
      expect(await store.head('b')).toBeNull();
      const keys = async (options: { prefix: string; after?: string; limit: number }) => (await store.list(options)).map((r) => r.key);
      expect(await keys({ prefix: '', limit: 100 })).toEqual(['A', 'a', 'a/1', 'a/2', 'a_1', 'ab']);
      expect(await keys({ prefix: 'a/', limit: 100 })).toEqual(['a/1', 'a/2']);
      expect(await keys({ prefix: 'a_', limit: 100 })).toEqual(['a_1']);
      expect(await keys({ prefix: 'a', after: 'a/1', limit: 2 })).toEqual(['a/2', 'a_1']);
      expect((await store.list({ prefix: 'a/', limit: 1 }))[0]).toEqual({ key: 'a/1', size: 7, contentType: 'text/plain', uploadedAt: 5 });
    });
  }

  it('compareKeys is UTF-8 byte order', () => {
    expect(['b', 'B', '\uffff', '😀', 'a'].sort(compareKeys)).toEqual(['B', 'a', 'b', '\uffff', '😀']);
    expect(compareKeys('a', 'ab')).toBe(-1);
    expect(compareKeys('ab', 'ab')).toBe(0);
  });

  it('the storage API works over MemoryObjectStore too', async () => {
    const meter = new Meter({ ...DEFAULT_LIMITS, readBytes: 4 });
    const storage = createStorage({ store: new MemoryObjectStore(), meter, signer: new CursorSigner(new Uint8Array(32)), clock: testClock(), writable: true });
    await storage.put('m/a', 'abc');
    await storage.put('m/b', 'de');
    expect((await storage.get('m/a'))?.bytes).toEqual(new TextEncoder().encode('abc'));
    await expect(storage.get('m/b')).rejects.toThrow('Storage read byte budget exceeded (4 bytes).');
    const page = await storage.list({ prefix: 'm/', limit: 1 });
    expect(page.objects.map((o) => o.key)).toEqual(['m/a']);
    expect((await storage.list({ prefix: 'm/', limit: 1, cursor: page.cursor! })).cursor).toBeNull();
  });
});
