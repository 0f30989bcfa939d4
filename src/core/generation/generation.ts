/**
 * A generation: one servable build of an app, its manifest and its files by artifact path, as
 * `platform dev`, `platform preview` and the playground serve it; and what two generations share
 * (the server side, the client), which decides whether a promotion restarts the engine and whether a
 * preview loads again.
 */
import { sameContent } from '../bytes.ts';
import { canonicalJson } from '../hash/index.ts';
import type { Manifest } from '../manifest/index.ts';

/** One servable build of an app: its manifest and its files by artifact path (`client/…`, `server/index.js`, `public/…`). */
export interface Generation {
  manifest: Manifest;
  files: ReadonlyMap<string, Uint8Array>;
}

/** The server's bundle, and its source map. */
export const SERVER_BUNDLE = 'server/index.js';
export const SERVER_MAP = 'server/index.js.map';
/** The client's bundle, its styles and its source map. */
export const CLIENT_BUNDLE = 'client/app.js';
export const CLIENT_STYLES = 'client/app.css';
export const CLIENT_MAP = 'client/app.js.map';
/** Where the app's public/ files are among a generation's files. */
export const PUBLIC_PREFIX = 'public/';

const decoder = new TextDecoder();
/** Each generation's files decoded once, by path: a file map is never changed once made. */
const decoded = new WeakMap<ReadonlyMap<string, Uint8Array>, Map<string, string>>();

/** One of a generation's files as text (undefined when it has none at that path). */
export function generationText(generation: Generation, path: string): string | undefined {
  const bytes = generation.files.get(path);
  if (bytes === undefined) return undefined;
  let texts = decoded.get(generation.files);
  if (!texts) decoded.set(generation.files, (texts = new Map()));
  let text = texts.get(path);
  if (text === undefined) texts.set(path, (text = decoder.decode(bytes)));
  return text;
}

/** The app's public/ files as texts, by their path under public/ (what the previews serve at /). */
export function publicTexts(generation: Generation): Record<string, string> {
  const out: Record<string, string> = {};
  for (const path of generation.files.keys()) if (path.startsWith(PUBLIC_PREFIX)) out[path.slice(PUBLIC_PREFIX.length)] = generationText(generation, path)!;
  return out;
}

/** The page around a generation's client: its title and language, from the manifest. */
export function clientPage(generation: Pick<Generation, 'manifest'>): { title: string; lang: string } {
  return { title: generation.manifest.app?.title ?? generation.manifest.name, lang: generation.manifest.app?.language ?? 'en' };
}

const isServerFile = (path: string): boolean => path.startsWith('server/');
/**
 * A source map: what runs is the same without it (an edit of a comment moves the map, not the code),
 * and whoever maps a stack takes the newest generation's.
 */
const isMap = (path: string): boolean => path.endsWith('.map');

/** Whether the files of one side (the server's, or every other), source maps aside, are the same in both. */
function sameSide(a: Generation, b: Generation, server: boolean): boolean {
  const paths = (g: Generation) => [...g.files.keys()].filter((path) => isServerFile(path) === server && !isMap(path));
  const ours = paths(a);
  if (ours.length !== paths(b).length) return false;
  return ours.every((path) => {
    const theirs = b.files.get(path);
    return theirs !== undefined && sameContent(a.files.get(path)!, theirs);
  });
}

/**
 * Whether two generations have the same server side: the same server files (source maps aside) and
 * the same manifest. A promotion of one with the same server side keeps the engine (and its data in
 * memory) running.
 */
export function sameServer(a: Generation, b: Generation): boolean {
  return (a === b || sameSide(a, b, true)) && canonicalJson(a.manifest) === canonicalJson(b.manifest);
}

/**
 * Whether two generations show the same client: the same client and public files (source maps aside),
 * and the same page around them (title and language). A preview of one whose client is the same keeps
 * its page and runs its queries again when only the server changed.
 */
export function sameClient(a: Generation, b: Generation): boolean {
  return (a === b || sameSide(a, b, false)) && canonicalJson(clientPage(a)) === canonicalJson(clientPage(b));
}
