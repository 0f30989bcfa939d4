import { describe, expect, it } from 'vitest';
import { stepHtml } from './lesson-pane';

describe('a step text from a stranger renders inert', () => {
  it('shows raw HTML as text', () => {
    const html = stepHtml('# Title\n\n<script>alert(1)</script>\n\n<img src=x onerror="alert(1)">');
    expect(html).not.toContain('<script');
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;script&gt;');
  });

  it('makes no link of a javascript: or data: URL, and opens real links in a tab of their own', () => {
    const html = stepHtml('[run](javascript:alert(1)) [data](data:text/html,x) [docs](https://example.com/a)');
    expect(html).not.toMatch(/href="(javascript|data):/);
    expect(html).toContain('<a href="https://example.com/a" target="_blank" rel="noopener noreferrer">docs</a>');
  });

  it("leaves out the title heading, and makes a button only of code naming one of the project's files, escaped", () => {
    const files = new Set(['src/server/index.ts', 'a"b.ts']);
    const html = stepHtml('# A first query\n\nEdit `src/server/index.ts`, not `src/other.ts`; `a"b.ts`.', files);
    expect(html).not.toContain('A first query');
    expect(html).toContain('<button type="button" class="lesson-file" data-open="src/server/index.ts" title="Open src/server/index.ts"><code>src/server/index.ts</code></button>');
    expect(html).toContain('<code>src/other.ts</code>');
    expect(html).toContain('data-open="a&quot;b.ts"');
  });

  it('gives a code block the focus, so the keyboard can scroll it', () => {
    expect(stepHtml('```ts\nconst x = 1;\n```')).toMatch(/^<pre tabindex="0"><code class="language-ts">/);
  });
});
