/** The persona local servers' visitors are (`platform auth as`), kept in `.platform/persona.json`; alice when none is chosen. */
import type { FileSystem, WritableFileSystem } from '../fs/index.ts';
import { isPersona, type PersonaName } from '../runtime/index.ts';
import { PERSONA_FILE, PERSONA_FORMAT } from './paths.ts';

export const DEFAULT_PERSONA: PersonaName = 'alice';

/** The chosen persona; the default when none is chosen or the file is not one. */
export function personaFromText(text: string | undefined): PersonaName {
  if (text === undefined) return DEFAULT_PERSONA;
  try {
    const value = JSON.parse(text) as { format?: unknown; persona?: unknown };
    return value?.format === PERSONA_FORMAT && isPersona(value.persona) ? value.persona : DEFAULT_PERSONA;
  } catch {
    return DEFAULT_PERSONA;
  }
}

export async function readPersona(fs: FileSystem): Promise<PersonaName> {
  return personaFromText(await fs.readText(PERSONA_FILE));
}

/** Chooses a persona; `undefined` goes back to the default (`auth clear`). */
export async function writePersona(fs: WritableFileSystem, persona: PersonaName | undefined): Promise<void> {
  await fs.writeFile(PERSONA_FILE, `${JSON.stringify({ format: PERSONA_FORMAT, persona: persona ?? DEFAULT_PERSONA }, null, 2)}\n`);
}
