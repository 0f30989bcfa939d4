/**
 * `npx tsx bench/react-preview.ts`: the todo-react rows of `bench/run.ts browser` alone (the worker's
 * rebuild after a client edit, and edit to preview updated for a client and a server edit), for
 * comparing changes to the preview's React client quickly; the full section runs every project.
 */
import { browserCompilerRows, openPlayground, workerWarmUpRows } from './browser';
import { templateEditRows } from './edits';
import { benchProjects } from './projects';
import { printTable } from './stats';

const project = benchProjects().find((p) => p.name === 'template todo-react')!;
const playground = await openPlayground();
try {
  printTable('Compiler worker in Chromium: its warm-up (todo-react)', await workerWarmUpRows(playground.page, project));
  printTable(`Compiler worker in Chromium: ${project.name}`, await browserCompilerRows(playground.page, project));
  printTable('Playground in Chromium: edit to preview updated, todo-react', await templateEditRows(playground.page, ['todo-react']));
} finally {
  await playground.close();
}
