/**
 * Project identity: the checked-in `platform.project.json` names the app's `appId`; a cache under
 * `.platform/` must agree with it (the checked-in file wins, DG5121).
 */
import { diagnostic, type Diagnostic } from '../diagnostics/index.ts';
import type { FileSystem, WritableFileSystem } from '../fs/index.ts';
import { APP_ID } from './ids.ts';
import { isObject, PROJECT_CACHE_FORMAT, PROJECT_FORMAT } from './protocol.ts';

export const PROJECT_FILE = 'platform.project.json';
export const PROJECT_CACHE_FILE = '.platform/project.json';

export interface ProjectIdentity {
  /** The app this project deploys to; undefined when the project is not linked yet. */
  appId?: string;
  /** True when the cache under `.platform/` is missing or stale and should be written again. */
  cacheStale: boolean;
  diagnostics: Diagnostic[];
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The problem with a project identity document, or undefined when it is usable. */
export function projectFileProblem(value: unknown, format: string): string | undefined {
  if (value === undefined) return 'it is not JSON';
  if (!isObject(value)) return 'it is not a JSON object';
  if (value.format !== format) return `its "format" is ${JSON.stringify(value.format ?? null)}, not "${format}"`;
  if (typeof value.appId !== 'string' || !APP_ID.test(value.appId)) return 'it has no valid "appId" (app_ followed by 26 lowercase base32 characters)';
  return undefined;
}

/** Reads the project's identity: DG5120 for an unusable checked-in file, DG5121 when the cache names another app. */
export async function readIdentity(fs: FileSystem): Promise<ProjectIdentity> {
  const fileText = await fs.readText(PROJECT_FILE);
  const cacheText = await fs.readText(PROJECT_CACHE_FILE);
  const cache = cacheText === undefined ? undefined : parse(cacheText);
  // An unusable cache is only a cache: it is written again.
  const cachedId = cache !== undefined && projectFileProblem(cache, PROJECT_CACHE_FORMAT) === undefined ? ((cache as { appId: string }).appId) : undefined;
  if (fileText === undefined) return { appId: cachedId, cacheStale: false, diagnostics: [] };
  const file = parse(fileText);
  const problem = projectFileProblem(file, PROJECT_FORMAT);
  if (problem) {
    return {
      cacheStale: false,
      diagnostics: [diagnostic('DG5120', `${PROJECT_FILE} is unusable: ${problem}.`, { file: PROJECT_FILE, hint: `Write { "format": "${PROJECT_FORMAT}", "appId": "app_…" }, or run platform link to write it again.` })],
    };
  }
  const appId = (file as { appId: string }).appId;
  if (cachedId !== undefined && cachedId !== appId) {
    return {
      appId,
      cacheStale: true,
      diagnostics: [
        diagnostic('DG5121', `${PROJECT_FILE} names ${appId} but the cache ${PROJECT_CACHE_FILE} names ${cachedId}.`, {
          file: PROJECT_FILE,
          hint: `The checked-in file wins: run platform link --app ${appId} to make the cache agree.`,
        }),
      ],
    };
  }
  return { appId, cacheStale: cachedId === undefined, diagnostics: [] };
}

/** Writes the checked-in identity file and its cache. */
export async function writeIdentity(fs: WritableFileSystem, appId: string, controlUrl: string): Promise<void> {
  await fs.writeFile(PROJECT_FILE, `${JSON.stringify({ format: PROJECT_FORMAT, appId }, null, 2)}\n`);
  await fs.writeFile(PROJECT_CACHE_FILE, `${JSON.stringify({ format: PROJECT_CACHE_FORMAT, appId, controlUrl }, null, 2)}\n`);
}
