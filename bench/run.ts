/**
 * `npm run bench`: the figures the issues ask for, measured on this machine, printed as a table.
 * Sections may be named to run only them: `npx tsx bench/run.ts deploy hosting` (foundation, cli, runtime,
 * tests, share, deploy, hosting, compiler, browser, open, commits, live, dev, dev-size, data, data-workerd, transfer, sleep, records, front-door, pool); none named runs them all.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { prebuiltEntry } from '../bin/prebuilt.mjs';
import { MemoryFileSystem } from '../src/core/fs';
import { checkManifest, validateManifestText } from '../src/core/manifest';
import { FULL_MANIFEST } from '../src/core/manifest/__fixtures__/cases';
import { browserCompilerRows, openPlayground, workerWarmUpRows } from './browser';
import { playgroundRows } from './playground';
import { openProjectRows } from './open-project';
import { compilerRows, quickBundleRows, stopCompilers } from './compiler';
import { benchProjects } from './projects';
import { tableRows } from './runtime';
import { median, percentile, printTable, time, type Row } from './stats';

const SECTIONS = ['foundation', 'cli', 'runtime', 'tests', 'share', 'deploy', 'hosting', 'compiler', 'browser', 'open', 'commits', 'live', 'dev', 'dev-size', 'data', 'data-workerd', 'transfer', 'sleep', 'records', 'front-door', 'pool'];
const named = process.argv.slice(2);
for (const name of named) if (!SECTIONS.includes(name)) throw new Error(`No bench section ${JSON.stringify(name)}; the sections are ${SECTIONS.join(', ')}.`);
const wanted = (section: string) => named.length === 0 || named.includes(section);

/**
 * The sections that start `platform` as a process measure the prebuilt CLI. While a source of it is
 * newer than the build, `platform` runs the sources through tsx instead (bin/prebuilt.mjs), seconds
 * slower to start: such a run would measure the sources under the prebuilt CLI's rows. So the build is
 * made again first (bench/cli.ts also refuses a figure taken while it went stale).
 */
const CLI_SECTIONS = ['cli', 'dev', 'dev-size', 'data-workerd', 'transfer'];
const ROOT = join(import.meta.dirname, '..');
if (CLI_SECTIONS.some(wanted) && !prebuiltEntry(pathToFileURL(`${ROOT}/`))) {
  console.log('The prebuilt CLI is older than one of its sources: building it again (npm run build:cli) before measuring it.');
  // What the test setups call (scripts/build-cli.ts); it throws when the build fails.
  await (await import('../scripts/build-cli')).buildCli(ROOT);
  if (!prebuiltEntry(pathToFileURL(`${ROOT}/`))) throw new Error('The CLI was built, yet a source is newer than it: the CLI rows would measure the sources.');
}

if (wanted('foundation')) {
  const rows: Row[] = [];

  // Manifest validation: the first call compiles the JSON Schema; later calls reuse it.
  const manifestText = JSON.stringify(
    { format: 'platform.application-source.v0', name: 'bench-app', entrypoints: { client: 'src/client/main.tsx', server: 'src/server/index.ts' }, ...FULL_MANIFEST },
    null,
    2,
  );
  const cold = time(() => validateManifestText(manifestText));
  rows.push({ name: 'manifest validation, first call (compiles the schema)', value: cold, unit: 'ms' });
  const warm: number[] = [];
  for (let i = 0; i < 2000; i++) warm.push(time(() => validateManifestText(manifestText)));
  rows.push({ name: 'manifest validation, warm (full manifest) p50', value: median(warm), unit: 'ms' });
  rows.push({ name: 'manifest validation, warm p95', value: percentile(warm, 95), unit: 'ms' });

  const broken = manifestText.replace('"name"', '"nmae"').replace('"type": "string"', '"type": "strin"').replace('"ref"', '"reff"');
  const brokenTimes: number[] = [];
  for (let i = 0; i < 500; i++) brokenTimes.push(time(() => validateManifestText(broken)));
  rows.push({ name: 'manifest validation, warm, with errors p50', value: median(brokenTimes), unit: 'ms' });

  const files = new MemoryFileSystem({ 'app.manifest.json': manifestText, 'src/client/main.tsx': '', 'src/server/index.ts': '', 'public/favicon.svg': '' });
  const checks: number[] = [];
  for (let i = 0; i < 500; i++) {
    const start = performance.now();
    await checkManifest(files);
    checks.push(performance.now() - start);
  }
  rows.push({ name: 'checkManifest over MemoryFileSystem p50', value: median(checks), unit: 'ms' });

  printTable('Foundation: manifest', rows);
}

if (wanted('cli')) printTable('The CLI as a process: prebuilt, against the sources in the same run', await (await import('./cli')).cliRows());

// The runtime: the table API against raw sql.js, and each template's tests.
if (wanted('runtime')) printTable('Runtime: table API against raw sql.js (same run, same schema)', await tableRows());
if (wanted('tests')) printTable('Tests: platform test per template', await (await import('./cli')).templateTestRows(['todo', 'files', 'team-board', 'endpoints']));
if (wanted('share')) printTable('Share links: size per template, encode and decode p50', await (await import('./share')).shareRows());
if (wanted('deploy')) printTable('Control plane: deploy latency, and a hosted query under 50 connections on loopback', await (await import('./deploy')).deployRows());
if (wanted('front-door')) printTable('The front door: a hosted query through the control plane against raw workerd, and a cookieless visitor', await (await import('./front-door')).frontDoorRows());
if (wanted('pool')) printTable('Many environments in one workerd (Worker Loader and facets) against one process each', await (await import('./pool')).poolRows());
if (wanted('records')) printTable('Control plane records: one write against the number of records', await (await import('./records')).recordsRows());
if (wanted('sleep')) printTable('Hosted environments that sleep: memory awake and asleep, cold visit against a warm query', await (await import('./sleeping')).sleepingRows());
if (wanted('hosting')) printTable('Hosting in workerd: commit cost against data size, and control plane memory under abuse', await (await import('./hosting')).hostingRows());

// The compiler, in Node and in the browser worker, for each project.
const projects = benchProjects();
if (wanted('compiler')) {
  for (const project of projects) printTable(`Compiler in Node: ${project.name}`, await compilerRows(project));
  printTable('The quick preview bundle in Node (a link\'s first preview), against esbuild in the same process', await quickBundleRows([50, 200]));
}
await stopCompilers();

const playground = wanted('browser') || wanted('open') || wanted('commits') ? await openPlayground() : undefined;
if (playground) {
  try {
    // Projects that are not templates as shipped (issue 31): a reopened edited one, a bug-report link, a 200-file share link and zip.
    if (wanted('open')) printTable('Playground in Chromium: first preview of a project that is not a template, against an untouched template', await openProjectRows(playground.browser, playground.url));
    // Durable commits against the database's size (issue 31): one small mutation with no data, 1 MB and 50 MB.
    if (wanted('commits')) printTable('Playground in Chromium: durable commit of one small mutation against database size', await (await import('./durable-commits')).durableCommitRows(playground.browser, playground.url));
  } catch (error) {
    await playground.close();
    throw error;
  }
}
if (playground && wanted('browser')) {
  try {
    printTable(
      'Compiler worker start-up in Chromium',
      Object.entries(playground.startup).map(([name, value]) => ({ name: `worker start-up: ${name}`, value, unit: 'ms' as const })),
    );
    printTable('Compiler worker in Chromium: its warm-up (before the projects)', await workerWarmUpRows(playground.page, projects.at(-1)!));
    for (const project of projects) printTable(`Compiler worker in Chromium: ${project.name}`, await browserCompilerRows(playground.page, project));
    printTable('Playground in Chromium: first preview, edits, queries, page weight', await playgroundRows(playground.browser, playground.url));
  } finally {
    await playground.close();
  }
} else await playground?.close();

if (wanted('live')) printTable('Live updates: a mutation in one page to the other page\'s re-render', await (await import('./live')).liveRows());

if (wanted('data')) printTable('Data at size: reads with 10k and 1M rows, each against a trivial query in the same run', await (await import('./data')).dataRows());
if (wanted('data-workerd')) printTable('Data at size in workerd: platform dev and hosted, 10k and 1M rows, each read against a trivial query in the same run', await (await import('./data-workerd')).dataWorkerdRows());

if (wanted('dev')) printTable('platform dev: start, and a save to the new generation serving', await (await import('./dev')).devRows());

if (wanted('dev-size')) printTable('platform dev at size: generated apps, each edit against a warm TypeScript builder plus esbuild contexts in the same run', await (await import('./dev-size')).devSizeRows());

if (wanted('transfer')) printTable('platform export and import against platform dev: 10k and 1M rows, time and peak memory', await (await import('./transfer')).transferRows());
