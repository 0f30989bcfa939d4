/**
 * A framework project (a Vite app with its own package.json) made deployable by `platform init`: the
 * framework builds the client with its own package script, and the artifact takes that output as the
 * app's client. `init` records the project in `.platform/framework.json`; while the record is there,
 * every compile (build, deploy, dev) serves the output directory's `index.html` at `/` and its other
 * files at their own paths (as public files), instead of the platform's client bundle.
 */
import { diagnostic, type Diagnostic } from '../diagnostics/index.ts';
import { type FileSystem, normalizeProjectPath } from '../fs/index.ts';
import { listFiles } from '../project/index.ts';
import { ASSET_LIMIT, RESERVED_PREFIXES } from '../bundle/index.ts';

export const FRAMEWORK_RECORD = '.platform/framework.json';
/** The framework kinds `init` and `new --framework` support, by the package that marks them. */
export const FRAMEWORKS = { vite: { package: 'vite', outDir: 'dist', buildScript: 'build' } } as const;
export type FrameworkKind = keyof typeof FRAMEWORKS;
/** The most the framework's output may weigh in all. */
export const FRAMEWORK_OUTPUT_LIMIT = 100 * 1024 * 1024;

export interface FrameworkRecord {
  format: 'platform.framework.v0';
  kind: FrameworkKind;
  /** The project-relative directory the framework's build writes. */
  outDir: string;
  /** Files `init` wrote, with their SHA-256: the platform's to rewrite, every other file the project's. */
  owned: Record<string, string>;
}

export async function readFrameworkRecord(fs: FileSystem): Promise<FrameworkRecord | undefined> {
  const text = await fs.readText(FRAMEWORK_RECORD);
  if (text === undefined) return undefined;
  try {
    const value = JSON.parse(text) as FrameworkRecord;
    return value && value.format === 'platform.framework.v0' && typeof value.outDir === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The framework's build output as artifact files (client/index.html and public/…), or DG3207 saying why it is not deployable. */
export async function frameworkClient(fs: FileSystem, record: Pick<FrameworkRecord, 'outDir'>): Promise<{ files: Map<string, Uint8Array>; diagnostics: Diagnostic[] }> {
  const files = new Map<string, Uint8Array>();
  const fail = (message: string, hint: string) => ({ files, diagnostics: [diagnostic('DG3207', message, { hint })] });
  const outDir = normalizeProjectPath(record.outDir);
  if (!outDir) return fail(`The framework's output directory ${record.outDir} is outside the project.`, 'Build into a folder of the project (Vite: build.outDir).');
  if ((await fs.stat(`${outDir}/index.html`)) !== 'file') {
    return fail(`The framework build produced nothing deployable: ${outDir}/index.html is missing.`, `Make the build script write the app into ${outDir}/ with an index.html (Vite: vite build).`);
  }
  let total = 0;
  for (const path of await listFiles(fs, outDir)) {
    const served = path.slice(outDir.length + 1);
    const bytes = (await fs.readBytes(path)) ?? new Uint8Array();
    total += bytes.byteLength;
    const reserved = RESERVED_PREFIXES.find((prefix) => served.startsWith(prefix));
    if (reserved) return fail(`The framework's output ${path} claims the reserved path /${reserved}.`, 'Paths under /_platform/, /__platform/ and /_xa/ belong to the platform: rename the file or folder.');
    if (bytes.byteLength > ASSET_LIMIT) return fail(`The framework's output ${path} is ${bytes.byteLength} bytes, over the 25 MiB asset limit.`, 'Store large files with ctx.storage instead of shipping them as assets.');
    files.set(served === 'index.html' ? 'client/index.html' : `public/${served}`, bytes);
  }
  if (total > FRAMEWORK_OUTPUT_LIMIT) return fail(`The framework's output is ${total} bytes, over the ${FRAMEWORK_OUTPUT_LIMIT} byte limit.`, 'Trim the build output.');
  return { files, diagnostics: [] };
}

/** Replaces the platform's client bundle with the framework's output when the project has a framework record. */
export async function withFrameworkClient(fs: FileSystem, files: Map<string, Uint8Array>): Promise<Diagnostic[]> {
  const record = await readFrameworkRecord(fs);
  if (!record) return [];
  const client = await frameworkClient(fs, record);
  if (client.diagnostics.length) return client.diagnostics;
  for (const path of [...files.keys()]) if (path.startsWith('client/')) files.delete(path);
  for (const [path, bytes] of client.files) files.set(path, bytes);
  return [];
}
