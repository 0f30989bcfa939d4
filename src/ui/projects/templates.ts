/** The bundled templates (templates/), embedded in the playground at build time. */
const sources = import.meta.glob('/templates/*/**/*', { query: '?raw', import: 'default', eager: true }) as Record<string, string>;

export interface PlaygroundTemplate {
  id: string;
  title: string;
  description: string;
  /** What a person learns from it (the gallery's "Teaches:" line); empty for a template without one. */
  teaches: string;
  files: Record<string, string>;
}

/** The template the gallery offers first, as "Blank project": one query and a page that calls it. */
export const BLANK_TEMPLATE = 'blank';

/** What each bundled template teaches, as the gallery shows it. */
const TEACHES: Record<string, string> = {
  [BLANK_TEMPLATE]: 'the least an app needs: a manifest, one query in defineServer, useQuery in the client and a test in tests/.',
  lesson: 'the platform itself, step by step, with a check for each step: a query, mutations, an owned table seen as two personas, and a test of your own.',
  todo: 'queries and mutations, useQuery and useMutation, an ownedTable policy (each persona sees its own rows) and tests as personas.',
  files: 'endpoints for uploads and downloads, ctx.storage for objects, a table of metadata, and invalidateQueries after an endpoint write.',
  'team-board': 'workspaces: a workspaceTable policy, memberOf guards, and creating, inviting to and leaving a workspace from the client.',
  endpoints: 'raw HTTP endpoints: route parameters, request bodies, ctx.env, an endpoint write and a streamed response read chunk by chunk.',
  'todo-react': 'the todo app with a React client: the same platform/client hooks, rendered with React instead of Preact.',
};

export const TEMPLATES: PlaygroundTemplate[] = (() => {
  const byId = new Map<string, Record<string, string>>();
  for (const [path, text] of Object.entries(sources)) {
    const match = /^\/templates\/([^/]+)\/(.+)$/.exec(path);
    if (!match || match[2] === 'README.md') continue;
    const files = byId.get(match[1]!) ?? {};
    files[match[2]!] = text;
    byId.set(match[1]!, files);
  }
  const order = [BLANK_TEMPLATE, 'lesson', 'todo', 'files', 'team-board', 'endpoints'];
  return [...byId]
    .filter(([, files]) => files['app.manifest.json'] !== undefined)
    .map(([id, files]) => {
      const manifest = JSON.parse(files['app.manifest.json']!) as { app?: { title?: string; description?: string } };
      return { id, title: manifest.app?.title ?? id, description: manifest.app?.description ?? '', teaches: TEACHES[id] ?? '', files };
    })
    .sort((a, b) => (order.indexOf(a.id) + 1 || 99) - (order.indexOf(b.id) + 1 || 99));
})();
