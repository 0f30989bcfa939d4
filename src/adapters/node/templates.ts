/** The bundled templates, read from this checkout's templates/ folder, and the one reader of a folder's files by project path. */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Template } from '../../core/commands/index.ts';

const ROOT = join(import.meta.dirname, '../../../templates');
const TEXT = /\.(json|ts|tsx|js|jsx|mjs|css|html|svg|md|txt)$/;

/**
 * The files under `dir` by their `/`-separated path from it: text files (by extension) as text, others
 * as bytes; `node_modules`, dot files and what `skip` names (a path from `dir`) left out.
 */
export function readTree(dir: string, skip: (path: string) => boolean = () => false): Record<string, string | Uint8Array> {
  const files: Record<string, string | Uint8Array> = {};
  const walk = (path: string) => {
    for (const name of readdirSync(path)) {
      if (name === 'node_modules' || name.startsWith('.')) continue;
      const full = join(path, name);
      const at = relative(dir, full).split('\\').join('/');
      if (skip(at)) continue;
      if (statSync(full).isDirectory()) walk(full);
      else files[at] = TEXT.test(name) ? readFileSync(full, 'utf8') : new Uint8Array(readFileSync(full));
    }
  };
  walk(dir);
  return files;
}

/** `readTree` of a folder of text files only (a template, a fixture app): a file that is not text is an error. */
export function readTextTree(dir: string, skip?: (path: string) => boolean): Record<string, string> {
  const files = readTree(dir, skip);
  for (const [path, content] of Object.entries(files)) if (typeof content !== 'string') throw new Error(`${path} under ${dir} is not a text file.`);
  return files as Record<string, string>;
}

export function nodeTemplates(root: string = ROOT): Template[] {
  const templates: Template[] = [];
  for (const id of readdirSync(root).sort()) {
    const dir = join(root, id);
    if (!statSync(dir).isDirectory()) continue;
    const files = readTree(dir);
    const manifest = files['app.manifest.json'];
    if (typeof manifest !== 'string') continue;
    const description = (JSON.parse(manifest) as { app?: { description?: string } }).app?.description ?? '';
    templates.push({ id, description, files });
  }
  return templates;
}
