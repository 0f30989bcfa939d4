/**
 * package-lock.json's entry for the project itself says what package.json says, so `npm install` on a
 * fresh clone has nothing to rewrite in it (issue 33: it rewrote the `bin` path, bin/platform.mjs to
 * bin/platform, and left the tree changed).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const read = (name: string) => JSON.parse(readFileSync(join(ROOT, name), 'utf8')) as Record<string, unknown>;

it("package-lock.json's root entry is the one npm install would write from package.json", () => {
  const pkg = read('package.json');
  const root = (read('package-lock.json').packages as Record<string, Record<string, unknown>>)['']!;
  // The fields npm copies from package.json into the lock's root entry.
  for (const field of ['name', 'version', 'license', 'bin', 'engines', 'dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies']) {
    expect(root[field], field).toEqual(pkg[field]);
  }
  // The command it names is there.
  for (const path of Object.values(pkg.bin as Record<string, string>)) expect(existsSync(join(ROOT, path)), path).toBe(true);
});
