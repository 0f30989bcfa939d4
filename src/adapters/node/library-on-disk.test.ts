/** The Library's copies for native esbuild: written where only this user can change them, never through a link or into a folder others can write. */
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { libraryOnDisk, nodeLibrary } from './library';

const library = nodeLibrary();
const CLIENT = '/node_modules/platform/client.ts';
/** The shared folder's path: `<it>/node_modules/platform/client.ts` (checked to be one before anything removes it). */
function sharedFolder(): string {
  const folder = dirname(dirname(dirname(libraryOnDisk(library).get(CLIENT)!)));
  if (!basename(folder).startsWith('platform-library-') || dirname(folder) !== realpathSync(tmpdir())) throw new Error(`Not the Library's folder: ${folder}`);
  return folder;
}
const made: string[] = [];
afterAll(() => {
  for (const path of made) rmSync(path, { recursive: true, force: true });
});

it('writes each script the Library holds, with its text, in a folder private to this user', () => {
  const onDisk = libraryOnDisk(library);
  expect([...onDisk.keys()].sort()).toEqual(expect.arrayContaining([CLIENT, '/node_modules/platform/server.ts', '/node_modules/preact/hooks/dist/hooks.mjs']));
  for (const [path, file] of onDisk) expect(readFileSync(file, 'utf8')).toBe(library.files.get(path));
  expect(lstatSync(sharedFolder()).mode & 0o077).toBe(0);
  // No source map beside Preact's files: esbuild would follow one the plugin's build never sees.
  expect(readdirSync(dirname(onDisk.get('/node_modules/preact/hooks/dist/hooks.mjs')!)).filter((name) => name.endsWith('.map'))).toEqual([]);
});

it('does not write through a link planted at the shared folder\'s name', () => {
  const shared = sharedFolder();
  rmSync(shared, { recursive: true, force: true });
  const elsewhere = mkdtempSync(join(tmpdir(), 'platform-elsewhere-'));
  made.push(elsewhere);
  symlinkSync(elsewhere, shared);
  try {
    const onDisk = libraryOnDisk(library);
    made.push(dirname(dirname(dirname(onDisk.get(CLIENT)!))));
    expect(readdirSync(elsewhere)).toEqual([]);
    expect(onDisk.get(CLIENT)!.startsWith(`${shared}/`)).toBe(false);
    expect(readFileSync(onDisk.get(CLIENT)!, 'utf8')).toBe(library.files.get(CLIENT));
  } finally {
    rmSync(shared, { force: true });
  }
});

it('does not use a shared folder others can write, and rewrites a copy that changed', () => {
  const shared = sharedFolder();
  rmSync(shared, { recursive: true, force: true });
  mkdirSync(shared);
  chmodSync(shared, 0o777);
  try {
    const file = libraryOnDisk(library).get(CLIENT)!;
    made.push(dirname(dirname(dirname(file))));
    expect(file.startsWith(`${shared}/`)).toBe(false);
  } finally {
    rmSync(shared, { recursive: true, force: true });
  }
  const file = libraryOnDisk(library).get(CLIENT)!;
  writeFileSync(file, 'export const evil = 1;\n');
  expect(libraryOnDisk(library).get(CLIENT)).toBe(file);
  expect(readFileSync(file, 'utf8')).toBe(library.files.get(CLIENT));
});
