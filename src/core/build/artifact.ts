/**
 * Content-addressed artifacts: a record of the build's outputs (by size and SHA-256), the manifest, the
 * schema identity and the contract, whose id is `sha256:` + the hash of its canonical encoding. No
 * timestamps and no absolute paths, so the same source gives the same id on any machine.
 */
import { diagnostic, type Diagnostic } from '../diagnostics/index.ts';
import type { FileSystem, WritableFileSystem } from '../fs/index.ts';
import { canonicalJson, sha256Hex } from '../hash/index.ts';
import type { Manifest } from '../manifest/index.ts';
import { listFiles } from '../project/index.ts';
import type { OperationTable } from '../analyze/index.ts';

export const ARTIFACT_FORMAT = 'platform.artifact.v0';
export const LATEST_FORMAT = 'platform.latest.v0';
export const LATEST_FILE = '.platform/latest.json';
export const ARTIFACT_ID = /^sha256:[0-9a-f]{64}$/;

export interface ArtifactRecord {
  format: typeof ARTIFACT_FORMAT;
  name: string;
  manifest: Manifest;
  /** SHA-256 of the canonical database declaration: what a state export must match. */
  schemaId: string;
  contract: OperationTable;
  toolchain: { platform: string; preact: string; react?: string; typescript: string; esbuild: string };
  files: Record<string, { size: number; sha256: string }>;
}

export interface LatestPointer {
  format: typeof LATEST_FORMAT;
  artifact: string;
  /** Project-relative source path → SHA-256, to tell a stale build (DG1705). */
  sources: Record<string, string>;
}

export function schemaIdOf(manifest: Manifest): string {
  return sha256Hex(canonicalJson({ database: manifest.database ?? null }));
}

export function artifactId(record: ArtifactRecord): string {
  return `sha256:${sha256Hex(canonicalJson(record))}`;
}

export const artifactPath = (id: string) => `.platform/artifacts/${id.slice('sha256:'.length)}.json`;
export const blobPath = (hash: string) => `.platform/blobs/${hash}`;

export function makeArtifact(input: Omit<ArtifactRecord, 'format' | 'files' | 'schemaId'>, files: ReadonlyMap<string, Uint8Array>): { id: string; record: ArtifactRecord } {
  const entries: ArtifactRecord['files'] = {};
  for (const path of [...files.keys()].sort()) {
    const bytes = files.get(path)!;
    entries[path] = { size: bytes.byteLength, sha256: sha256Hex(bytes) };
  }
  const record: ArtifactRecord = { format: ARTIFACT_FORMAT, ...input, schemaId: schemaIdOf(input.manifest), files: entries };
  return { id: artifactId(record), record };
}

/** Hashes of every project source (not node_modules, not dot-folders such as .platform). */
export async function hashSources(fs: FileSystem): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const path of await listFiles(fs, '')) {
    const bytes = await fs.readBytes(path);
    if (bytes) out[path] = sha256Hex(bytes);
  }
  return out;
}

export async function writeArtifact(fs: WritableFileSystem, id: string, record: ArtifactRecord, files: ReadonlyMap<string, Uint8Array>, sources: Record<string, string>): Promise<void> {
  for (const [path, bytes] of files) await fs.writeFile(blobPath(record.files[path]!.sha256), bytes);
  await fs.writeFile(artifactPath(id), `${JSON.stringify(record, null, 2)}\n`);
  const latest: LatestPointer = { format: LATEST_FORMAT, artifact: id, sources };
  await fs.writeFile(LATEST_FILE, `${JSON.stringify(latest, null, 2)}\n`);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

async function readJson(fs: FileSystem, path: string): Promise<{ value?: unknown; missing?: boolean; error?: string }> {
  const text = await fs.readText(path);
  if (text === undefined) return { missing: true };
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

export interface Verification {
  id?: string;
  record?: ArtifactRecord;
  diagnostics: Diagnostic[];
}

/** Verifies the artifact the latest pointer names: its identity, every blob, the server source map, and staleness. */
export async function verifyLatest(fs: FileSystem): Promise<Verification> {
  const pointer = await readJson(fs, LATEST_FILE);
  if (pointer.missing) return { diagnostics: [diagnostic('DG1700', 'There is no build artifact to verify.', { hint: 'Run platform build first.' })] };
  const latest = pointer.value;
  if (pointer.error || !isObject(latest) || latest.format !== LATEST_FORMAT || typeof latest.artifact !== 'string' || !ARTIFACT_ID.test(latest.artifact) || !isObject(latest.sources)) {
    return { diagnostics: [diagnostic('DG1701', `${LATEST_FILE} is malformed${pointer.error ? `: ${pointer.error}` : ''}.`, { file: LATEST_FILE, hint: 'Run platform build to write it again.' })] };
  }
  const id = latest.artifact;
  const stored = await readJson(fs, artifactPath(id));
  if (stored.missing) return { diagnostics: [diagnostic('DG1700', `The latest pointer names ${id}, which is not stored.`, { hint: 'Run platform build again.' })] };
  const record = stored.value;
  if (stored.error || !isObject(record) || record.format !== ARTIFACT_FORMAT || !isObject(record.files) || !isObject(record.manifest)) {
    return { diagnostics: [diagnostic('DG1701', `The artifact record ${artifactPath(id)} is malformed${stored.error ? `: ${stored.error}` : ''}.`, { file: artifactPath(id), hint: 'Run platform build again.' })] };
  }
  const artifact = record as unknown as ArtifactRecord;
  const diagnostics: Diagnostic[] = [];
  if (artifactId(artifact) !== id) {
    diagnostics.push(diagnostic('DG1702', `The artifact record does not hash to its id ${id}: it was changed after the build.`, { file: artifactPath(id), hint: 'Run platform build again.' }));
  } else if (artifact.schemaId !== schemaIdOf(artifact.manifest)) {
    diagnostics.push(diagnostic('DG1702', 'The artifact\'s schema identity does not match its manifest\'s database declaration.', { file: artifactPath(id), hint: 'Run platform build again.' }));
  }
  for (const [path, entry] of Object.entries(artifact.files)) {
    const bytes = await fs.readBytes(blobPath(entry.sha256));
    if (!bytes) diagnostics.push(diagnostic('DG1703', `The artifact blob for ${path} is missing.`, { file: blobPath(entry.sha256), hint: 'Run platform build again.' }));
    else if (bytes.byteLength !== entry.size) diagnostics.push(diagnostic('DG1703', `The artifact blob for ${path} is ${bytes.byteLength} bytes, not ${entry.size}.`, { file: blobPath(entry.sha256), hint: 'Run platform build again.' }));
    else if (sha256Hex(bytes) !== entry.sha256) diagnostics.push(diagnostic('DG1703', `The artifact blob for ${path} does not match its SHA-256.`, { file: blobPath(entry.sha256), hint: 'Run platform build again.' }));
  }
  const map = artifact.files['server/index.js.map'];
  const mapBytes = map ? await fs.readBytes(blobPath(map.sha256)) : undefined;
  if (!map) diagnostics.push(diagnostic('DG1701', 'The artifact has no server source map.', { hint: 'Run platform build again.' }));
  else if (mapBytes) {
    try {
      const parsed = JSON.parse(new TextDecoder().decode(mapBytes)) as { version?: unknown; mappings?: unknown };
      if (parsed.version !== 3 || typeof parsed.mappings !== 'string') throw new Error('not a version 3 source map');
    } catch (error) {
      diagnostics.push(diagnostic('DG1701', `The server source map is malformed: ${error instanceof Error ? error.message : String(error)}.`, { hint: 'Run platform build again.' }));
    }
  }
  const now = await hashSources(fs);
  const recorded = latest.sources as Record<string, string>;
  const changed = [...new Set([...Object.keys(now), ...Object.keys(recorded)])].filter((path) => now[path] !== recorded[path]).sort();
  if (changed.length) {
    const shown = changed.slice(0, 10).join(', ') + (changed.length > 10 ? `, and ${changed.length - 10} more` : '');
    diagnostics.push(diagnostic('DG1705', `The latest build is stale: ${shown} changed since it was built.`, { hint: 'Run platform build again.', detail: { changed } }));
  }
  return { id, record: artifact, diagnostics };
}
