import { describe, expect, it } from 'vitest';
import { isAtOrInside, isInside, movedPath, normalizeProjectPath } from './file-system';
import { MemoryFileSystem } from './memory-file-system';

describe('normalizeProjectPath', () => {
  it.each([
    ['src/a.ts', 'src/a.ts'],
    ['./src//a.ts', 'src/a.ts'],
    ['src/x/../a.ts', 'src/a.ts'],
    ['src/', 'src'],
    ['.', ''],
    ['', ''],
  ])('%j → %j', (input, expected) => expect(normalizeProjectPath(input)).toBe(expected));

  it.each(['/etc/passwd', '\\\\server\\share', 'C:/x', 'c:x', '..', '../a', 'src/../../a'])('refuses %j', (input) => {
    expect(normalizeProjectPath(input)).toBeUndefined();
  });
});

describe('paths inside a folder, and where they go when it moves', () => {
  it('tells inside from beside, and moves a folder’s paths or a file alone', () => {
    expect(['src/client', 'src/client/x', 'src/clients', 'src'].map((p) => [isInside(p, 'src/client'), isAtOrInside(p, 'src/client')])).toEqual([[false, true], [true, true], [false, false], [false, false]]);
    expect(['src/client', 'src/client/x', 'src/clients', 'src'].map((p) => movedPath(p, 'src/client', 'src/ui'))).toEqual(['src/ui', 'src/ui/x', 'src/clients', 'src']);
    expect(['a.ts', 'a.tsx', 'b/a.ts'].map((p) => movedPath(p, 'a.ts', 'c/a.ts'))).toEqual(['c/a.ts', 'a.tsx', 'b/a.ts']);
  });
});

describe('MemoryFileSystem', () => {
  const fs = new MemoryFileSystem({ 'src/a.ts': 'a', 'src/b/c.ts': 'c', 'README.md': 'r' });

  it('reads files by normalized path and nothing outside', async () => {
    expect(await fs.readText('./src/a.ts')).toBe('a');
    expect(await fs.readText('src/missing.ts')).toBeUndefined();
    expect(await fs.readText('../src/a.ts')).toBeUndefined();
  });

  it('tells files from directories', async () => {
    expect(await fs.stat('src')).toBe('directory');
    expect(await fs.stat('src/b/c.ts')).toBe('file');
    expect(await fs.stat('')).toBe('directory');
    expect(await fs.stat('sr')).toBeUndefined();
  });

  it('lists a directory once per name, sorted', async () => {
    expect(await fs.readDir('')).toEqual(['README.md', 'src']);
    expect(await fs.readDir('src')).toEqual(['a.ts', 'b']);
    expect(await fs.readDir('nowhere')).toEqual([]);
  });

  it('refuses to write outside the project', () => {
    expect(() => fs.write('../x', '')).toThrow('Not a project-relative file path');
  });
});
