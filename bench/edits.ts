/**
 * Edit to preview updated in every template, for a client edit and a server edit (issue 16's goal: p50
 * < 150 ms, p95 < 300 ms, any quiet window included), in headless Chromium against the built playground.
 *
 * Each template is opened from the start page in the page the first-preview rows used (the compiler
 * worker is up and warm: the todo edits ran on it first), some data is put in through the app's own UI
 * where the server edit needs a row to show, and then each kind of edit is made through CodeMirror's
 * view, one after a pause as a person makes one (see editToPreview in playground.ts): a few unmeasured
 * first (the project's own first rebuilds and the first runtime restart), then the measured ones.
 *
 * What is timed, per edit, from the moment the change is dispatched (the page's clock):
 * - the preview updated: the first `platform:preview-ready` mark after the edit (the new client's module
 *   has run in the frame: its first render is done, a query's answer may not be; or, after a server
 *   edit, the page was kept and its queries were sent again to the new server);
 * - the change seen: the edit's text in the preview frame's DOM. A MutationObserver is put in the
 *   preview pane's spare frame (`iframe.preview-frame-spare`, the document the next build's client
 *   starts in) and in the frame showing now (which a server edit keeps) before the edit and notes when
 *   the text appears, on the frame's clock turned into the page's (both `performance.timeOrigin +
 *   now()`). The goal rows take the later of the two: a server edit's change shows once the query's
 *   answer has rendered, after the mark.
 * Where the time goes: the quiet window (edit to `platform:compile-start`), the build (to
 * `platform:compile-done`; its detail is the worker's own timings), the runtime's restart on the new
 * server bundle (to `platform:runtime-started`, server edits only: a client edit keeps the runtime), the
 * preview reloaded or refreshed (to `platform:preview-ready`), and the change seen after that.
 */
import type { Page } from '@playwright/test';
import { AdaptiveQuietWindow } from '../src/core/compile-loop';
import { median, percentile, type Row } from './stats';

/** Measured edits per kind per template, after WARM_UP unmeasured ones. */
const EDITS = 15;
const WARM_UP = 3;

type App = ReturnType<Page['frameLocator']>;

/** One kind of edit: the text between `before` and the next `after` in `file` becomes `insert(n)`, and the preview shows `shows(n)`. */
interface Edit {
  /** The file's name in the tree. */
  file: string;
  before: string;
  after: string;
  insert(n: number): string;
  shows(n: number): string;
  /** The query whose answer shows the change (server edits). */
  query?: string;
}

interface Template {
  id: string;
  heading: string;
  /** Puts in, through the app's UI, the data the server edit changes the look of. */
  seed?(app: App): Promise<void>;
  server: Edit & { what: string };
}

const clientEdit = (heading: string): Edit => ({ file: 'main.tsx', before: '<h1>', after: '</h1>', insert: (n) => `${heading} ${n}`, shows: (n) => `${heading} ${n}` });

/** A field of a list query's rows changed in the server handler (`title: row.title` becomes `` title: `${row.title} v<n>` ``). */
const fieldEdit = (query: string, before: string, field: string, after: string, value: string): Template['server'] => ({
  query,
  what: `${field} of each row in the list query`,
  file: 'index.ts',
  before,
  after,
  insert: (n) => `\`\${row.${field}} v${n}\``,
  shows: (n) => `${value} v${n}`,
});

/** The todo app (Preact or React): a todo added through its form, and its list query's title edited. */
function todoTemplate(id: 'todo' | 'todo-react'): Template {
  return {
    id,
    heading: 'Todos',
    async seed(app) {
      await app.getByLabel('New todo').fill('Water the plants');
      await app.getByRole('button', { name: 'Add' }).click();
      await app.getByText('Water the plants').waitFor();
    },
    server: fieldEdit('todos.list', '({ id: row.id, title: ', 'title', ', done: row.done', 'Water the plants'),
  };
}

const TEMPLATES: Template[] = [
  todoTemplate('todo'),
  // The same app with React as its renderer.
  todoTemplate('todo-react'),
  {
    id: 'files',
    heading: 'Files',
    async seed(app) {
      await app.locator('input[type=file]').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello from the bench\n') });
      await app.getByRole('link', { name: 'notes.txt' }).waitFor();
    },
    server: fieldEdit('files.list', '({ id: row.id, name: ', 'name', ', contentType: row.contentType', 'notes.txt'),
  },
  {
    id: 'team-board',
    heading: 'Team board',
    async seed(app) {
      await app.getByLabel('New card').fill('Write the release notes');
      await app.getByRole('button', { name: 'Add', exact: true }).click();
      await app.getByText('Write the release notes').waitFor();
    },
    server: fieldEdit('cards.list', '({ id: row.id, title: ', 'title', ', column: row.column', 'Write the release notes'),
  },
  {
    id: 'endpoints',
    heading: 'Endpoints and streams',
    // The template's one query: its count offset by n, shown as "<n> visits" (no visit made: the count is 0).
    server: {
      what: 'the visits.count query\'s result',
      query: 'visits.count',
      file: 'index.ts',
      before: "'visits.count': query({ input: { path: 'string' }, handler: async (ctx, input) => ",
      after: ' }),\n  },\n  endpoints',
      insert: (n) => `(await ctx.db.table('visits').count({ where: { path: input.path } })) + ${n}`,
      shows: (n) => `${n} visits`,
    },
  },
];

/** One edit's times, ms after the edit (the page's clock); undefined where the step did not happen. */
interface Sample {
  ready: number;
  /** Whether the preview kept its page (a server edit: its queries ran again on the new server) instead of loading again. */
  kept: boolean;
  seen: number | undefined;
  /** Whether `seen` was noted by the observer in the frame (else: an upper bound, read after the mark). */
  observed: boolean;
  compileStart?: number;
  compileDone?: number;
  runtimeStarted?: number;
  worker?: { analyze: number; focusCheck: number; typecheck: number; bundle: number; total: number };
  runtime?: Record<string, number>;
  /** The server edit's query from the new preview: its first call, sent and answered. */
  query?: Call;
}

/** Marks as the page has them: name, time, detail. */
function marks(page: Page, since: number): Promise<{ name: string; at: number; detail: unknown }[]> {
  return page.evaluate(
    (after) =>
      performance
        .getEntriesByType('mark')
        .filter((e) => e.name.startsWith('platform:') && e.startTime > after)
        .map((e) => ({ name: e.name, at: e.startTime, detail: (e as PerformanceMark).detail as unknown })),
    since,
  );
}

async function waitForReady(page: Page, after: number): Promise<number> {
  for (let i = 0; i < 1500; i++) {
    const at = await page.evaluate((since) => performance.getEntriesByName('platform:preview-ready').map((e) => e.startTime).find((t) => t > since), after);
    if (at !== undefined) return at;
    await page.waitForTimeout(20);
  }
  throw new Error('The preview did not become ready');
}

/**
 * Puts an observer in the preview frames that may show the change (the spare, where a new client starts,
 * and the one showing now, which a server edit keeps) that notes (in `globalThis.__benchSeen`, epoch ms)
 * when `text` first appears in its document. False when there is no spare frame loaded.
 */
async function watchFrames(page: Page, text: string): Promise<boolean> {
  const spare = page.locator('iframe.preview-frame-spare');
  for (let i = 0; i < 100 && (await spare.count()) === 0; i++) await page.waitForTimeout(20);
  const watched = await watchFrame(page, 'iframe.preview-frame', text);
  return (await spare.count()) === 1 && (await watchFrame(page, 'iframe.preview-frame-spare', text)) && watched;
}

async function watchFrame(page: Page, selector: string, text: string): Promise<boolean> {
  const frame = await (await page.locator(selector).first().elementHandle())?.contentFrame();
  if (!frame) return false;
  // The srcdoc's document (the bootstrap's), not the initial about:blank one.
  await frame.waitForFunction(() => document.readyState === 'complete' && document.getElementById('app') !== null, undefined, { timeout: 5_000 });
  // No named functions inside: the frame does not have tsx's __name helper.
  return frame.evaluate((expected) => {
    const g = globalThis as unknown as { __benchSeen?: number; __benchObserver?: MutationObserver };
    g.__benchSeen = undefined;
    g.__benchObserver?.disconnect();
    const observer = new MutationObserver(() => {
      if (g.__benchSeen === undefined && (document.body.textContent ?? '').includes(expected)) {
        g.__benchSeen = performance.timeOrigin + performance.now();
        observer.disconnect();
      }
    });
    observer.observe(document, { subtree: true, childList: true, characterData: true });
    g.__benchObserver = observer;
    // The client module's calls (its host's send, straight to the runtime worker; undefined: it uses
    // fetch instead): when each was sent and answered, for where the time after the first render goes.
    const host = (globalThis as unknown as Record<symbol, { send(...args: unknown[]): Promise<unknown>; fetch(path: string, init?: unknown): Promise<unknown> } | undefined>)[Symbol.for('platform.client.host')];
    const calls: { name: string; sent: number; answered?: number; direct?: boolean; fellBack?: boolean }[] = [];
    (g as { __benchCalls?: typeof calls }).__benchCalls = calls;
    if (host) {
      const send = host.send.bind(host);
      host.send = (...args: unknown[]) => {
        const call: (typeof calls)[number] = { name: String(args[1]), sent: performance.timeOrigin + performance.now() };
        calls.push(call);
        const answer = send(...args);
        void answer.then(
          (value) => {
            call.answered = performance.timeOrigin + performance.now();
            call.direct = value !== undefined;
            // Undefined: no port to the worker yet; the client module sends the call over fetch (below).
            call.fellBack = value === undefined;
          },
          () => undefined,
        );
        return answer;
      };
      const fetch = host.fetch.bind(host);
      host.fetch = (path: string, init?: unknown) => {
        const wire = /^\/_platform\/v0\/(?:query|mutation)\/([^/?]+)/.exec(path);
        const sent = performance.timeOrigin + performance.now();
        const answer = fetch(path, init);
        if (wire) {
          const call: (typeof calls)[number] = { name: decodeURIComponent(wire[1]!), sent, direct: false };
          calls.push(call);
          void answer.then(
            () => {
              call.answered = performance.timeOrigin + performance.now();
            },
            () => undefined,
          );
        }
        return answer;
      };
    }
    return true;
  }, text);
}

/** When the preview frame showed `text`: the observer's note, else (no observer) when it is first found from here. */
type Call = { name: string; sent: number; answered?: number; direct?: boolean; fellBack?: boolean };

async function seenAt(page: Page, text: string, origin: number): Promise<{ at: number; observed: boolean; calls: Call[] }> {
  const frame = await (await page.locator('iframe.preview-frame').first().elementHandle())?.contentFrame();
  if (!frame) throw new Error('No preview frame');
  const found = await frame.waitForFunction(
    (expected) => {
      const noted = (globalThis as unknown as { __benchSeen?: number }).__benchSeen;
      const calls = (globalThis as unknown as { __benchCalls?: unknown[] }).__benchCalls ?? [];
      if (noted !== undefined) return { at: noted, observed: true, calls };
      return (document.body?.textContent ?? '').includes(expected) ? { at: performance.timeOrigin + performance.now(), observed: false, calls } : false;
    },
    text,
    { timeout: 30_000, polling: 'raf' },
  );
  const { at, observed, calls } = (await found.jsonValue()) as { at: number; observed: boolean; calls: Call[] };
  const local = (t: number | undefined) => (t === undefined ? undefined : t - origin);
  return { at: at - origin, observed, calls: calls.map((c) => ({ ...c, sent: c.sent - origin, answered: local(c.answered) })) };
}

async function openFile(page: Page, name: string): Promise<void> {
  await page.getByRole('treeitem', { name, exact: true }).click();
  await page.getByRole('tab', { name: new RegExp(name.replace('.', '\\.')), selected: true }).waitFor();
}

/** Makes one edit after the pause and times it. */
async function timedEdit(page: Page, edit: Edit, n: number, origin: number): Promise<Sample> {
  await page.waitForTimeout(new AdaptiveQuietWindow().burstMs + 50);
  const expected = edit.shows(n);
  const watching = await watchFrames(page, expected);
  const edited = await page.locator('.cm-content').evaluate(
    (el, { before, after, insert }) => {
      const view = (el as unknown as { cmTile: { root: { view: { state: { doc: { toString(): string } }; dispatch(spec: unknown): void } } } }).cmTile.root.view;
      const text = view.state.doc.toString();
      const start = text.indexOf(before);
      const end = text.indexOf(after, start + before.length);
      if (start < 0 || end < 0) throw new Error(`The bench's edit does not find ${JSON.stringify(start < 0 ? before : after)} in the file`);
      const at = performance.now();
      view.dispatch({ changes: { from: start + before.length, to: end, insert } });
      return at;
    },
    { before: edit.before, after: edit.after, insert: edit.insert(n) },
  );
  const ready = await waitForReady(page, edited);
  const seen = await seenAt(page, expected, origin);
  const sample: Sample = { ready: ready - edited, kept: false, seen: seen.at - edited, observed: watching && seen.observed };
  const call = edit.query === undefined ? undefined : seen.calls.find((c) => c.name === edit.query && !c.fellBack);
  if (call) sample.query = { ...call, sent: call.sent - edited, ...(call.answered !== undefined ? { answered: call.answered - edited } : {}) };
  const after = (await marks(page, edited)).filter((m) => m.at <= ready);
  sample.kept = (after.find((m) => m.name === 'platform:preview-ready' && m.at === ready)?.detail as { page?: string } | undefined)?.page === 'kept';
  const start = after.filter((m) => m.name === 'platform:compile-start').at(-1);
  if (start) {
    sample.compileStart = start.at - edited;
    const done = after.find((m) => m.name === 'platform:compile-done' && m.at > start.at);
    if (done) {
      sample.compileDone = done.at - edited;
      if (done.detail) sample.worker = done.detail as Sample['worker'];
      const started = after.find((m) => m.name === 'platform:runtime-started' && m.at > done.at);
      if (started) {
        sample.runtimeStarted = started.at - edited;
        sample.runtime = started.detail as Record<string, number>;
      }
    }
  }
  return sample;
}

async function openTemplate(page: Page, template: Template): Promise<void> {
  await page.evaluate(() => {
    location.hash = '#/';
  });
  const card = page.locator(`[data-template="${template.id}"]`);
  await card.waitFor();
  const clicked = await page.evaluate(() => performance.now());
  await card.click();
  await waitForReady(page, clicked);
  const app = page.frameLocator('iframe.preview-frame');
  await app.getByRole('heading', { name: template.heading, level: 1 }).waitFor();
  await template.seed?.(app);
}

const p50 = (values: (number | undefined)[]) => median(values.filter((v): v is number => v !== undefined && !Number.isNaN(v)));

function rowsOf(template: string, kind: 'client' | 'server', what: string, samples: Sample[]): Row[] {
  const total = samples.map((s) => Math.max(s.ready, s.seen ?? s.ready));
  const server = kind === 'server';
  const label = `${template}, ${kind} edit`;
  const observed = samples.filter((s) => s.observed).length;
  const rows: Row[] = [
    { name: `${label} (${what}): edit to change seen in the preview, p50 of ${samples.length} (goal < 150)`, value: median(total), unit: 'ms' },
    { name: `${label}: edit to change seen in the preview, p95 (goal < 300)`, value: percentile(total, 95), unit: 'ms' },
    { name: `  ${label}: edit to preview-ready mark, p50`, value: median(samples.map((s) => s.ready)), unit: 'ms' },
    { name: `  ${label}, at p50: quiet window (edit to build start)`, value: p50(samples.map((s) => s.compileStart)), unit: 'ms' },
    { name: `  ${label}, at p50: build (compile-start to compile-done)`, value: p50(samples.map((s) => (s.compileDone ?? NaN) - (s.compileStart ?? NaN))), unit: 'ms' },
    { name: `  ${label}, at p50:   in the worker (its total; type check ${Math.round(p50(samples.map((s) => s.worker?.typecheck)))}, bundle ${Math.round(p50(samples.map((s) => s.worker?.bundle)))} alongside)`, value: p50(samples.map((s) => s.worker?.total)), unit: 'ms' },
  ];
  if (server) {
    rows.push(
      { name: `  ${label}, at p50: runtime restart (compile-done to runtime-started)`, value: p50(samples.map((s) => (s.runtimeStarted ?? NaN) - (s.compileDone ?? NaN))), unit: 'ms' },
      { name: `  ${label}, at p50:   of it the runtime's start (sandbox ${Math.round(p50(samples.map((s) => s.runtime?.frame)))}, server bundle ${Math.round(p50(samples.map((s) => s.runtime?.server)))}, in the worker ${Math.round(p50(samples.map((s) => s.runtime?.total)))})`, value: p50(samples.map((s) => s.runtime?.overall)), unit: 'ms' },
      { name: `  ${label}, at p50:   of it the flush of committed state before the start`, value: p50(samples.map((s) => (s.runtimeStarted ?? NaN) - (s.compileDone ?? NaN) - (s.runtime?.overall ?? NaN))), unit: 'ms' },
      { name: `  ${label}, at p50: preview reload or refresh (runtime-started to preview-ready; ${samples.filter((s) => s.kept).length} of ${samples.length} kept the page and ran its queries again)`, value: p50(samples.map((s) => s.ready - (s.runtimeStarted ?? NaN))), unit: 'ms' },
    );
  } else {
    rows.push({ name: `  ${label}, at p50: preview reload (compile-done to preview-ready)`, value: p50(samples.map((s) => s.ready - (s.compileDone ?? NaN))), unit: 'ms' });
  }
  rows.push({ name: `  ${label}, at p50: preview-ready to change seen (${observed} of ${samples.length} observed in the frame)`, value: p50(samples.map((s) => (s.seen === undefined ? NaN : Math.max(0, s.seen - s.ready)))), unit: 'ms' });
  const queried = samples.filter((s) => s.query?.answered !== undefined);
  if (server && queried.length) {
    const direct = queried.filter((s) => s.query!.direct).length;
    rows.push(
      { name: `  ${label}, at p50:   preview-ready to its query sent (${samples[0]!.query!.name})`, value: p50(queried.map((s) => s.query!.sent - s.ready)), unit: 'ms' },
      { name: `  ${label}, at p50:   the query's round trip (${direct} of ${queried.length} on the port to the runtime worker, the rest over fetch)`, value: p50(queried.map((s) => s.query!.answered! - s.query!.sent)), unit: 'ms' },
      { name: `  ${label}, at p50:   its answer to the change seen`, value: p50(queried.map((s) => (s.seen ?? NaN) - s.query!.answered!)), unit: 'ms' },
    );
  }
  return rows;
}

/**
 * Every template's client and server edits (or only those of the templates named), on `page` (the
 * playground open, the compiler worker ready). Leaves the page on the last template's project.
 */
export async function templateEditRows(page: Page, only?: readonly string[]): Promise<Row[]> {
  const origin = await page.evaluate(() => performance.timeOrigin);
  const rows: Row[] = [];
  for (const template of TEMPLATES.filter((t) => !only || only.includes(t.id))) {
    await openTemplate(page, template);
    for (const [kind, edit] of [['client', clientEdit(template.heading)], ['server', template.server]] as const) {
      await openFile(page, edit.file);
      const samples: Sample[] = [];
      for (let i = 0; i < WARM_UP + EDITS; i++) {
        const sample = await timedEdit(page, edit, 100 + i, origin);
        if (i >= WARM_UP) samples.push(sample);
      }
      rows.push(...rowsOf(template.id, kind, kind === 'client' ? 'the heading' : template.server.what, samples));
    }
  }
  return rows;
}
