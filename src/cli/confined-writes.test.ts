/**
 * Attacker tests of writes under a project, through the real CLI: a project cloned from a stranger
 * ships links under `.platform/` pointing at the person's files (a temporary "home" here). `platform
 * dev` must write nothing through them and stop with DG1813; `state reset` must not move the state
 * through a linked `.platform/`; `export --out` must make no folder outside the project.
 */
import { cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../testing/cli';
import { DevProcess } from '../testing/dev-process';
import { processesNaming } from '../testing/control-plane';

const TEMPLATES = join(import.meta.dirname, '../../templates');
const made: string[] = [];

function temporary(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

function copyTemplate(name: string): string {
  const root = temporary(`platform-confined-${name}-`);
  cpSync(join(TEMPLATES, name), root, { recursive: true });
  return root;
}

async function cli(cwd: string, ...args: string[]): Promise<{ code: number; json: { ok: boolean; diagnostics: Array<{ code: string; message: string }>; result?: any } }> {
  const { code, stdout } = await runInProcess([...args, '--json'], { cwd });
  return { code, json: JSON.parse(stdout) };
}

const codes = (r: { json: { diagnostics: Array<{ code: string }> } }) => r.json.diagnostics.map((d) => d.code);

/** The workerd processes still running for a project's dev server. */
const engines = (root: string) => processesNaming(join(root, '.platform/engines/dev')).filter((p) => p.state !== 'Z' && p.state !== 'X');

/** Runs `platform dev` on a project holding a planted link; it must end by itself with DG1813 and nothing written at the link's target. */
async function devRefused(root: string): Promise<{ message: string }> {
  const dev = new DevProcess(['dev', '--json', '--port', '0'], root);
  const status = await Promise.race([dev.exited, new Promise<'running'>((done) => setTimeout(() => done('running'), 120_000))]);
  if (status === 'running') await dev.stop();
  expect(status).toBe(1);
  expect(dev.stderr).not.toContain('DG0000');
  const last = dev.events.at(-1)!;
  expect(last).toMatchObject({ protocol: 'platform.command.v0', command: 'dev', ok: false, diagnostics: [{ code: 'DG1813' }] });
  expect(dev.events.some((event) => event.kind === 'preview.ready')).toBe(false);
  expect(engines(root)).toEqual([]);
  return (last.diagnostics as Array<{ message: string }>)[0]!;
}

afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

describe('platform dev never writes through a link under .platform/', () => {
  it('a dangling link at .platform/engines/dev/modules/<sha256>.mjs: the server bundle is not written to ~/.bash_aliases; DG1813, dev stops', async () => {
    const root = copyTemplate('todo');
    const home = temporary('platform-home-');
    // A first run, as the stranger made it, names the module file; export --out into a missing folder meanwhile.
    const first = new DevProcess(['dev', '--json', '--port', '0'], root);
    try {
      await first.kind('preview.ready');
      const missing = join(temporary('platform-export-'), 'nonexistent');
      const exported = await cli(root, 'export', '--state', 'dev', '--out', `${missing}/x.json`);
      expect(codes(exported)).toEqual(['DG1821']);
      expect(exported.json.diagnostics[0]!.message).toContain('does not exist');
      expect(existsSync(missing)).toBe(false);
    } finally {
      await first.stop();
    }
    const modules = join(root, '.platform/engines/dev/modules');
    const [module] = readdirSync(modules).filter((name) => name.endsWith('.mjs'));
    expect(module).toMatch(/^[0-9a-f]{64}\.mjs$/);
    rmSync(join(root, '.platform'), { recursive: true });
    mkdirSync(modules, { recursive: true });
    symlinkSync(join(home, '.bash_aliases'), join(modules, module!));
    const refused = await devRefused(root);
    expect(refused.message).toContain(`.platform/engines/dev/modules/${module}`);
    expect(readdirSync(home)).toEqual([]);
    expect(lstatSync(join(modules, module!)).isSymbolicLink()).toBe(true);
    // No discovery record was left behind to point at a server that is not there.
    expect(existsSync(join(root, '.platform/servers/dev.json'))).toBe(false);
  }, 300_000);

  it('a link at .platform/engines/dev/pool/shared-0/config.capnp (the engine process\'s config): the file it points to is left as it was; DG1813, dev stops', async () => {
    const root = copyTemplate('todo');
    const home = temporary('platform-home-');
    writeFileSync(join(home, 'victim.txt'), 'the person\'s file');
    mkdirSync(join(root, '.platform/engines/dev/pool/shared-0'), { recursive: true });
    symlinkSync(join(home, 'victim.txt'), join(root, '.platform/engines/dev/pool/shared-0/config.capnp'));
    const refused = await devRefused(root);
    expect(refused.message).toContain('config.capnp');
    expect(readFileSync(join(home, 'victim.txt'), 'utf8')).toBe('the person\'s file');
    expect(readdirSync(home)).toEqual(['victim.txt']);
  }, 300_000);

  it('a dangling link among the state\'s SQLite files (workerd writes them itself, following links): DG1813 before the engine starts', async () => {
    const root = copyTemplate('todo');
    const home = temporary('platform-home-');
    const first = new DevProcess(['dev', '--json', '--port', '0'], root);
    try {
      await first.kind('preview.ready');
    } finally {
      await first.stop();
    }
    const state = join(root, '.platform/state/dev');
    const files = readdirSync(state, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
    expect(files.length).toBeGreaterThan(0);
    rmSync(state, { recursive: true });
    for (const file of files) {
      const at = join(state, join(file.parentPath, file.name).slice(state.length + 1));
      mkdirSync(join(at, '..'), { recursive: true });
      symlinkSync(join(home, file.name), at);
    }
    const refused = await devRefused(root);
    expect(refused.message).toContain('.platform/state/dev/');
    expect(readdirSync(home)).toEqual([]);
  }, 300_000);

  it('a linked .platform/ itself: nothing is made in its target; DG1813, dev stops', async () => {
    const root = copyTemplate('todo');
    const home = temporary('platform-home-');
    symlinkSync(home, join(root, '.platform'));
    await devRefused(root);
    expect(readdirSync(home)).toEqual([]);
  }, 300_000);
});

describe('state and export never go through a link or make folders outside', () => {
  it('state reset refuses a symlinked .platform/ (DG1813): the state stays where the link points, no recovery copy is made there', async () => {
    const root = copyTemplate('todo');
    const home = temporary('platform-home-');
    mkdirSync(join(home, 'state/dev'), { recursive: true });
    writeFileSync(join(home, 'state/dev/data.sqlite'), 'rows');
    symlinkSync(home, join(root, '.platform'));
    const reset = await cli(root, 'state', 'reset', '--state', 'dev', '--confirm', 'todo');
    expect(codes(reset)).toEqual(['DG1813']);
    expect(reset.json.diagnostics[0]!.message).toContain('.platform');
    expect(readdirSync(home)).toEqual(['state']);
    expect(readFileSync(join(home, 'state/dev/data.sqlite'), 'utf8')).toBe('rows');
  });

  it('build and auth as through a link under .platform/: DG1813 in the envelope (not a DG0000 crash), nothing written at the target', async () => {
    const root = copyTemplate('todo');
    const home = temporary('platform-home-');
    writeFileSync(join(home, 'victim.txt'), 'the person\'s file');
    mkdirSync(join(root, '.platform'));
    symlinkSync(join(home, 'victim.txt'), join(root, '.platform/persona.json'));
    const persona = await cli(root, 'auth', 'as', 'bob');
    expect(codes(persona)).toEqual(['DG1813']);
    expect(persona.json.diagnostics[0]!.message).toContain('.platform/persona.json is a symbolic link');
    rmSync(join(root, '.platform'), { recursive: true });
    symlinkSync(home, join(root, '.platform'));
    const built = await cli(root, 'build');
    expect(codes(built)).toEqual(['DG1813']);
    expect(readdirSync(home)).toEqual(['victim.txt']);
    expect(readFileSync(join(home, 'victim.txt'), 'utf8')).toBe('the person\'s file');
  }, 120_000);

  it('export --out into a folder that does not exist: DG1821 before anything is asked of a server, and no folder is made', async () => {
    const root = copyTemplate('todo');
    const missing = join(temporary('platform-export-'), 'nonexistent');
    const exported = await cli(root, 'export', '--state', 'dev', '--out', `${missing}/x.json`);
    expect(codes(exported)).toEqual(['DG1821']);
    expect(existsSync(missing)).toBe(false);
  });
});
