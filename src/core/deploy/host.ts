/** What a host gives the commands that talk to a control plane: a fetch, the environment, stored credentials. */
import type { BuilderInfo } from './protocol.ts';
import type { FetchLike } from './client.ts';

/** A builder credential kept by `auth login`, per control plane origin. */
export interface StoredCredential {
  /** The session token (`xbs_…`); a secret, never printed. */
  token: string;
  builder: BuilderInfo;
  createdAt: string;
  /** When the control plane stops accepting it (absent in credentials stored before sessions expired). */
  expiresAt?: string;
}

export type CredentialRead =
  | { status: 'none' }
  /** The credential file exists but cannot be used (the reason names no secret). */
  | { status: 'invalid'; reason: string }
  | { status: 'ok'; credential: StoredCredential };

export interface CredentialStore {
  /** Where credentials are kept, for messages (a path, or a storage name). */
  readonly location: string;
  read(controlUrl: string): Promise<CredentialRead>;
  write(controlUrl: string, credential: StoredCredential): Promise<void>;
  /** Forgets the credential of a control plane; true when one was stored. */
  remove(controlUrl: string): Promise<boolean>;
}

export interface ControlPlaneHost {
  fetch: FetchLike;
  /** An environment variable (`PLATFORM_SERVICE_TOKEN`, `PLATFORM_CONTROL_URL`). */
  env(name: string): string | undefined;
  credentials: CredentialStore;
  /** Waits between polls (`auth login`). */
  sleep(ms: number): Promise<void>;
  /** Shows a line to the person at the terminal while a command runs, outside its result (stderr in the CLI). */
  notify(text: string): void;
}
