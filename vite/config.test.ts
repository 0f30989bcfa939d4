/**
 * vite.config.ts as `npm start` loads it: it loads without a warning (Vite lists every import its
 * future native config loader could not follow, about a hundred lines on each start), the dev server
 * serves the modules that read the manifest's schema without a warning (an import of a file from
 * public/ printed "Assets in public directory cannot be imported from JavaScript" on each visit), and the
 * dependency scan starts from every worker as well as the pages, so that a first visit's workers
 * need no late re-optimisation and no reload of the page.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { createServer, loadConfigFromFile, type Logger } from 'vite';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');

/** What a logger was asked to say at warning level and above. */
function recordingLogger(said: string[]): Logger {
  const record = (message: string) => said.push(message);
  return {
    info: () => {},
    warn: record,
    warnOnce: record,
    error: record,
    clearScreen: () => {},
    hasErrorLogged: () => false,
    hasWarned: false,
  };
}

async function loadConfig(said: string[] = []) {
  const loaded = await loadConfigFromFile({ command: 'serve', mode: 'development' }, join(ROOT, 'vite.config.ts'), ROOT, 'warn', recordingLogger(said));
  if (!loaded) throw new Error('vite.config.ts was not found');
  return loaded.config;
}

/** The playground's own source files (tests apart), checkout-relative. */
function sourceFiles(): string[] {
  const found: string[] = [];
  const visit = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) visit(path);
      else if (/\.(tsx?|mjs|js)$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name)) found.push(relative(ROOT, path));
    }
  };
  for (const dir of ['src', 'worker', 'harness', 'vite']) visit(join(ROOT, dir));
  return found.sort();
}

/** The checkout-relative files the playground starts as workers (`new Worker(new URL('…', import.meta.url))`). */
function workerEntries(): string[] {
  const found = new Set<string>();
  const visit = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) visit(path);
      else if (/\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name)) {
        for (const match of readFileSync(path, 'utf8').matchAll(/new (?:Shared)?Worker\(\s*new URL\(\s*'([^']+)',\s*import\.meta\.url\s*\)/g)) {
          found.add(relative(ROOT, resolve(dir, match[1]!)));
        }
      }
    }
  };
  visit(join(ROOT, 'src'));
  visit(join(ROOT, 'worker'));
  return [...found].sort();
}

describe('vite.config.ts', () => {
  it('loads without a warning', async () => {
    const said: string[] = [];
    await loadConfig(said);
    expect(said).toEqual([]);
  });

  it('imports no file from public/ (Vite serves those at the root and warns at each import of one)', () => {
    const fromPublic: string[] = [];
    for (const file of sourceFiles()) {
      for (const match of readFileSync(join(ROOT, file), 'utf8').matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*)'(\.\.?\/[^']+)'/g)) {
        const target = relative(ROOT, resolve(ROOT, file, '..', match[1]!));
        if (target.startsWith('public/')) fromPublic.push(`${file} imports ${target}`);
      }
    }
    expect(fromPublic).toEqual([]);
  });

  it('serves the modules that read the manifest schema, and the schema itself, without a warning', async () => {
    const said: string[] = [];
    const server = await createServer({ root: ROOT, configFile: join(ROOT, 'vite.config.ts'), customLogger: recordingLogger(said), logLevel: 'warn', server: { port: 0, strictPort: false, ws: false } });
    try {
      await server.listen();
      const origin = server.resolvedUrls!.local[0]!.replace(/\/$/, '');
      const get = async (url: string) => {
        const response = await fetch(origin + url);
        expect(response.status, url).toBe(200);
        return response.text();
      };
      // The core's validator and the editor's schema support import the schema; each import is requested as the browser does.
      for (const module of ['/src/core/manifest/schema-errors.ts', '/src/ui/workspace/editor.tsx']) {
        const code = await get(module);
        for (const [, url] of code.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*)"(\/[^"]*schema[^"]*)"/g)) await get(url!);
      }
      const schema = JSON.parse(await get('/app.manifest.schema.json')) as { $schema?: string };
      expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    } finally {
      await server.close();
    }
    expect(said).toEqual([]);
  });

  it('starts the dependency scan from every worker the playground starts', async () => {
    const workers = workerEntries();
    // The compiler worker and the bundler worker it starts, at least: the scan must not pass them by.
    expect(workers).toEqual(expect.arrayContaining(['worker/compiler.worker.ts', 'worker/bundler.worker.ts']));
    const config = await loadConfig();
    const pages = Object.values(config.build?.rollupOptions?.input ?? {});
    expect(pages).toContain('index.html');
    // Entries replace the scan's default (the build's pages), so the pages are named too.
    expect(config.optimizeDeps?.entries).toEqual(expect.arrayContaining([...pages, ...workers]));
  });
});
