/**
 * Artifacts kept content-addressed: each blob under its SHA-256, each record under its id, and which
 * builder sent which blob (a builder may name only their own). What a deploy sends is verified with
 * the build's own verification (`verifyLatest`) before anything is kept: an id that is not the
 * record's hash, or a blob of the wrong size or hash, is refused.
 */
import type { Result } from '../core/result';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { artifactPath, blobPath, LATEST_FILE, LATEST_FORMAT, verifyLatest, type ArtifactRecord } from '../core/build';
import { decodeBase64 } from '../core/bytes';
import { ARTIFACT_ID } from '../core/deploy';
import { hasErrors } from '../core/diagnostics';
import { MemoryFileSystem } from '../core/fs';
import { validateManifestText } from '../core/manifest';
import { projectPathProblem } from '../core/share';
import { writeAtomic } from './files';
import type { BuilderRecords } from './builder-records';
import { serverBundleProblem } from './server-bundle';

/** The artifact's server bundle: the only code of an artifact the control plane runs. */
const SERVER_BUNDLE = 'server/index.js';

/** A refusal is `artifact_invalid` (the artifact is not what it claims) or `module_invalid` (its server bundle may not run). */
export type Received = Result<{ record: ArtifactRecord }, { code: 'artifact_invalid' | 'module_invalid'; message: string }>;

const invalid = (message: string): Received => ({ ok: false, code: 'artifact_invalid', message });

const SHA256 = /^[0-9a-f]{64}$/;

export class ArtifactStore {
  readonly #dir: string;
  readonly #owners: BuilderRecords['blobOwners'];
  /** Records and blobs read once stay in memory: they never change under their address. */
  readonly #kept = new Map<string, ArtifactRecord>();
  readonly #blobs = new Map<string, Uint8Array>();

  constructor(dir: string, owners: BuilderRecords['blobOwners']) {
    this.#dir = dir;
    this.#owners = owners;
  }

  /** Whether a builder sent a blob before: only then may they leave it out of a deploy. */
  #owns(builderId: string, hash: string): Promise<boolean> {
    return this.#owners.owns(builderId, hash);
  }

  #blobFile(hash: string): string {
    return join(this.#dir, 'blobs', hash);
  }

  #recordFile(id: string): string {
    return join(this.#dir, 'artifacts', `${id.slice('sha256:'.length)}.json`);
  }

  has(id: string): boolean {
    return this.#kept.has(id) || existsSync(this.#recordFile(id));
  }

  /**
   * Verifies and keeps an artifact for a builder. A blob that builder sent before need not be sent
   * again; another builder's blob is, to them, a blob that does not exist (the same refusal, and no
   * read of it), so naming a hash neither uses it nor tells that it is kept.
   */
  async receive(builderId: string, id: unknown, record: unknown, blobs: unknown): Promise<Received> {
    if (typeof id !== 'string' || !ARTIFACT_ID.test(id)) return invalid('The artifact id is not sha256: followed by 64 hex digits.');
    if (typeof record !== 'object' || record === null || Array.isArray(record)) return invalid('The artifact record is not an object.');
    if (typeof blobs !== 'object' || blobs === null || Array.isArray(blobs)) return invalid('The artifact blobs are not an object of base64 strings by SHA-256.');
    const files = (record as { files?: unknown }).files;
    if (typeof files !== 'object' || files === null || Array.isArray(files)) return invalid('The artifact record lists no files.');
    // File names are project paths: nothing absolute, climbing, with a backslash or a control character.
    for (const path of Object.keys(files)) {
      const problem = projectPathProblem(path);
      if (problem) return invalid(`The artifact names a file ${JSON.stringify(path.slice(0, 120))} that ${problem}.`);
    }
    // The verification of `platform build --verify`, over the artifact as it arrived.
    const fs = new MemoryFileSystem({
      [LATEST_FILE]: JSON.stringify({ format: LATEST_FORMAT, artifact: id, sources: {} }),
      [artifactPath(id)]: JSON.stringify(record),
    });
    const decoded = new Map<string, Uint8Array>();
    for (const entry of Object.values(files as Record<string, { sha256?: unknown }>)) {
      const hash = entry?.sha256;
      if (typeof hash !== 'string' || !SHA256.test(hash)) return invalid('The artifact record names a blob that is not a SHA-256.');
      const sent = (blobs as Record<string, unknown>)[hash];
      const bytes = typeof sent === 'string' ? decodeBase64(sent) : (await this.#owns(builderId, hash)) ? this.blob(hash) : undefined;
      if (typeof sent === 'string' && !bytes) return invalid(`The blob ${hash} is not base64.`);
      if (bytes) {
        decoded.set(hash, bytes);
        fs.write(blobPath(hash), bytes);
      }
    }
    const verification = await verifyLatest(fs);
    if (hasErrors(verification.diagnostics) || !verification.record) {
      return invalid(verification.diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.code}: ${d.message}`).join(' '));
    }
    const manifest = validateManifestText(JSON.stringify(verification.record.manifest));
    if (!manifest.manifest) return invalid(`The artifact's manifest is not valid: ${manifest.diagnostics.map((d) => d.message).join(' ')}`);
    // What runs is checked too, not only its hashes.
    const server = verification.record.files[SERVER_BUNDLE];
    if (server) {
      const bytes = decoded.get(server.sha256) ?? this.blob(server.sha256);
      const problem = bytes ? await serverBundleProblem(new TextDecoder().decode(bytes)) : 'it is missing';
      if (problem) return { ok: false, code: 'module_invalid', message: `The server bundle ${SERVER_BUNDLE} may not run: ${problem}.` };
    }
    for (const [hash, bytes] of decoded) {
      if (!existsSync(this.#blobFile(hash))) writeAtomic(this.#blobFile(hash), bytes, 0o644);
      this.#blobs.set(hash, bytes);
    }
    await this.#owners.add(builderId, decoded.keys());
    writeAtomic(this.#recordFile(id), JSON.stringify(verification.record), 0o644);
    this.#kept.set(id, verification.record);
    return { ok: true, record: verification.record };
  }

  /** A kept record, or undefined. */
  record(id: string): ArtifactRecord | undefined {
    let record = this.#kept.get(id);
    if (!record && ARTIFACT_ID.test(id) && existsSync(this.#recordFile(id))) {
      record = JSON.parse(readFileSync(this.#recordFile(id), 'utf8')) as ArtifactRecord;
      this.#kept.set(id, record);
    }
    return record;
  }

  /** A kept blob by its SHA-256, or undefined. */
  blob(hash: string): Uint8Array | undefined {
    let bytes = this.#blobs.get(hash);
    if (!bytes && SHA256.test(hash) && existsSync(this.#blobFile(hash))) {
      bytes = new Uint8Array(readFileSync(this.#blobFile(hash)));
      this.#blobs.set(hash, bytes);
    }
    return bytes;
  }

  /** The bytes of a file of an artifact, by its path in the artifact (`client/index.html`). */
  file(record: ArtifactRecord, path: string): Uint8Array | undefined {
    const entry = record.files[path];
    return entry ? this.blob(entry.sha256) : undefined;
  }
}
