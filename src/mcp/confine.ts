/** PLATFORM_MCP_ROOT confinement: a directory argument resolves inside the root, through `..` or symlinks alike, or is refused. */
import type { Result } from '../core/result';
import { existsSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';

export type Confined = Result<{ path: string }, { message: string }>;

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/**
 * The real path of `given` (relative to the root, or absolute) when it stays inside the root. The deepest
 * part that exists is resolved through its symlinks, so a link pointing out of the root is refused even
 * when the rest of the path does not exist yet (`platform_new`).
 */
export function confine(root: string, given: string | undefined): Confined {
  const realRoot = realpathSync(root);
  const wanted = resolve(realRoot, given ?? '.');
  const refuse = (): Confined => ({ ok: false, message: `${given ?? '.'} is outside the tool server's root ${realRoot} (PLATFORM_MCP_ROOT).` });
  if (!inside(realRoot, wanted)) return refuse();
  let existing = wanted;
  while (!existsSync(existing) && dirname(existing) !== existing) existing = dirname(existing);
  const real = realpathSync(existing);
  if (!inside(realRoot, real)) return refuse();
  return { ok: true, path: join(real, relative(existing, wanted)) };
}
