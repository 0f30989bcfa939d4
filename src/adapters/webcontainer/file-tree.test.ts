import { describe, expect, it } from 'vitest';
import { planSync, toFileSystemTree, underFolder, UnmountablePathError } from './file-tree';

describe('toFileSystemTree', () => {
  it('makes a directory node per folder and a file node per file, keeping bytes as bytes', () => {
    const png = new Uint8Array([137, 80, 78, 71]);
    const tree = toFileSystemTree({
      'src/server/index.ts': 'export default 1;',
      'app.manifest.json': '{}',
      'public/logo.png': png,
      'src/client/main.tsx': '<p/>',
    });
    expect(tree).toEqual({
      'app.manifest.json': { file: { contents: '{}' } },
      public: { directory: { 'logo.png': { file: { contents: png } } } },
      src: {
        directory: {
          client: { directory: { 'main.tsx': { file: { contents: '<p/>' } } } },
          server: { directory: { 'index.ts': { file: { contents: 'export default 1;' } } } },
        },
      },
    });
    const bytes = (tree.public as { directory: Record<string, { file: { contents: Uint8Array } }> }).directory['logo.png']!.file.contents;
    expect(bytes).toBe(png);
  });

  it('gives an empty tree for no files', () => {
    expect(toFileSystemTree({})).toEqual({});
  });

  it.each([
    ['/etc/passwd', 'absolute'],
    ['C:/x.ts', 'absolute'],
    ['../outside.ts', 'climbs out'],
    ['src/../../x.ts', 'climbs out'],
    ['src//x.ts', 'empty'],
    ['./x.ts', '"."'],
  ])('refuses %s', (path, why) => {
    expect(() => toFileSystemTree({ [path]: '' })).toThrow(UnmountablePathError);
    expect(() => toFileSystemTree({ [path]: '' })).toThrow(why);
  });

  it('refuses a file where a folder is needed, either way round', () => {
    expect(() => toFileSystemTree({ src: 'a file', 'src/x.ts': '' })).toThrow('"src" is a file');
  });

  it('places a tree under a folder', () => {
    expect(underFolder('.platform-toolchain', { 'cli.mjs': { file: { contents: 'x' } } })).toEqual({
      '.platform-toolchain': { directory: { 'cli.mjs': { file: { contents: 'x' } } } },
    });
    expect(underFolder('a/b', {})).toEqual({ a: { directory: { b: { directory: {} } } } });
  });
});

describe('planSync', () => {
  it('writes new and changed files and removes deleted ones', () => {
    const plan = planSync({ 'a.ts': 'a', 'b.ts': 'b', 'gone.ts': 'g', 'src/old.ts': 'o' }, { 'a.ts': 'a', 'b.ts': 'B', 'new.ts': 'n' });
    expect(plan).toEqual({ write: { 'b.ts': 'B', 'new.ts': 'n' }, remove: ['gone.ts', 'src/old.ts'] });
  });

  it('compares bytes by content, not identity', () => {
    expect(planSync({ 'x.bin': new Uint8Array([1, 2]) }, { 'x.bin': new Uint8Array([1, 2]) })).toEqual({ write: {}, remove: [] });
    expect(planSync({ 'x.bin': new Uint8Array([1, 2]) }, { 'x.bin': new Uint8Array([1, 3]) }).write).toEqual({ 'x.bin': new Uint8Array([1, 3]) });
    expect(planSync({ 'x.bin': new Uint8Array([1]) }, { 'x.bin': new Uint8Array([1, 0]) }).write).toHaveProperty('x.bin');
  });

  it('refuses an unmountable path in the new files', () => {
    expect(() => planSync({}, { '../x': '' })).toThrow(UnmountablePathError);
  });
});
