/** The projects the benchmarks compile: every template under templates/, and the compiler's base fixture. */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { baseApp } from '../src/core/analyze/__fixtures__/base-app';

const ROOT = join(import.meta.dirname, '..');

function readTree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (path: string) => {
    for (const name of readdirSync(path)) {
      if (name === 'node_modules' || name.startsWith('.')) continue;
      const full = join(path, name);
      if (statSync(full).isDirectory()) walk(full);
      else out[relative(dir, full)] = readFileSync(full, 'utf8');
    }
  };
  walk(dir);
  return out;
}

export interface BenchProject {
  name: string;
  files: Record<string, string>;
  /** The file a one-line edit changes, and how. */
  edit: { file: string; apply(text: string, n: number): string };
}

/** A one-line edit that keeps the program valid: a new string constant at the end of the file. */
const appendLine = (text: string, n: number) => `${text}\nexport const benchEdit${n % 2} = 'edit ${n}';\n`;

export function benchProjects(): BenchProject[] {
  const projects: BenchProject[] = [];
  const templates = join(ROOT, 'templates');
  if (existsSync(templates)) {
    for (const name of readdirSync(templates).sort()) {
      const dir = join(templates, name);
      if (!existsSync(join(dir, 'app.manifest.json'))) continue;
      const files = readTree(dir);
      const manifest = JSON.parse(files['app.manifest.json']!) as { entrypoints: { client: string } };
      projects.push({ name: `template ${name}`, files, edit: { file: manifest.entrypoints.client, apply: appendLine } });
    }
  }
  projects.push({ name: 'fixture todo-app', files: baseApp(), edit: { file: 'src/client/main.tsx', apply: appendLine } });
  return projects;
}
