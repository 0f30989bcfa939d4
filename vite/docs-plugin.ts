/**
 * The project's docs (docs/*.md) served with the playground under /docs/, so that the start page can
 * link to them: an index of the pages, and each page as its Markdown text in a page of its own, with
 * the references to other pages of docs/ made links. The playground runs from a checkout and there is
 * no docs site to link to; these are the docs as written, the same pages the tool server serves
 * (src/mcp/docs.ts). The dev server makes them on each request, the build writes them to dist/docs/.
 */
import { join } from 'node:path';
import type { Plugin } from 'vite';
import { Docs } from '../src/mcp/docs.ts';

export const DOCS_PREFIX = '/docs/';

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function htmlPage(title: string, body: string): string {
  const style =
    // Colours of their own in both schemes (the playground's palette, src/ui/styles.css): the browser's own dark link colour reads at 2.4:1.
    'body{font:15px/1.5 system-ui,sans-serif;margin:0 auto;padding:16px 24px;max-width:100ch;background:light-dark(#f7f7f9,#15161a);color:light-dark(#1c1d22,#e8e9ee)}' +
    'a{color:light-dark(#4f46e5,#8b85ff)}' +
    'pre{white-space:pre-wrap;overflow-wrap:anywhere;font:13px/1.5 ui-monospace,Menlo,monospace}nav{font-size:14px}';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8" />
<meta name="viewport" content="width=device-width, initial-scale=1" />
<meta name="color-scheme" content="light dark" />
<title>${escapeHtml(title)}</title>
<style>${style}</style>
</head>
<body>
${body}
</body>
</html>
`;
}

/** The pages under /docs/, by file name: `index.html`, and `<name>.html` for each docs/<name>.md. */
export function docsPages(root: string): Map<string, string> {
  const docs = new Docs(join(root, 'docs'));
  const known = new Set(docs.pages.map((page) => page.path));
  const htmlName = (path: string) => path.replace(/\.md$/, '.html');
  // `(cli.md)`, `(sharing.md#anchor)` (Markdown links) and `docs/runtime.md` (prose) naming a page of docs/.
  const linked = (text: string) =>
    text.replace(/(\(|\bdocs\/)([a-z0-9-]+\.md)((?:#[^)\s]*)?)/g, (whole, before: string, path: string, anchor: string) =>
      known.has(path) ? `${before}<a href="${htmlName(path)}">${path}${anchor}</a>` : whole,
    );
  const pages = new Map<string, string>();
  const list = docs.pages.map((page) => `<li><a href="${htmlName(page.path)}">${escapeHtml(page.title.replace(/`/g, ''))}</a> (${page.path})</li>`).join('\n');
  pages.set('index.html', htmlPage('Documentation', `<nav><a href="/">Back to the playground</a></nav>\n<h1>Documentation</h1>\n<ul>\n${list}\n</ul>`));
  for (const page of docs.pages) {
    const body = `<nav><a href="./">All docs</a> · <a href="/">Back to the playground</a></nav>\n<main><pre>${linked(escapeHtml(docs.read(page.path) ?? ''))}</pre></main>`;
    pages.set(htmlName(page.path), htmlPage(page.title.replace(/`/g, ''), body));
  }
  return pages;
}

export function docsPlugin(root: string): Plugin {
  return {
    name: 'platform-docs',
    configureServer(server) {
      server.middlewares.use((req, res, next) => {
        const path = req.url?.split(/[?#]/)[0];
        if (path === '/docs') {
          res.writeHead(301, { location: DOCS_PREFIX }).end();
          return;
        }
        if (!path?.startsWith(DOCS_PREFIX)) return next();
        const page = docsPages(root).get(path.slice(DOCS_PREFIX.length) || 'index.html');
        if (page === undefined) return next();
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
      });
    },
    generateBundle() {
      for (const [name, page] of docsPages(root)) this.emitFile({ type: 'asset', fileName: `docs/${name}`, source: page });
    },
  };
}
