/** The projects the benchmarks compile: every template under templates/, and the compiler's base fixture. */
import { nodeTemplates } from '../src/adapters/node/templates';
import { baseApp } from '../src/core/analyze/__fixtures__/base-app';

export interface BenchProject {
  name: string;
  files: Record<string, string>;
  /** The file a one-line edit changes, and how. */
  edit: { file: string; apply(text: string, n: number): string };
}

/** A one-line edit that keeps the program valid: a new string constant at the end of the file. */
const appendLine = (text: string, n: number) => `${text}\nexport const benchEdit${n % 2} = 'edit ${n}';\n`;

export function benchProjects(): BenchProject[] {
  const projects: BenchProject[] = nodeTemplates().map((template) => {
    const files = Object.fromEntries(Object.entries(template.files).map(([path, data]) => [path, typeof data === 'string' ? data : new TextDecoder().decode(data)]));
    const manifest = JSON.parse(files['app.manifest.json']!) as { entrypoints: { client: string } };
    return { name: `template ${template.id}`, files, edit: { file: manifest.entrypoints.client, apply: appendLine } };
  });
  projects.push({ name: 'fixture todo-app', files: baseApp(), edit: { file: 'src/client/main.tsx', apply: appendLine } });
  return projects;
}
