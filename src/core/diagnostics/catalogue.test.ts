import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { catalogue, isDiagnosticCode } from './catalogue';
import { catalogueMarkdown } from './catalogue-doc';

const ROOT = join(import.meta.dirname, '../../..');
const SPEC = process.env.PLATFORM_SPEC_DIR ?? join(ROOT, '../shared/spec');
const CODE = /\bDG\d{4}\b/g;

function files(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) files(path, out);
    else if (/\.(ts|tsx|mjs|js|json|md|html)$/.test(name)) out.push(path);
  }
  return out;
}

describe('the diagnostic catalogue', () => {
  it('holds every code the specification names, and only those', () => {
    expect(existsSync(SPEC), `the specification is expected at ${SPEC} (set PLATFORM_SPEC_DIR)`).toBe(true);
    const named = new Set<string>();
    for (const file of readdirSync(SPEC).filter((f) => f.endsWith('.md'))) {
      for (const match of readFileSync(join(SPEC, file), 'utf8').matchAll(CODE)) named.add(match[0]);
    }
    expect(named.size).toBe(165);
    expect(Object.keys(catalogue).sort()).toEqual([...named].sort());
  });

  it('lacks no code that the project uses anywhere', () => {
    const unknown: string[] = [];
    for (const dir of ['src', 'worker', 'e2e', 'templates', 'docs', 'public', 'bin', 'scripts']) {
      const path = join(ROOT, dir);
      if (!existsSync(path)) continue;
      for (const file of files(path)) {
        for (const match of readFileSync(file, 'utf8').matchAll(CODE)) {
          if (!isDiagnosticCode(match[0])) unknown.push(`${relative(ROOT, file)}: ${match[0]}`);
        }
      }
    }
    expect(unknown).toEqual([]);
  });

  it('gives every entry a severity, a short title and repair text', () => {
    for (const [code, entry] of Object.entries(catalogue)) {
      expect(['error', 'warning', 'info'], code).toContain(entry.severity);
      expect(entry.title.length, code).toBeGreaterThan(3);
      expect(entry.title.endsWith('.'), code).toBe(false);
      expect(entry.repair.length, code).toBeGreaterThan(20);
    }
    expect(catalogue.DG1210.severity).toBe('warning');
    expect(catalogue.DG1406.severity).toBe('warning');
    expect(catalogue.DG1214.severity).toBe('info');
  });

  it('keeps its codes in ascending order, grouped by area', () => {
    const codes = Object.keys(catalogue);
    expect(codes).toEqual([...codes].sort());
    const areas = Object.values(catalogue).map((e) => e.area);
    const runs = areas.filter((area, i) => i === 0 || areas[i - 1] !== area);
    expect(new Set(runs).size).toBe(runs.length);
  });

  it('is published as docs/diagnostics.md, generated and current', () => {
    const published = readFileSync(join(ROOT, 'docs/diagnostics.md'), 'utf8');
    expect(published, 'run `npm run docs:diagnostics`').toBe(catalogueMarkdown());
  });
});
