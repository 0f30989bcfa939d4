/** Where local modes keep their files under `.platform/`: state per mode, server discovery records, the persona. */
export type LocalMode = 'dev' | 'preview';
/** The states `state reset` may name: the two servers' and the scratch state of `platform test`. */
export type LocalState = LocalMode | 'test';
export const LOCAL_MODES: readonly LocalMode[] = ['dev', 'preview'];
export const LOCAL_STATES: readonly LocalState[] = ['dev', 'preview', 'test'];

/** A mode's Durable Object storage (its SQLite files). */
export const statePath = (state: LocalState) => `.platform/state/${state}`;
/** Recovery copies that `state reset` writes before it empties a state. */
export const RECOVERY_DIR = '.platform/recovery';
/** A running local server's discovery record (`{ url, pid, startedAt, ... }`), removed on a clean stop. */
export const serverRecordPath = (mode: LocalMode) => `.platform/servers/${mode}.json`;
/** The workerd engine's own files (config, pid file) of a mode. */
export const enginePath = (mode: LocalMode) => `.platform/engines/${mode}`;
/** Who the local servers' visitors are (`platform auth as`). */
export const PERSONA_FILE = '.platform/persona.json';
export const PERSONA_FORMAT = 'platform.persona.v0';
/** The values `ctx.env` gets in a mode (written by `platform env pull`, or by hand). */
export const envFilePath = (mode: LocalMode) => `.platform/env.${mode}.local.json`;

export function isLocalState(value: unknown): value is LocalState {
  return typeof value === 'string' && (LOCAL_STATES as readonly string[]).includes(value);
}
