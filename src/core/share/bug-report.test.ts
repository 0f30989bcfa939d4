import { describe, expect, it } from 'vitest';
import { diagnostic } from '../diagnostics';
import type { TestFailure } from '../testing';
import { bugReport, MAX_REPORT_ITEMS, MAX_REPORT_LINK_CHARS } from './bug-report';

const link = 'https://play.example/#v1.AAAA_-';
const failure: TestFailure = {
  ...diagnostic('DG1904', 'expect(received).toHaveLength(expected)', { file: 'tests/todos.test.ts', span: { line: 12, column: 5 } }),
  test: 'owners see only their own rows',
  kind: 'assertion',
  matcher: 'toHaveLength',
  expected: '1',
  actual: '0',
};

describe('bug report Markdown', () => {
  it('has the link, the failing test with matcher, expected and actual, the persona and the version', () => {
    const text = bugReport({ link, persona: 'bob', version: '0.1.0', project: 'todo', failures: [failure] });
    expect(text).toBe(
      [
        '### Bug report: `todo` (1 failing test)',
        '',
        '**Reproduce**: open the link; it makes a new project with these files and data, previewed as the same persona.',
        '',
        `<${link}>`,
        '',
        '**Failing tests**',
        '',
        '- `owners see only their own rows`',
        '',
        '```text',
        'error DG1904: expect(received).toHaveLength(expected)',
        '  at tests/todos.test.ts:12:5',
        '  kind: assertion',
        '  matcher: toHaveLength',
        '  expected: 1',
        '  actual:   0',
        '```',
        '',
        '| | |',
        '|---|---|',
        '| persona | `bob` |',
        '| playground | `0.1.0` |',
        '',
      ].join('\n'),
    );
  });

  it('lists diagnostics with location and attribution when no test failed', () => {
    const text = bugReport({
      link,
      persona: 'alice',
      version: 'v1',
      diagnostics: [
        diagnostic('DG1205', 'Property x does not exist.', { file: 'src/client/main.tsx', span: { line: 3, column: 7 }, causedBy: 'DG1303' }),
        diagnostic('DG1303', 'Bad operation name.', { file: 'src/server/index.ts', primary: true }),
      ],
    });
    expect(text).toContain('### Bug report (DG1205)');
    expect(text).toContain('src/client/main.tsx:3:7: error DG1205: Property x does not exist. (caused by DG1303)');
    expect(text).toContain('src/server/index.ts: error DG1303: Bad operation name. (primary)');
    expect(text).not.toContain('Failing tests');
  });

  it('cannot be broken out of by backticks, and caps long values and long lists', () => {
    const nasty: TestFailure = { ...failure, test: 'a `b` ``c``', actual: '```\n# injected heading\n```' + 'x'.repeat(5000) };
    const many = Array.from({ length: MAX_REPORT_ITEMS + 3 }, () => nasty);
    const text = bugReport({ link, persona: 'guest', version: '1', failures: many });
    expect(text).toContain('- ``` a `b` ``c`` ```');
    expect(text).toContain('````text\n');
    expect(text).toContain('more characters)');
    expect(text).toContain('…and 3 more failing tests.');
    expect(text.match(/````text/g)).toHaveLength(MAX_REPORT_ITEMS);
  });

  it('leaves out a link too long for an issue body, and says so', () => {
    const text = bugReport({ link: `https://p/#v1.${'A'.repeat(MAX_REPORT_LINK_CHARS)}`, persona: 'alice', version: '1' });
    expect(text).not.toContain('AAAA');
    expect(text).toMatch(/too long for an issue: attach the project as a zip/);
    expect(text).toContain('_No failing test or diagnostic was reported._');
  });

  it('is pure: the same input gives the same text', () => {
    const input = { link, persona: 'bob' as const, version: '0.1.0', failures: [failure], note: 'It shows nothing.' };
    expect(bugReport(input)).toBe(bugReport(input));
    expect(bugReport(input)).toContain('It shows nothing.');
  });
});
