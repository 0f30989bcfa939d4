/** The manifest the shell opens with: a small valid app, so the first thing a visitor sees is a clean check. */
export const STARTER_MANIFEST = `{
  "$schema": "/app.manifest.schema.json",
  "format": "platform.application-source.v0",
  "name": "todo-app",
  "entrypoints": {
    "client": "src/client/main.tsx",
    "server": "src/server/index.ts"
  },
  "capabilities": ["database"],
  "database": {
    "tables": {
      "todos": {
        "fields": {
          "ownerId": { "type": "string" },
          "title": { "type": "string", "maxLength": 200 },
          "done": { "type": "boolean", "default": false }
        },
        "indexes": { "byOwner": ["ownerId"] }
      }
    }
  }
}
`;

/** The files the shell's manifest check can see besides the manifest itself. */
export const STARTER_FILES: Record<string, string> = {
  'src/client/main.tsx': 'export {};\n',
  'src/server/index.ts': 'export {};\n',
};
