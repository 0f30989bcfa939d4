/** The bundled templates, read from this checkout's templates/ folder. */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Template } from '../../core/commands';

const ROOT = join(import.meta.dirname, '../../../templates');
const TEXT = /\.(json|ts|tsx|js|jsx|mjs|css|html|svg|md|txt)$/;

export function nodeTemplates(root: string = ROOT): Template[] {
  const templates: Template[] = [];
  for (const id of readdirSync(root).sort()) {
    const dir = join(root, id);
    if (!statSync(dir).isDirectory()) continue;
    const files: Record<string, string | Uint8Array> = {};
    const walk = (path: string) => {
      for (const name of readdirSync(path)) {
        if (name === 'node_modules' || name.startsWith('.')) continue;
        const full = join(path, name);
        if (statSync(full).isDirectory()) walk(full);
        else files[relative(dir, full).split('\\').join('/')] = TEXT.test(name) ? readFileSync(full, 'utf8') : new Uint8Array(readFileSync(full));
      }
    };
    walk(dir);
    const manifest = files['app.manifest.json'];
    if (typeof manifest !== 'string') continue;
    const description = (JSON.parse(manifest) as { app?: { description?: string } }).app?.description ?? '';
    templates.push({ id, description, files });
  }
  return templates;
}
