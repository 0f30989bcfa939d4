/**
 * App projects that use their own npm packages, installed in `node_modules` as npm lays them out:
 * one typed by `types` (CommonJS), one by an `exports` condition (ESM, with a subpath and a
 * dependency of its own that its declarations import), one without types, one that reaches a Node
 * built-in. The server and the client both use them; a test calls the server.
 */
import { BASE_MANIFEST, CLIENT, SERVER, SHARED } from '../../analyze/__fixtures__/base-app';

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/** An installed package: the name the app declares, and its files under node_modules (its own dependencies included). */
export interface InstalledPackage {
  name: string;
  files: Record<string, string>;
}

/** `tiny-slug`: CommonJS, typed by the `types` field. */
export const TINY_SLUG: InstalledPackage = {
  name: 'tiny-slug',
  files: {
    'node_modules/tiny-slug/package.json': json({ name: 'tiny-slug', version: '1.2.0', main: 'lib/index.js', types: 'lib/index.d.ts' }),
    'node_modules/tiny-slug/lib/index.js': "'use strict';\nexports.slug = function slug(text) {\n  return text.trim().toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');\n};\n",
    'node_modules/tiny-slug/lib/index.d.ts': '/** A URL-safe slug. */\nexport declare function slug(text: string): string;\n',
  },
};

/** `@acme/fmt`: ESM, typed by `exports` conditions, with a subpath; its declarations import `@acme/fmt-core`, its own dependency. */
export const ACME_FMT: InstalledPackage = {
  name: '@acme/fmt',
  files: {
    'node_modules/@acme/fmt/package.json': json({
      name: '@acme/fmt',
      version: '2.0.0',
      type: 'module',
      dependencies: { '@acme/fmt-core': '^1.0.0' },
      exports: {
        '.': { types: './dist/index.d.ts', node: './dist/node.js', import: './dist/index.js', default: './dist/index.js' },
        './case': { types: './dist/case.d.ts', default: './dist/case.js' },
        './package.json': './package.json',
      },
    }),
    'node_modules/@acme/fmt/dist/index.js': "export const label = (text, options = {}) => `${options.prefix ?? ''}${text}`;\n",
    // Never bundled: the `node` condition is not one the platform builds for.
    'node_modules/@acme/fmt/dist/node.js': "import { inspect } from 'node:util';\nexport const label = (text) => inspect(text);\n",
    'node_modules/@acme/fmt/dist/index.d.ts': "import type { Options } from '@acme/fmt-core';\nexport declare const label: (text: string, options?: Options) => string;\n",
    'node_modules/@acme/fmt/dist/case.js': 'export const shout = (text) => `${text.toUpperCase()}!`;\n',
    'node_modules/@acme/fmt/dist/case.d.ts': 'export declare function shout(text: string): string;\n',
    'node_modules/@acme/fmt-core/package.json': json({ name: '@acme/fmt-core', version: '1.0.0', types: 'index.d.ts' }),
    'node_modules/@acme/fmt-core/index.d.ts': 'export type Options = { prefix?: string };\n',
  },
};

/** `untyped-pad`: no declarations anywhere. */
export const UNTYPED_PAD: InstalledPackage = {
  name: 'untyped-pad',
  files: {
    'node_modules/untyped-pad/package.json': json({ name: 'untyped-pad', version: '0.1.0', main: 'index.js' }),
    'node_modules/untyped-pad/index.js': "module.exports = function pad(text, width) { return String(text).padStart(width, ' '); };\n",
  },
};

/** `node-digest`: typed, but its code imports a Node built-in. */
export const NODE_DIGEST: InstalledPackage = {
  name: 'node-digest',
  files: {
    'node_modules/node-digest/package.json': json({ name: 'node-digest', version: '1.0.0', type: 'module', exports: { '.': { types: './index.d.ts', default: './index.js' } } }),
    'node_modules/node-digest/index.js': "import { createHash } from 'node:crypto';\nexport const digest = (text) => createHash('sha256').update(text).digest('hex');\n",
    'node_modules/node-digest/index.d.ts': 'export declare function digest(text: string): string;\n',
  },
};

const SLUG_QUERY = `  queries: {
    'text.slug': query({
      input: { text: 'string' },
      handler: async (_ctx, input) => ({ slug: slug(input.text), label: label(shout(input.text), { prefix: '#' }) }),
    }),
`;

const SLUG_TEST = `import { test, expect, query } from 'platform/test';

test('the server slugs with the packages', async () => {
  expect(await query('text.slug', { text: ' Hello World ' })).toEqual({ slug: 'hello-world', label: '# HELLO WORLD !' });
});
`;

export interface PackageAppOptions {
  /** Extra packages to install and declare. */
  extra?: InstalledPackage[];
  /** Extra lines at the top of the server entrypoint. */
  serverImports?: string;
  /** untypedDependencies of the manifest. */
  untyped?: string[];
}

/** The base app whose server and client use `tiny-slug` and `@acme/fmt`, with a test of the server's use. */
export function packageApp(options: PackageAppOptions = {}): Record<string, string> {
  const packages = [TINY_SLUG, ACME_FMT, ...(options.extra ?? [])];
  const modules = Object.assign({}, ...packages.map((p) => p.files)) as Record<string, string>;
  const dependencies = Object.fromEntries(packages.map((p) => [p.name, (JSON.parse(p.files[`node_modules/${p.name}/package.json`]!) as { version: string }).version]));
  const manifest = { ...BASE_MANIFEST, ...(options.untyped ? { untypedDependencies: options.untyped } : {}) };
  const server = SERVER.replace("import { clean } from '../shared/text';", `import { clean } from '../shared/text';\nimport { slug } from 'tiny-slug';\nimport { label } from '@acme/fmt';\nimport { shout } from '@acme/fmt/case';\n${options.serverImports ?? ''}`).replace('  queries: {\n', SLUG_QUERY);
  const client = `import { slug } from 'tiny-slug';\nimport { shout } from '@acme/fmt/case';\nconsole.log(slug(shout('client')));\n${CLIENT}`;
  return {
    'app.manifest.json': json(manifest),
    'package.json': json({ name: 'package-app', private: true, dependencies }),
    'src/server/index.ts': server,
    'src/client/main.tsx': client,
    'src/shared/text.ts': SHARED,
    'tests/text.test.ts': SLUG_TEST,
    'public/favicon.svg': '<svg xmlns="http://www.w3.org/2000/svg"/>',
    ...modules,
  };
}
