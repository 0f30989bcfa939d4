/**
 * The preview's React client (`bundle(…, { preview: true })`): React from a vendor script built once,
 * the app's bundle after it in the same client/app.js. It must run as the artifact's client does, map
 * its lines as before, and give the diagnostics an artifact's would; artifacts are never made from it.
 */
import { runInNewContext } from 'node:vm';
import { originalPositionFor, TraceMap } from '@jridgewell/trace-mapping';
import * as esbuild from 'esbuild';
import * as esbuildWasm from 'esbuild-wasm';
import { afterAll, describe, expect, it } from 'vitest';
import { nodeLibrary } from '../../adapters/node/library';
import { nodeTemplates } from '../../adapters/node/templates';
import { analyzeProject, TypeCheckSession } from '../analyze';
import type { Project } from '../project';
import { MemoryFileSystem } from '../fs';
import { compileProject } from '../build';
import { Bundler, bundleProject, PREVIEW_VENDOR_GLOBAL, type BundleResult } from './bundle';
import { afterPreviewVendor, PREVIEW_VENDOR_END, PREVIEW_VENDOR_START, previewVendorOf } from './preview-vendor';

const library = nodeLibrary();
const decoder = new TextDecoder();
const bundlers: Bundler[] = [];

afterAll(async () => {
  await Promise.all(bundlers.map((b) => b.dispose()));
  await esbuildWasm.stop();
});

function template(id: string): Record<string, string> {
  return Object.fromEntries(Object.entries(nodeTemplates().find((t) => t.id === id)!.files).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

/** A React client that touches no DOM: what it got from React, React DOM, the JSX runtime and platform/client, on a global. */
const PROBE = `import React, { useState, version } from 'react';
import { jsx, Fragment } from 'react/jsx-runtime';
import * as client from 'react-dom/client';
import { useQuery } from 'platform/client';

const vendor = (globalThis as Record<string, any>)[${JSON.stringify(PREVIEW_VENDOR_GLOBAL)}];
function Greeting({ name }: { name: string }) {
  return <p className="greeting">probe-marker {name}</p>;
}
(globalThis as Record<string, unknown>).probe = {
  version,
  reactKeys: Object.keys(React).sort(),
  clientKeys: Object.keys(client).sort(),
  hook: typeof useState,
  useQuery: typeof useQuery,
  element: <Greeting name="ada" />,
  explicit: jsx(Fragment, { children: 'x' }),
  vendored: vendor ? vendor.react === React && vendor['react-dom/client'].createRoot === client.createRoot : null,
};
`;

function probeApp(): Record<string, string> {
  const files = template('todo-react');
  return { ...files, 'src/client/main.tsx': PROBE };
}

async function projectOf(files: Record<string, string>): Promise<Project> {
  const analysis = await analyzeProject(new MemoryFileSystem(files), { library, typecheck: false });
  expect(analysis.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return analysis.project!;
}

function bundler(api: typeof esbuild | typeof esbuildWasm = esbuild): Bundler {
  const made = new Bundler(api, library);
  bundlers.push(made);
  return made;
}

const text = (result: BundleResult, path: string) => decoder.decode(result.files.get(path));

/** Runs a client bundle with no DOM and returns what the probe saw (JSON: functions and symbols dropped). */
function runProbe(code: string): unknown {
  const context: Record<string, unknown> = { console, setTimeout, clearTimeout, queueMicrotask, MessageChannel };
  context.globalThis = context;
  runInNewContext(code, context);
  return JSON.parse(JSON.stringify(context.probe));
}

describe('the preview client of a React app', () => {
  it('is the vendor script then the app bundled without React, and runs as the artifact client does', async () => {
    const project = await projectOf(probeApp());
    const full = await bundleProject(esbuild, library, project, ['client', 'server']);
    const preview = await bundler().bundle(project, ['client', 'server'], { preview: true });
    expect(preview.diagnostics).toEqual(full.diagnostics);
    // The server is bundled as for an artifact.
    expect(preview.files.get('server/index.js')).toEqual(full.files.get('server/index.js'));

    const code = text(preview, 'client/app.js');
    expect(code.startsWith(`${PREVIEW_VENDOR_START}\n(()=>{`)).toBe(true);
    const app = code.slice(previewVendorOf(code)!.length);
    // React's code is in the vendor script once, not in the app's part: the app has the shims.
    const marker = 'react.transitional.element';
    const count = (bundle: string) => bundle.split(marker).length - 1;
    expect(count(text(full, 'client/app.js'))).toBeGreaterThan(0);
    expect(count(code)).toBe(count(text(full, 'client/app.js')));
    expect(app).not.toContain(marker);
    expect(app).toContain(`globalThis.${PREVIEW_VENDOR_GLOBAL}.react`);
    expect(app.length).toBeLessThan(code.length / 10);

    const fromArtifact = runProbe(text(full, 'client/app.js')) as Record<string, unknown>;
    const fromPreview = runProbe(code) as Record<string, unknown>;
    expect(fromArtifact.vendored).toBeNull();
    // The module objects the app gets are the vendor's (React DOM's React is the app's React).
    expect(fromPreview.vendored).toBe(true);
    expect({ ...fromPreview, vendored: null }).toEqual(fromArtifact);
    expect(fromArtifact.element).toMatchObject({ props: { name: 'ada' } });
    expect((fromArtifact.reactKeys as string[]).length).toBeGreaterThan(20);
  });

  it('runs the same in two parts, the vendor script first (a frame loaded ahead) and then the app in its own lines', async () => {
    const project = await projectOf(probeApp());
    const full = await bundleProject(esbuild, library, project, ['client']);
    expect(previewVendorOf(text(full, 'client/app.js'))).toBeUndefined();
    const code = text(await bundler().bundle(project, ['client'], { preview: true }), 'client/app.js');
    const vendor = previewVendorOf(code)!;
    expect(vendor.endsWith(`\n${PREVIEW_VENDOR_END}\n`)).toBe(true);
    expect(vendor).toContain(PREVIEW_VENDOR_GLOBAL);
    expect(vendor).not.toContain('probe-marker');
    const rest = afterPreviewVendor(code, vendor);
    // The app's code keeps its lines and columns: the shifted source map still fits it.
    const lineOf = (source: string) => source.slice(0, source.indexOf('probe-marker')).split('\n').length;
    expect(lineOf(rest)).toBe(lineOf(code));
    expect(rest.split('\n').at(lineOf(code) - 1)).toBe(code.split('\n').at(lineOf(code) - 1));
    const context: Record<string, unknown> = { console, setTimeout, clearTimeout, queueMicrotask, MessageChannel };
    context.globalThis = context;
    runInNewContext(vendor, context);
    runInNewContext(rest, context);
    expect(JSON.parse(JSON.stringify(context.probe))).toEqual(runProbe(code));
  });

  it('maps the app lines through the shifted source map as the artifact client maps them', async () => {
    const project = await projectOf(probeApp());
    const full = await bundleProject(esbuild, library, project, ['client']);
    const preview = await bundler().bundle(project, ['client'], { preview: true });
    const where = (result: BundleResult) => {
      const code = text(result, 'client/app.js');
      const offset = code.indexOf('probe-marker');
      const before = code.slice(0, offset);
      const line = before.split('\n').length;
      const column = offset - (before.lastIndexOf('\n') + 1);
      return originalPositionFor(new TraceMap(text(result, 'client/app.js.map')), { line, column });
    };
    const expected = where(full);
    expect(expected.source).toContain('src/client/main.tsx');
    expect(expected.line).toBe(PROBE.split('\n').findIndex((l) => l.includes('probe-marker')) + 1);
    expect(where(preview)).toEqual(expected);
  });

  it('builds the vendor script once per Bundler, and is the same with native esbuild and esbuild-wasm', async () => {
    const native = bundler();
    const first = native.previewVendor('react');
    expect(native.previewVendor('react')).toBe(first);
    expect(native.previewVendor('preact')).toBeUndefined();
    const project = await projectOf(probeApp());
    const a = await native.bundle(project, ['client', 'server'], { preview: true });
    const edited = await projectOf({ ...probeApp(), 'src/client/main.tsx': PROBE.replace('probe-marker', 'probe-marker 2') });
    const again = await native.bundle(edited, ['client', 'server'], { preview: true });
    const vendor = (await first!).code;
    expect(text(a, 'client/app.js').startsWith(vendor)).toBe(true);
    expect(text(again, 'client/app.js').startsWith(vendor)).toBe(true);
    expect(text(again, 'client/app.js')).toContain('probe-marker 2');
    const b = await bundler(esbuildWasm).bundle(project, ['client', 'server'], { preview: true });
    for (const [path, bytes] of a.files) expect(b.files.get(path), path).toEqual(bytes);
  });

  it('gives a Preact app the same bundles as an artifact', async () => {
    const project = await projectOf(template('todo'));
    const full = await bundleProject(esbuild, library, project, ['client', 'server']);
    const preview = await bundler().bundle(project, ['client', 'server'], { preview: true });
    expect([...preview.files.keys()].sort()).toEqual([...full.files.keys()].sort());
    for (const [path, bytes] of full.files) expect(preview.files.get(path), path).toEqual(bytes);
  });

  it('gives the diagnostics and sizes of an artifact near a limit: the client is then also bundled as for one', async () => {
    const files = template('todo-react');
    const fullSizes = (await bundleProject(esbuild, library, await projectOf(files), ['client'])).sizes;
    const previewSizes = (await bundler().bundle(await projectOf(files), ['client'], { preview: true })).sizes;
    // The preview's figures are a few hundred bytes off the artifact's.
    expect(Math.abs(previewSizes.clientBytes - fullSizes.clientBytes)).toBeLessThan(1024);
    expect(Math.abs(previewSizes.appShareBytes - fullSizes.appShareBytes)).toBeLessThan(256);
    // A budget between the two figures: the preview's alone would decide otherwise than the artifact's.
    const between = Math.round((previewSizes.clientBytes + fullSizes.clientBytes) / 2);
    for (const budget of [between, fullSizes.clientBytes - 1]) {
      const manifest = JSON.parse(files['app.manifest.json']!) as { budgets?: Record<string, number> };
      const tight = { ...files, 'app.manifest.json': JSON.stringify({ ...manifest, budgets: { ...manifest.budgets, clientBundleBytes: budget } }) };
      const full = await bundleProject(esbuild, library, await projectOf(tight), ['client', 'server']);
      const preview = await bundler().bundle(await projectOf(tight), ['client', 'server'], { preview: true });
      expect(preview.diagnostics).toEqual(full.diagnostics);
      expect(preview.sizes).toEqual(full.sizes);
      // Still the preview's client, with its vendor script.
      expect(text(preview, 'client/app.js')).toContain(PREVIEW_VENDOR_GLOBAL);
    }
  });

  it('is never used for an artifact: compileProject with every target bundles as for one', async () => {
    const typecheck = new TypeCheckSession(library);
    const files = template('todo-react');
    const shared = bundler();
    const preview = await compileProject(new MemoryFileSystem(files), { esbuild, library, typecheck, bundler: shared }, { targets: ['client', 'server'], bundle: { preview: true }, typecheck: false });
    expect(preview.id).toBeUndefined();
    expect(decoder.decode(preview.files!.get('client/app.js'))).toContain(PREVIEW_VENDOR_GLOBAL);
    const asked = await compileProject(new MemoryFileSystem(files), { esbuild, library, typecheck, bundler: shared }, { bundle: { preview: true }, typecheck: false });
    const plain = await compileProject(new MemoryFileSystem(files), { esbuild, library, typecheck }, { typecheck: false });
    expect(plain.id).toMatch(/^sha256:/);
    expect(asked.id).toBe(plain.id);
    for (const [path, bytes] of plain.files!) expect(asked.files!.get(path), path).toEqual(bytes);
  });
});
