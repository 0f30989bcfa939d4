/** What two generations share (the server side, the client), which both `platform dev` and the playground decide with. */
import { describe, expect, it } from 'vitest';
import type { Manifest } from '../manifest/index.ts';
import { clientPage, type Generation, generationText, publicTexts, sameClient, sameServer } from './generation.ts';

const encoder = new TextEncoder();
const manifest = { name: 'notes', app: { title: 'Notes' } } as unknown as Manifest;

function generation(files: Record<string, string>, made: Manifest = manifest): Generation {
  return { manifest: made, files: new Map(Object.entries(files).map(([path, text]) => [path, encoder.encode(text)])) };
}

const base = { 'server/index.js': 'server 1', 'server/index.js.map': '{}', 'client/app.js': 'client 1', 'client/app.css': 'p{}', 'public/robots.txt': 'allow' };

describe('a generation', () => {
  it('gives its files as text and its public files by their path under public/', () => {
    const g = generation(base);
    expect(generationText(g, 'client/app.js')).toBe('client 1');
    expect(generationText(g, 'client/app.js')).toBe(generationText(g, 'client/app.js'));
    expect(generationText(g, 'client/none.js')).toBeUndefined();
    expect(publicTexts(g)).toEqual({ 'robots.txt': 'allow' });
    expect(clientPage(g)).toEqual({ title: 'Notes', lang: 'en' });
  });

  it('has the same server side as another with the same server files and manifest, whatever its client', () => {
    const a = generation(base);
    expect(sameServer(a, generation({ ...base, 'client/app.js': 'client 2', 'public/robots.txt': 'deny' }))).toBe(true);
    expect(sameServer(a, generation({ ...base, 'server/index.js': 'server 2' }))).toBe(false);
    // A source map moved by a comment's edit: the same code runs.
    expect(sameServer(a, generation({ ...base, 'server/index.js.map': '{"x":1}' }))).toBe(true);
    expect(sameServer(a, generation(base, { ...manifest, budgets: { liveConnections: 2 } } as Manifest))).toBe(false);
    const { 'server/index.js': _code, ...withoutCode } = base;
    expect(sameServer(a, generation(withoutCode))).toBe(false);
  });

  it('shows the same client as another with the same client and public files and page, whatever its server', () => {
    const a = generation(base);
    expect(sameClient(a, generation({ ...base, 'server/index.js': 'server 2' }, { ...manifest, budgets: { liveConnections: 2 } } as Manifest))).toBe(true);
    expect(sameClient(a, generation({ ...base, 'client/app.js.map': '{"x":1}' }))).toBe(true);
    expect(sameClient(a, generation({ ...base, 'client/app.css': 'p{color:red}' }))).toBe(false);
    expect(sameClient(a, generation({ ...base, 'public/robots.txt': 'deny' }))).toBe(false);
    expect(sameClient(a, generation({ ...base, 'public/new.txt': 'x' }))).toBe(false);
    expect(sameClient(a, generation(base, { ...manifest, app: { title: 'Other' } } as Manifest))).toBe(false);
    expect(sameClient(a, generation(base, { ...manifest, app: { title: 'Notes', language: 'fr' } } as Manifest))).toBe(false);
  });
});
