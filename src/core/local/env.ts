/** `ctx.env` of a local mode: `.platform/env.<mode>.local.json` (tooling.md, Authentication 6), as `platform env pull` writes it. */
import type { Result } from '../result.ts';
import { diagnostic, type Diagnostic } from '../diagnostics/index.ts';
import { ENV_NAME, ENV_LOCAL_FORMAT, isObject } from '../deploy/index.ts';
import type { FileSystem } from '../fs/index.ts';
import { envFilePath, type LocalMode } from './paths.ts';

/** Why a local env document is unusable, or undefined: `{ format: 'platform.env-local.v0', values: { NAME: 'string' } }`. */
export function envLocalProblem(value: unknown): string | undefined {
  if (!isObject(value)) return 'it is not a JSON object';
  if (value.format !== ENV_LOCAL_FORMAT) return `its "format" is not "${ENV_LOCAL_FORMAT}"`;
  if (!isObject(value.values)) return 'it has no "values" object';
  for (const [name, v] of Object.entries(value.values)) {
    if (!ENV_NAME.test(name)) return `${JSON.stringify(name)} is not an UPPER_SNAKE_CASE name`;
    if (typeof v !== 'string') return `the value of ${name} is not a string`;
  }
  return undefined;
}

export type LocalEnv = Result<{ values: Record<string, string> }, { diagnostic: Diagnostic }>;

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
