/** For tests and benches: the real `platform dev` / `preview` as a child process, its platform.dev.v0 events read as they arrive. */
import { spawn, type ChildProcess } from 'node:child_process';
import { cliCommand } from './cli';

export type StreamEvent = Record<string, unknown> & { kind?: string; protocol?: string };

export class DevProcess {
  readonly events: StreamEvent[] = [];
  readonly child: ChildProcess;
  readonly exited: Promise<number>;
  #stderr = '';
  #waiters: Array<() => void> = [];

  constructor(args: string[], cwd: string, env: Record<string, string> = {}) {
    const { command, args: argv } = cliCommand(args);
    this.child = spawn(command, argv, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let buffer = '';
    this.child.stdout!.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      let end: number;
      while ((end = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 1);
        try {
          this.events.push(JSON.parse(line) as StreamEvent);
        } catch {
          this.events.push({ text: line });
        }
        for (const wake of this.#waiters.splice(0)) wake();
      }
    });
    this.child.stderr!.on('data', (chunk: Buffer) => (this.#stderr += chunk.toString()));
    this.exited = new Promise((done) =>
      this.child.once('exit', (code) => {
        done(code ?? 1);
        for (const wake of this.#waiters.splice(0)) wake();
      }),
    );
  }

  get stderr(): string {
    return this.#stderr;
  }

  /** The first event from index `from` on that matches; rejects if the process ends first or after `limitMs` (a hung run fails instead of hanging). */
  async next(match: (event: StreamEvent) => boolean, from = 0, limitMs = 120_000): Promise<StreamEvent & { index: number }> {
    const deadline = Date.now() + limitMs;
    for (;;) {
      const index = this.events.findIndex((event, i) => i >= from && match(event));
      if (index >= 0) return { ...this.events[index]!, index };
      if (this.child.exitCode !== null) throw new Error(`platform exited (${this.child.exitCode}) before the event; events: ${JSON.stringify(this.events).slice(-2000)}; stderr: ${this.#stderr.slice(-2000)}`);
      if (Date.now() > deadline) throw new Error(`no such event within ${limitMs} ms; events: ${JSON.stringify(this.events).slice(-2000)}`);
      await new Promise<void>((wake) => {
        this.#waiters.push(wake);
        setTimeout(wake, 1000).unref();
      });
    }
  }

  kind(kind: string, from = 0): Promise<StreamEvent & { index: number }> {
    return this.next((event) => event.kind === kind, from);
  }

  /** Ends it as Ctrl-C would and waits for it to exit. */
  async stop(): Promise<number> {
    if (this.child.exitCode === null) this.child.kill('SIGTERM');
    return this.exited;
  }
}
