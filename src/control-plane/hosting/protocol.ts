/** Messages between the control plane and an app worker (one worker thread per deployed app and environment). */
import type { Manifest } from '../../core/manifest';
import type { Auth } from '../../core/runtime/personas';

export interface StartMessage {
  type: 'start';
  manifest: Manifest;
  /** The server bundle, written under its hash as an `.mjs` file. */
  serverPath: string;
  /** The environment's database file; absent for a probe, which opens `probeState` and writes nothing. */
  databasePath?: string;
  probeState?: Uint8Array;
  env: Record<string, string>;
  /** The key the runtime signs cursors with: stable, so cursors survive a restart. */
  secret: Uint8Array;
  handlerDeadlineMs?: number;
}

export interface RequestMessage {
  type: 'request';
  id: number;
  auth: Auth;
  method: string;
  url: string;
  headers: Array<[string, string]>;
  body?: Uint8Array;
}

export type HostMessage = StartMessage | RequestMessage;

export type WorkerMessage =
  | { type: 'ready' }
  /** The app could not start: its module, or its database for this schema. */
  | { type: 'failed'; code: 'module_invalid' | 'provision_failed'; message: string }
  | { type: 'head'; id: number; status: number; statusText: string; headers: Array<[string, string]> }
  | { type: 'chunk'; id: number; bytes: Uint8Array }
  | { type: 'end'; id: number }
  | { type: 'abort'; id: number; message: string };
