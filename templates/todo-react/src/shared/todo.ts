/** The rule for a todo's title, shared by the client (to say it early) and the server (to enforce it). */
export const MAX_TITLE = 200;

/** The title to store, or an error message. */
export function checkTitle(title: string): { title: string } | { error: string } {
  const trimmed = title.trim();
  if (trimmed.length === 0) return { error: 'A todo needs a title.' };
  if (trimmed.length > MAX_TITLE) return { error: `A title has at most ${MAX_TITLE} characters.` };
  return { title: trimmed };
}
