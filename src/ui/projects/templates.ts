/** The bundled templates (templates/), embedded in the playground at build time. */
const sources = import.meta.glob('/templates/*/**/*', { query: '?raw', import: 'default', eager: true }) as Record<string, string>;

export interface PlaygroundTemplate {
  id: string;
  title: string;
  description: string;
  files: Record<string, string>;
}

export const TEMPLATES: PlaygroundTemplate[] = (() => {
  const byId = new Map<string, Record<string, string>>();
  for (const [path, text] of Object.entries(sources)) {
    const match = /^\/templates\/([^/]+)\/(.+)$/.exec(path);
    if (!match || match[2] === 'README.md') continue;
    const files = byId.get(match[1]!) ?? {};
    files[match[2]!] = text;
    byId.set(match[1]!, files);
  }
  const order = ['todo', 'files', 'team-board', 'endpoints'];
  return [...byId]
    .filter(([, files]) => files['app.manifest.json'] !== undefined)
    .map(([id, files]) => {
      const manifest = JSON.parse(files['app.manifest.json']!) as { app?: { title?: string; description?: string } };
      return { id, title: manifest.app?.title ?? id, description: manifest.app?.description ?? '', files };
    })
    .sort((a, b) => (order.indexOf(a.id) + 1 || 99) - (order.indexOf(b.id) + 1 || 99));
})();
