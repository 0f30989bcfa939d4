/**
 * `platform dev --json` sessions for the dev tools: each a child process whose `platform.dev.v0` event
 * lines are kept in order, read by cursor (the index of the next event), with long polls that end as soon
 * as an event arrives or the process exits. A child that exits printing an envelope keeps it; one that
 * exits printing none gets a synthesized DG0000.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { DevSessionsHost, DevSessionView } from '../core/commands';
import { COMMAND_PROTOCOL, diagnostic, envelope, type CommandEnvelope } from '../core/diagnostics';

const BIN = join(import.meta.dirname, '../../bin/platform.mjs');

function parseEnvelope(text: string): CommandEnvelope | undefined {
  try {
    const value = JSON.parse(text) as CommandEnvelope;
    return value?.protocol === COMMAND_PROTOCOL ? value : undefined;
  } catch {
    return undefined;
  }
}

class DevSession {
  readonly events: unknown[] = [];
  envelope?: CommandEnvelope;
  exitCode?: number | null;
  url?: string;
  #stderr = '';
  /** Lines that were not one event each: a pretty-printed envelope spans several. */
  #rest: string[] = [];
  #waiters = new Set<() => void>();
  readonly exited: Promise<void>;

  constructor(readonly id: string, readonly directory: string, readonly child: ChildProcess) {
    createInterface({ input: child.stdout! }).on('line', (line) => this.#line(line));
    child.stderr!.on('data', (chunk: Buffer) => {
      this.#stderr = `${this.#stderr}${chunk.toString('utf8')}`.slice(-4000);
    });
    this.exited = new Promise((done) => {
      child.on('close', (code) => {
        this.exitCode = code;
        if (!this.envelope) this.envelope = parseEnvelope(this.#rest.join('\n'));
        if (!this.envelope) {
          const tail = this.#stderr.trim().split('\n').slice(-3).join(' ');
          const stopped = code === null || code === 0;
          this.envelope = envelope('dev', stopped ? [] : [diagnostic('DG0000', `platform dev exited with status ${code} without a result${tail ? `: ${tail}` : ''}.`, { hint: 'Run platform dev --json in a terminal to see the crash; set PLATFORM_DEBUG=1 for the stack trace.' })]);
        }
        this.#wake();
        done();
      });
    });
  }

  #line(line: string): void {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      this.#rest.push(line);
      return;
    }
    if (!value || typeof value !== 'object') return;
    const record = value as { protocol?: string; kind?: string; url?: string };
    if (record.protocol === COMMAND_PROTOCOL) {
      this.envelope = value as CommandEnvelope;
    } else {
      if ((record.kind === 'preview.ready' || record.kind === 'server.restarted') && typeof record.url === 'string') this.url = record.url;
      this.events.push(value);
    }
    this.#wake();
  }

  #wake(): void {
    for (const wake of this.#waiters) wake();
    this.#waiters.clear();
  }

  get state(): DevSessionView['state'] {
    if (this.exitCode !== undefined) return 'exited';
    return this.url ? 'serving' : 'starting';
  }

  /** Waits until `ready` holds, the process exits, or `ms` pass. */
  async until(ready: () => boolean, ms: number): Promise<void> {
    const deadline = Date.now() + ms;
    while (!ready() && this.exitCode === undefined && Date.now() < deadline) {
      await new Promise<void>((wake) => {
        const timer = setTimeout(wake, deadline - Date.now());
        this.#waiters.add(() => {
          clearTimeout(timer);
          wake();
        });
      });
    }
  }

  view(cursor: number, limit: number): DevSessionView {
    const from = Math.min(cursor, this.events.length);
    const events = this.events.slice(from, from + limit);
    return {
      sessionId: this.id,
      directory: this.directory,
      state: this.state,
      ...(this.url ? { url: this.url } : {}),
      events,
      cursor: from + events.length,
      more: from + events.length < this.events.length,
      ...(this.exitCode !== undefined ? { exitCode: this.exitCode } : {}),
      ...(this.envelope ? { envelope: this.envelope } : {}),
    };
  }
}

export class DevSessions implements DevSessionsHost {
  readonly #sessions = new Map<string, DevSession>();
  #next = 1;
  #latest?: string;

  constructor(private readonly env: NodeJS.ProcessEnv) {}

  /** Starts `platform dev --json` and waits for it to serve, to exit, or for `timeoutMs`. */
  async start(directory: string, options: { host?: string; port?: number; share?: boolean; timeoutMs: number }): Promise<DevSessionView> {
    const args = [BIN, 'dev', '--json'];
    if (options.host !== undefined) args.push(`--host=${options.host}`);
    if (options.port !== undefined) args.push(`--port=${options.port}`);
    if (options.share) args.push('--share');
    args.push('--', directory);
    const child = spawn(process.execPath, args, { cwd: directory, env: this.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const id = `dev_${this.#next++}`;
    const session = new DevSession(id, directory, child);
    this.#sessions.set(id, session);
    this.#latest = id;
    await session.until(() => session.url !== undefined, options.timeoutMs);
    return session.view(0, 1000);
  }

  get(sessionId: string | undefined): DevSession | undefined {
    const id = sessionId ?? this.#latest;
    return id === undefined ? undefined : this.#sessions.get(id);
  }

  async status(session: DevSession, cursor: number, waitMs: number, limit: number): Promise<DevSessionView> {
    await session.until(() => session.events.length > cursor, waitMs);
    return session.view(cursor, limit);
  }

  async stop(session: DevSession, cursor: number): Promise<DevSessionView> {
    if (session.exitCode === undefined) {
      session.child.kill('SIGTERM');
      const killer = setTimeout(() => session.child.kill('SIGKILL'), 10_000);
      await session.exited;
      clearTimeout(killer);
    }
    return session.view(cursor, Number.MAX_SAFE_INTEGER);
  }

  /** Stops every session (the server is closing). */
  async stopAll(): Promise<void> {
    await Promise.all([...this.#sessions.values()].map((s) => this.stop(s, 0)));
  }
}
