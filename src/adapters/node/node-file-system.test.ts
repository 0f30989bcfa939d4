import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NodeFileSystem } from './node-file-system';

let base: string;
let fs: NodeFileSystem;

beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'platform-fs-'));
  mkdirSync(join(base, 'app/src'), { recursive: true });
  writeFileSync(join(base, 'app/src/a.ts'), 'a');
  writeFileSync(join(base, 'secret.txt'), 'secret');
  symlinkSync(join(base, 'secret.txt'), join(base, 'app/src/link.txt'));
  symlinkSync(join(base, 'app/src/a.ts'), join(base, 'app/inside.ts'));
  fs = new NodeFileSystem(join(base, 'app'));
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('NodeFileSystem', () => {
  it('reads, stats and lists inside its root', async () => {
    expect(await fs.readText('src/a.ts')).toBe('a');
    expect(await fs.stat('src')).toBe('directory');
    expect(await fs.stat('src/a.ts')).toBe('file');
    expect(await fs.readDir('src')).toEqual(['a.ts', 'link.txt']);
    expect(await fs.readText('inside.ts')).toBe('a');
  });

  it('refuses to leave its root by .. or through a link', async () => {
    expect(await fs.readText('../secret.txt')).toBeUndefined();
    expect(await fs.readText('src/link.txt')).toBeUndefined();
    expect(await fs.stat('src/link.txt')).toBeUndefined();
    expect(await fs.readText('/etc/hostname')).toBeUndefined();
  });

  it('creates nothing outside its root when a folder on the way is a link to elsewhere, nor writes through a file link', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'platform-fs-outside-'));
    const root = mkdtempSync(join(tmpdir(), 'platform-fs-root-'));
    try {
      symlinkSync(outside, join(root, '.platform'));
      writeFileSync(join(outside, 'target.txt'), 'untouched');
      symlinkSync(join(outside, 'target.txt'), join(root, 'file-link.txt'));
      const linked = new NodeFileSystem(root);
      await expect(linked.writeFile('.platform/types/app.d.ts', 'x')).rejects.toThrow('outside the project');
      await expect(linked.writeFile('.platform/deep/er/x', 'x')).rejects.toThrow('outside the project');
      await expect(linked.writeFile('file-link.txt', 'overwritten')).rejects.toThrow('outside the project');
      expect(readdirSync(outside)).toEqual(['target.txt']);
      expect(readFileSync(join(outside, 'target.txt'), 'utf8')).toBe('untouched');
      // Inside, folders are made as before.
      await linked.writeFile('made/here/x.txt', 'x');
      expect(readFileSync(join(root, 'made/here/x.txt'), 'utf8')).toBe('x');
      // And a root that does not exist yet is made (platform new).
      const fresh = new NodeFileSystem(join(root, 'new-project'));
      await fresh.writeFile('src/a.ts', 'a');
      expect(readFileSync(join(root, 'new-project/src/a.ts'), 'utf8')).toBe('a');
    } finally {
      rmSync(outside, { recursive: true, force: true });
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('answers undefined for what is not there', async () => {
    expect(await fs.readText('src/missing.ts')).toBeUndefined();
    expect(await fs.stat('nowhere')).toBeUndefined();
    expect(await fs.readDir('nowhere')).toEqual([]);
  });
});
