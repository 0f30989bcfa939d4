import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from './profile';
import { IMMUTABLE } from '../vite/cache-headers-plugin';

const dist = join(import.meta.dirname, '../dist');

test('the hashed files (esbuild wasm, compiler worker, sql.js wasm) are cached for good; the page is revalidated', async ({ request }) => {
  const assets = readdirSync(join(dist, 'assets'));
  const esbuildWasm = assets.find((name) => /^esbuild-.*\.wasm$/.test(name));
  const worker = assets.find((name) => /^compiler\.worker-.*\.js$/.test(name));
  const sqlWasm = assets.find((name) => /^sql-wasm-.*\.wasm$/.test(name));
  for (const name of [esbuildWasm, worker, sqlWasm]) {
    expect(name).toBeDefined();
    const response = await request.get(`/assets/${name}`);
    expect(response.status()).toBe(200);
    expect(response.headers()['cache-control']).toBe(IMMUTABLE);
  }
  const page = await request.get('/');
  expect(page.status()).toBe(200);
  expect(page.headers()['cache-control']).not.toContain('immutable');
  // The production build says the same to static hosts that read a _headers file.
  expect(readFileSync(join(dist, '_headers'), 'utf8')).toBe(`/assets/*\n  Cache-Control: ${IMMUTABLE}\n`);
});
