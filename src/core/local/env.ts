/** `ctx.env` of a local mode: `.platform/env.<mode>.local.json` (tooling.md, Authentication 6), as `platform env pull` writes it. */
import { diagnostic, type Diagnostic } from '../diagnostics';
import { envLocalProblem } from '../commands/env';
import type { FileSystem } from '../fs';
import { envFilePath, type LocalMode } from './paths';

export type LocalEnv = { ok: true; values: Record<string, string> } | { ok: false; diagnostic: Diagnostic };

/** The mode's values; none when there is no file; DG5134 when the file is not a usable document. */
export function parseLocalEnv(mode: LocalMode, text: string | undefined): LocalEnv {
  if (text === undefined) return { ok: true, values: {} };
  const file = envFilePath(mode);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  const problem = value === undefined ? 'it is not JSON' : envLocalProblem(value);
  if (problem) return { ok: false, diagnostic: diagnostic('DG5134', `${file} is unusable: ${problem}.`, { file, hint: 'Make it a platform.env-local.v0 document ({ "format": "platform.env-local.v0", "values": { "NAME": "value" } }), or rewrite it with platform env pull.' }) };
  return { ok: true, values: { ...(value as { values: Record<string, string> }).values } };
}

export async function readLocalEnv(fs: FileSystem, mode: LocalMode): Promise<LocalEnv> {
  return parseLocalEnv(mode, await fs.readText(envFilePath(mode)));
}
