/**
 * The builder credentials `platform auth login` keeps, per control plane origin, in
 * `<config dir>/credentials.json` (mode 0600). The config dir is PLATFORM_CONFIG_DIR, else
 * `$XDG_CONFIG_HOME/platform`, else `~/.config/platform` (`%APPDATA%\platform` on Windows).
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import type { CredentialRead, CredentialStore, StoredCredential } from '../../core/deploy';

export const CREDENTIALS_FORMAT = 'platform.credentials.v0';

export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.PLATFORM_CONFIG_DIR) return env.PLATFORM_CONFIG_DIR;
  if (process.platform === 'win32' && env.APPDATA) return join(env.APPDATA, 'platform');
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'platform');
}

interface CredentialFile {
  format: typeof CREDENTIALS_FORMAT;
  controlPlanes: Record<string, StoredCredential>;
}

function isCredential(value: unknown): value is StoredCredential {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  const builder = v.builder as Record<string, unknown> | undefined;
  return typeof v.token === 'string' && typeof v.createdAt === 'string' && typeof builder === 'object' && builder !== null && typeof builder.id === 'string' && typeof builder.name === 'string';
}

export class FileCredentialStore implements CredentialStore {
  readonly location: string;

  constructor(directory: string = configDir()) {
    this.location = join(directory, 'credentials.json');
  }

  #load(): { file?: CredentialFile; problem?: string } {
    if (!existsSync(this.location)) return {};
    let value: unknown;
    try {
      value = JSON.parse(readFileSync(this.location, 'utf8'));
    } catch (error) {
      // The reason names the file, never its contents.
      return { problem: error instanceof SyntaxError ? `${this.location} is not JSON` : `${this.location} cannot be read` };
    }
    const file = value as Partial<CredentialFile>;
    if (typeof value !== 'object' || value === null || file.format !== CREDENTIALS_FORMAT || typeof file.controlPlanes !== 'object' || file.controlPlanes === null) {
      return { problem: `${this.location} is not a ${CREDENTIALS_FORMAT} document` };
    }
    return { file: file as CredentialFile };
  }

  async read(controlUrl: string): Promise<CredentialRead> {
    const { file, problem } = this.#load();
    if (problem) return { status: 'invalid', reason: problem };
    const entry = file?.controlPlanes[controlUrl];
    if (entry === undefined) return { status: 'none' };
    if (!isCredential(entry)) return { status: 'invalid', reason: `the entry for ${controlUrl} in ${this.location} is malformed` };
    return { status: 'ok', credential: entry };
  }

  #save(file: CredentialFile): void {
    mkdirSync(dirname(this.location), { recursive: true, mode: 0o700 });
    const temporary = `${this.location}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
    chmodSync(temporary, 0o600);
    renameSync(temporary, this.location);
  }

  async write(controlUrl: string, credential: StoredCredential): Promise<void> {
    const { file } = this.#load();
    // An unusable file is replaced: signing in is how it is repaired.
    const next: CredentialFile = file ?? { format: CREDENTIALS_FORMAT, controlPlanes: {} };
    next.controlPlanes[controlUrl] = credential;
    this.#save(next);
  }

  async remove(controlUrl: string): Promise<boolean> {
    const { file, problem } = this.#load();
    if (problem) {
      this.#save({ format: CREDENTIALS_FORMAT, controlPlanes: {} });
      return true;
    }
    if (!file || !(controlUrl in file.controlPlanes)) return false;
    delete file.controlPlanes[controlUrl];
    this.#save(file);
    return true;
  }
}
