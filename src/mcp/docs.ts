/** The project's documentation as the tool server serves it: an index, each page, and a ranked search over their sections (`platform.docs-search.v0`). */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import MiniSearch from 'minisearch';

export const DOCS_SEARCH_PROTOCOL = 'platform.docs-search.v0';
export const DOCS_ROOT = join(import.meta.dirname, '../../docs');

export interface DocPage {
  /** The page's path under docs/, for example `cli.md`. */
  path: string;
  uri: string;
  title: string;
}

interface Section {
  id: number;
  path: string;
  title: string;
  heading: string;
  text: string;
}

export interface DocsSearchResult {
  protocol: typeof DOCS_SEARCH_PROTOCOL;
  query: string;
  results: Array<{ path: string; uri: string; title: string; heading: string; score: number; excerpt: string }>;
}

export class Docs {
  readonly pages: DocPage[];
  readonly #texts = new Map<string, string>();
  #index: MiniSearch<Section> | undefined;
  #sections: Section[] = [];

  constructor(readonly root: string = DOCS_ROOT) {
    this.pages = readdirSync(root)
      .filter((name) => name.endsWith('.md'))
      .sort()
      .map((path) => {
        const text = readFileSync(join(root, path), 'utf8');
        this.#texts.set(path, text);
        return { path, uri: `platform://docs/${path}`, title: /^#\s+(.+)$/m.exec(text)?.[1]?.trim() ?? path };
      });
  }

  /** A page's text by its path under docs/; only the pages of the index are served. */
  read(path: string): string | undefined {
    return this.#texts.get(path);
  }

  #sectionIndex(): MiniSearch<Section> {
    if (this.#index) return this.#index;
    for (const page of this.pages) {
      let heading = page.title;
      let lines: string[] = [];
      const flush = () => {
        if (lines.join('').trim()) this.#sections.push({ id: this.#sections.length, path: page.path, title: page.title, heading, text: lines.join('\n') });
        lines = [];
      };
      for (const line of this.#texts.get(page.path)!.split('\n')) {
        const match = /^#{1,4}\s+(.+)$/.exec(line);
        if (match) {
          flush();
          heading = match[1]!.trim();
        } else {
          lines.push(line);
        }
      }
      flush();
    }
    this.#index = new MiniSearch<Section>({ fields: ['heading', 'title', 'text'], storeFields: ['path', 'title', 'heading', 'text'] });
    this.#index.addAll(this.#sections);
    return this.#index;
  }

  /** The sections that best match the query, best first, at most `limit`. */
  search(query: string, limit: number): DocsSearchResult {
    const hits = this.#sectionIndex().search(query, { boost: { heading: 3, title: 2 }, prefix: true, fuzzy: 0.2, combineWith: 'OR' });
    const results = hits.slice(0, limit).map((hit) => {
      const section = this.#sections[hit.id as number]!;
      const words = hit.terms;
      const flat = section.text.replace(/\s+/g, ' ').trim();
      const at = Math.max(0, Math.min(...words.map((w) => flat.toLowerCase().indexOf(w.toLowerCase())).filter((i) => i >= 0), flat.length) - 80);
      return { path: section.path, uri: `platform://docs/${section.path}`, title: section.title, heading: section.heading, score: Math.round(hit.score * 1000) / 1000, excerpt: flat.slice(at, at + 320) };
    });
    return { protocol: DOCS_SEARCH_PROTOCOL, query, results };
  }
}
