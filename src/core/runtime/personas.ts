/** The three fixed personas of local modes (dev, preview, test), as decisions.md defines them. */
import { sha256Hex } from '../hash/index.ts';
import type { Auth, Persona } from '../../modules/types.ts';

export type { Auth };
export type PersonaName = Persona;
export const PERSONA_NAMES: readonly PersonaName[] = ['alice', 'bob', 'guest'];

const PERSONAS: Record<PersonaName, { kind: Auth['kind']; workspaceIds: string[] }> = {
  alice: { kind: 'user', workspaceIds: ['ws-team', 'ws-alice'] },
  bob: { kind: 'user', workspaceIds: ['ws-team'] },
  guest: { kind: 'guest', workspaceIds: [] },
};

/** Whether a persona stands for a signed-in person (alice, bob) rather than a signed-out visitor (guest). */
export function personaSignedIn(persona: PersonaName): boolean {
  return PERSONAS[persona].kind !== 'guest';
}

export function isPersona(value: unknown): value is PersonaName {
  return typeof value === 'string' && (PERSONA_NAMES as readonly string[]).includes(value);
}

/** `local:<persona>:<first 12 hex of SHA-256 of "<app name>:<persona>">`: stable, and different per app. */
export function personaUserId(appName: string, persona: PersonaName): string {
  return `local:${persona}:${sha256Hex(`${appName}:${persona}`).slice(0, 12)}`;
}

/** The frozen `ctx.auth` of a persona of an app. */
export function personaAuth(appName: string, persona: PersonaName, sessionId?: string): Auth {
  const appUserId = personaUserId(appName, persona);
  const { kind, workspaceIds } = PERSONAS[persona];
  return Object.freeze({
    appUserId,
    kind,
    roles: Object.freeze([]),
    permissions: Object.freeze([]),
    workspaceIds: Object.freeze([...workspaceIds]),
    ...(sessionId ? { sessionId } : {}),
    id: appUserId,
  });
}

/** The workspaces of a persona as its page sees them (`useWorkspaces`): named by their ids, with how many personas share each. */
export function personaWorkspaces(persona: PersonaName): { id: string; name: string; members: number }[] {
  return PERSONAS[persona].workspaceIds.map((id) => ({ id, name: id, members: PERSONA_NAMES.filter((other) => PERSONAS[other].workspaceIds.includes(id)).length }));
}
