import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isWriteRefusal } from '../../core/fs';
import { ConfinedWriter, replaceFile } from './confined-writer';
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

  it('lists a folder\'s entries with the kinds stat gives: a link inside is followed, a link out is nothing', async () => {
    expect(await fs.readDirEntries('src')).toEqual([{ name: 'a.ts', kind: 'file' }, { name: 'link.txt', kind: undefined }]);
    expect(await fs.readDirEntries('')).toEqual([{ name: 'inside.ts', kind: 'file' }, { name: 'src', kind: 'directory' }]);
    expect(await fs.readDirEntries('..')).toEqual([]);
    expect(await fs.readDirEntries('src/a.ts')).toEqual([]);
  });

  it('refuses to leave its root by .. or through a link', async () => {
    expect(await fs.readText('../secret.txt')).toBeUndefined();
    expect(await fs.readText('src/link.txt')).toBeUndefined();
    expect(await fs.stat('src/link.txt')).toBeUndefined();
    expect(await fs.readText('/etc/hostname')).toBeUndefined();
  });

  it('keeps its root\'s real path only while it can refuse no less: a root swapped for a link to elsewhere after a read is refused', async () => {
    const root = join(base, 'swapped');
    mkdirSync(root);
    writeFileSync(join(root, 'f.txt'), 'inside');
    mkdirSync(join(base, 'elsewhere'));
    writeFileSync(join(base, 'elsewhere/f.txt'), 'elsewhere');
    const kept = new NodeFileSystem(root);
    expect(await kept.readText('f.txt')).toBe('inside');
    // The attacker's move: the project folder replaced by a link to another folder.
    rmSync(root, { recursive: true });
    symlinkSync(join(base, 'elsewhere'), root);
    expect(await kept.readText('f.txt')).toBeUndefined();
    expect(await kept.stat('f.txt')).toBeUndefined();
    // A root that is a link is followed, as before, and found again on every read.
    const linked = new NodeFileSystem(root);
    expect(await linked.readText('f.txt')).toBe('elsewhere');
    mkdirSync(join(base, 'third'));
    writeFileSync(join(base, 'third/f.txt'), 'third');
    rmSync(root);
    symlinkSync(join(base, 'third'), root);
    expect(await linked.readText('f.txt')).toBe('third');
  });

  it('gives a text read before again only while its file is unchanged, and never from outside once a link takes its place', async () => {
    const root = join(base, 'kept');
    mkdirSync(join(root, 'src'), { recursive: true });
    writeFileSync(join(root, 'src/a.ts'), 'one');
    writeFileSync(join(root, 'src/b.ts'), 'bee');
    writeFileSync(join(root, 'src/c.ts'), 'sea');
    mkdirSync(join(base, 'outside-kept/src'), { recursive: true });
    writeFileSync(join(base, 'outside-kept/secret.ts'), 'secret');
    writeFileSync(join(base, 'outside-kept/src/c.ts'), 'secret');
    // Texts are kept once their files have been still for a second.
    await new Promise((done) => setTimeout(done, 1100));
    const kept = new NodeFileSystem(root);
    expect([await kept.readText('src/a.ts'), await kept.readText('src/b.ts'), await kept.readText('src/c.ts')]).toEqual(['one', 'bee', 'sea']);
    // The same size, and the modification time set back to what it was: the change time still tells.
    const before = statSync(join(root, 'src/a.ts'));
    writeFileSync(join(root, 'src/a.ts'), 'two');
    utimesSync(join(root, 'src/a.ts'), before.atime, before.mtime);
    expect(await kept.readText('src/a.ts')).toBe('two');
    // The attacker's moves: a kept file replaced by a link out, and a kept file's folder by a link out.
    rmSync(join(root, 'src/b.ts'));
    symlinkSync(join(base, 'outside-kept/secret.ts'), join(root, 'src/b.ts'));
    expect(await kept.readText('src/b.ts')).toBeUndefined();
    renameSync(join(root, 'src'), join(root, 'moved'));
    symlinkSync(join(base, 'outside-kept/src'), join(root, 'src'));
    expect(await kept.readText('src/c.ts')).toBeUndefined();
  });

  it('creates nothing outside its root when a folder on the way is a link to elsewhere, nor writes through a file link', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'platform-fs-outside-'));
    const root = mkdtempSync(join(tmpdir(), 'platform-fs-root-'));
    try {
      symlinkSync(outside, join(root, '.platform'));
      writeFileSync(join(outside, 'target.txt'), 'untouched');
      symlinkSync(join(outside, 'target.txt'), join(root, 'file-link.txt'));
      const linked = new NodeFileSystem(root);
      await expect(linked.writeFile('.platform/types/app.d.ts', 'x')).rejects.toThrow('.platform is a symbolic link');
      await expect(linked.writeFile('.platform/deep/er/x', 'x')).rejects.toThrow('.platform is a symbolic link');
      await expect(linked.writeFile('file-link.txt', 'overwritten')).rejects.toThrow('file-link.txt is a symbolic link');
      await expect(linked.writeFile('../escape.txt', 'x')).rejects.toThrow('outside the project');
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

  it('refuses every write through a link, at every depth, even one pointing back inside, with a WriteRefusal', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'platform-fs-home-'));
    const root = mkdtempSync(join(tmpdir(), 'platform-fs-root-'));
    try {
      mkdirSync(join(root, 'inside'));
      const refusal = async (write: () => Promise<unknown>, link: string) => {
        const error = await write().then(() => undefined, (e: unknown) => e);
        expect(isWriteRefusal(error)).toBe(true);
        expect(error).toMatchObject({ reason: 'link', link });
      };
      const fs = new NodeFileSystem(root);
      const plant = (at: string, target: string) => {
        mkdirSync(join(root, at, '..'), { recursive: true });
        symlinkSync(target, join(root, at));
      };
      // Depth 1: .platform itself; depth 2; depth 4; the file (dangling, the way a cloned project ships it).
      plant('.platform', outside);
      await refusal(() => fs.writeFile('.platform/engines/dev/modules/a.mjs', 'x'), '.platform');
      rmSync(join(root, '.platform'));
      plant('.platform/engines', outside);
      await refusal(() => fs.writeFile('.platform/engines/dev/modules/a.mjs', 'x'), '.platform/engines');
      rmSync(join(root, '.platform/engines'));
      plant('.platform/engines/dev/modules', outside);
      await refusal(() => fs.writeFile('.platform/engines/dev/modules/a.mjs', 'x'), '.platform/engines/dev/modules');
      rmSync(join(root, '.platform/engines/dev/modules'));
      plant('.platform/engines/dev/modules/a.mjs', join(outside, '.bash_aliases'));
      await refusal(() => fs.writeFile('.platform/engines/dev/modules/a.mjs', 'x'), '.platform/engines/dev/modules/a.mjs');
      // A link that stays inside the project is refused too: writes never follow links.
      plant('src', join(root, 'inside'));
      await refusal(() => fs.writeFile('src/a.ts', 'x'), 'src');
      expect(readdirSync(outside)).toEqual([]);
      expect(readdirSync(join(root, 'inside'))).toEqual([]);
    } finally {
      rmSync(outside, { recursive: true, force: true });
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('ConfinedWriter: a file in the way of a folder is a file-system error, not a refusal; remove and move never follow links', () => {
    const outside = mkdtempSync(join(tmpdir(), 'platform-fs-home-'));
    const root = mkdtempSync(join(tmpdir(), 'platform-fs-root-'));
    try {
      const writer = new ConfinedWriter(root);
      writeFileSync(join(root, 'blocked'), 'a file');
      let error: unknown;
      try {
        writer.writeFile('blocked/x.txt', 'x');
      } catch (e) {
        error = e;
      }
      expect(isWriteRefusal(error)).toBe(false);
      expect((error as NodeJS.ErrnoException).code).toBe('ENOTDIR');
      // remove: a link is removed itself, its target kept; a folder link on the way is refused.
      writeFileSync(join(outside, 'keep.txt'), 'keep');
      symlinkSync(join(outside, 'keep.txt'), join(root, 'record.json'));
      writer.remove('record.json');
      expect(existsSync(join(root, 'record.json'))).toBe(false);
      expect(readFileSync(join(outside, 'keep.txt'), 'utf8')).toBe('keep');
      symlinkSync(outside, join(root, 'servers'));
      expect(() => writer.remove('servers/keep.txt')).toThrow('servers is a symbolic link');
      expect(readFileSync(join(outside, 'keep.txt'), 'utf8')).toBe('keep');
      // move: a linked source or a linked folder on either side is refused; a plain one is one rename.
      mkdirSync(join(root, 'state/dev'), { recursive: true });
      writeFileSync(join(root, 'state/dev/db'), 'rows');
      symlinkSync(outside, join(root, 'recovery'));
      expect(() => writer.move('state/dev', 'recovery/dev-1')).toThrow('recovery is a symbolic link');
      expect(readdirSync(outside)).toEqual(['keep.txt']);
      rmSync(join(root, 'recovery'));
      expect(writer.move('state/dev', 'recovery/dev-1')).toBe(true);
      expect(readFileSync(join(root, 'recovery/dev-1/db'), 'utf8')).toBe('rows');
      expect(writer.move('state/dev', 'recovery/dev-2')).toBe(false);
      symlinkSync(outside, join(root, 'state/preview'));
      expect(() => writer.move('state/preview', 'recovery/preview-1')).toThrow('state/preview is a symbolic link');
      expect(readdirSync(outside)).toEqual(['keep.txt']);
      // A folder another process writes in by itself: a link anywhere inside it is refused.
      mkdirSync(join(root, 'state/dev/do'), { recursive: true });
      writeFileSync(join(root, 'state/dev/do/a.sqlite'), 'rows');
      expect(writer.folderWithoutLinks('state/dev')).toBe(join(root, 'state/dev'));
      symlinkSync(join(outside, 'b.sqlite'), join(root, 'state/dev/do/b.sqlite'));
      expect(() => writer.folderWithoutLinks('state/dev')).toThrow('state/dev/do/b.sqlite is a symbolic link');
    } finally {
      rmSync(outside, { recursive: true, force: true });
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('a link that appears at the name after the check is replaced, not written through; a link at the temporary name is refused (O_EXCL|O_NOFOLLOW)', () => {
    const outside = mkdtempSync(join(tmpdir(), 'platform-fs-home-'));
    const root = mkdtempSync(join(tmpdir(), 'platform-fs-root-'));
    try {
      // The folder was checked; then a link is made at the name (the race): the write's last step runs.
      symlinkSync(join(outside, '.bash_aliases'), join(root, 'config.capnp'));
      replaceFile(root, 'config.capnp', 'config', { mode: 0o600 });
      expect(readdirSync(outside)).toEqual([]);
      expect(lstatSync(join(root, 'config.capnp')).isFile()).toBe(true);
      expect(readFileSync(join(root, 'config.capnp'), 'utf8')).toBe('config');
      expect(statSync(join(root, 'config.capnp')).mode & 0o777).toBe(0o600);
      // A link planted at the temporary name is never opened through (dangling or to an existing file).
      symlinkSync(join(outside, 'planted'), join(root, '.guessed.tmp'));
      expect(() => replaceFile(root, 'x.txt', 'x', { temporary: '.guessed.tmp' })).toThrow(/EEXIST|ELOOP/);
      writeFileSync(join(outside, 'existing'), 'untouched');
      symlinkSync(join(outside, 'existing'), join(root, '.guessed2.tmp'));
      expect(() => replaceFile(root, 'x.txt', 'x', { temporary: '.guessed2.tmp' })).toThrow(/EEXIST|ELOOP/);
      expect(readdirSync(outside).sort()).toEqual(['existing']);
      expect(readFileSync(join(outside, 'existing'), 'utf8')).toBe('untouched');
      // A file replaced keeps its permission bits.
      writeFileSync(join(root, 'run.sh'), 'old', { mode: 0o755 });
      new ConfinedWriter(root).writeFile('run.sh', 'new');
      expect(statSync(join(root, 'run.sh')).mode & 0o777).toBe(0o755);
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
