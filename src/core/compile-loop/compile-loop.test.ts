/**
 * The compile loop on its own, with an in-memory host: what each kind of outcome says and leaves
 * serving, the two policies' answers to a change that comes while a build runs, and a build the host
 * takes back.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { diagnostic } from '../diagnostics/index.ts';
import type { DevEvent } from '../local/index.ts';
import { CompileLoop, type Built, type CompileLoopHost, type Promoted, type QuietPolicy, type Settled } from './compile-loop.ts';

/** A generation: the text it was built from. */
type Gen = { text: string };

const loops: Array<CompileLoop<Gen>> = [];
afterEach(async () => {
  for (const loop of loops.splice(0)) await loop.close();
});

/**
 * A host whose "files" are one text: a build of text containing `broken` fails, one containing
 * `refuse` is refused by `promote` (the previous one restarted), `reject` is refused before promotion.
 * Builds take `buildMs`; `hold()` keeps the next build from ending until `release()`.
 */
function harness(policy: QuietPolicy, buildMs = 5) {
  let text = 'v1';
  const events: DevEvent[] = [];
  const settled: Array<Settled<Gen>> = [];
  const promoted: string[] = [];
  let held: (() => void) | undefined;
  let holding = false;
  let again = 0;
  const host: CompileLoopHost<Gen> = {
    now: () => performance.now(),
    emit: (event) => events.push(event),
    build: async () => {
      const built = text;
      await new Promise((resolve) => setTimeout(resolve, buildMs));
      if (holding) await new Promise<void>((resume) => (held = resume));
      if (built.includes('broken')) return { ok: false, diagnostics: [diagnostic('DG1205', `error in ${built}`)] } satisfies Built<Gen>;
      return { ok: true, generation: { text: built }, warnings: [] };
    },
    refuse: (next) => (next.text.includes('reject') ? { ...diagnostic('DG1605', 'needs a restart'), code: 'DG1605' } : undefined),
    promote: async (next): Promise<Promoted> => {
      if (next.text.includes('again') && again++ === 0) return { ok: false, again: true };
      if (next.text.includes('refuse')) return { ok: false, code: 'runtime_not_ready', message: 'it would not start.', previous: 'restarted' };
      promoted.push(next.text);
      return { ok: true, restarted: true };
    },
    settled: (outcome) => void settled.push(outcome),
  };
  const loop = new CompileLoop(host, policy);
  loops.push(loop);
  const until = async (predicate: () => boolean) => {
    for (let i = 0; i < 400 && !predicate(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(predicate()).toBe(true);
  };
  return {
    loop,
    events,
    settled,
    promoted,
    until,
    edit: (next: string) => {
      text = next;
      loop.changed(['src/app.ts']);
    },
    hold: () => (holding = true),
    release: () => {
      holding = false;
      held?.();
    },
    kinds: () => events.map((event) => (event.kind === 'compile.diagnostic' ? `${event.kind} ${event.code}` : event.kind)),
  };
}

const FIXED: QuietPolicy = { quietMs: () => 100, tentativeMs: 1 };
const DROPPING: QuietPolicy = { quietMs: () => 0, dropOvertaken: true };

describe('the compile loop: what a build comes to', () => {
  it('numbers each announced build; a failed first build leaves nothing serving, a failed rebuild keeps the last good one (DG1602)', async () => {
    const h = harness(FIXED);
    h.edit('broken v1');
    await h.loop.run();
    expect(h.events.at(-1)).toMatchObject({ kind: 'compile.diagnostic', code: 'DG1602', generation: 1, message: 'The build failed; nothing serves until a rebuild succeeds.' });
    expect(h.loop.serving).toBeUndefined();
    h.edit('v2');
    await h.until(() => h.promoted.length === 1);
    expect(h.loop.serving).toEqual({ text: 'v2' });
    h.edit('broken v3');
    await h.until(() => h.events.filter((e) => e.kind === 'compile.diagnostic').length === 2);
    expect(h.events.at(-1)).toMatchObject({ code: 'DG1602', generation: 3, message: 'The rebuild failed; the previous generation is still serving.', diagnostics: [expect.objectContaining({ message: 'error in broken v3' })] });
    expect(h.loop.serving).toEqual({ text: 'v2' });
    expect(h.settled.map((s) => s.kind)).toEqual(['failed', 'served', 'failed']);
  });

  it('a generation that cannot take over says so (DG1603) and the last good one serves; one the host refuses first (DG1605) is never promoted', async () => {
    const h = harness(FIXED);
    await h.loop.run();
    h.edit('refuse v2');
    await h.until(() => h.events.some((e) => e.kind === 'compile.diagnostic'));
    expect(h.events.at(-1)).toMatchObject({ code: 'DG1603', generation: 2, message: 'The new build could not take over (runtime_not_ready): it would not start. The last good generation serves again.' });
    h.edit('reject v3');
    await h.until(() => h.events.filter((e) => e.kind === 'compile.diagnostic').length === 2);
    expect(h.events.at(-1)).toMatchObject({ code: 'DG1605', generation: 3 });
    expect(h.promoted).toEqual(['v1']);
    expect(h.loop.serving).toEqual({ text: 'v1' });
  });

  it('a promotion the host takes back is built again at once, without a word', async () => {
    const h = harness(FIXED);
    h.edit('again v1');
    await h.loop.run();
    await h.until(() => h.promoted.length === 1);
    expect(h.kinds()).toEqual(['compile.start', 'compile.start', 'compile.ready']);
    expect(h.events.at(-1)).toMatchObject({ kind: 'compile.ready', generation: 2, restarted: true });
  });
});

describe('the compile loop: a change while a build runs', () => {
  it('with a tentative start, a change inside the window supersedes the build without a word; one after it lets the build serve, and the next follows', async () => {
    const h = harness(FIXED, 150);
    await h.loop.run();
    h.edit('v2');
    await new Promise((resolve) => setTimeout(resolve, 4));
    h.edit('v3');
    await h.until(() => h.promoted.length === 2);
    // One announced build took both changes.
    expect(h.kinds()).toEqual(['compile.start', 'compile.ready', 'compile.start', 'compile.ready']);
    expect(h.promoted).toEqual(['v1', 'v3']);
    // A change after the window, while the build still runs: that build serves, then the next.
    h.edit('v4');
    await h.until(() => h.events.length === 5);
    h.edit('v5');
    await h.until(() => h.promoted.length === 4);
    expect(h.promoted).toEqual(['v1', 'v3', 'v4', 'v5']);
  });

  it('when the policy drops what is overtaken, a build a change came after never serves', async () => {
    const h = harness(DROPPING);
    await h.loop.run();
    h.hold();
    h.edit('old');
    await h.until(() => h.events.length === 3);
    h.edit('new');
    await new Promise((resolve) => setTimeout(resolve, 20));
    h.release();
    await h.until(() => h.promoted.length === 2);
    expect(h.promoted).toEqual(['v1', 'new']);
    // The overtaken build was announced (generation 2) and said nothing more.
    expect(h.kinds()).toEqual(['compile.start', 'compile.ready', 'compile.start', 'compile.start', 'compile.ready']);
    expect(h.events.at(-1)).toMatchObject({ kind: 'compile.ready', generation: 3 });
  });
});
