/**
 * The tests panel's state: runs all tests, one file's or one test, over the project's files as they
 * are now (compiled in the compiler worker's `test` mode, run by test-runner.ts in sandboxes of their
 * own), and keeps each test's outcome. A new run stops the one in progress.
 */
import { diagnostic, sortDiagnostics, type Diagnostic, type Span } from '../../core/diagnostics';
import { MANIFEST_FILE, type Manifest } from '../../core/manifest';
import type { LogLine } from '../../core/runtime';
import type { TestEvent } from '../../core/testing';
import type { CompilerClient } from '../compiler-client';
import type { SessionContext } from '../session/session-state';
import { isTestFile } from '../../core/project';
import { StateStore } from '../state-store';
import { runTestsInSandbox } from './test-runner';

const decoder = new TextDecoder();

export type TestFailureEvent = Extract<TestEvent, { kind: 'test.case.fail' }>;

export interface TestOutcome {
  /** The test file, project-relative. */
  file: string;
  name: string;
  status: 'running' | 'passed' | 'failed';
  durationMs?: number;
  failure?: TestFailureEvent;
}

export interface TestsState {
  status: 'idle' | 'compiling' | 'running' | 'done' | 'failed';
  /** What the last run covered: everything, one file, or one test. */
  scope?: { file?: string; name?: string };
  results: TestOutcome[];
  /** The compile's problems (DG1900, DG1901, type errors) and a run that could not start. */
  diagnostics: Diagnostic[];
  passed: number;
  failed: number;
  durationMs?: number;
}

export interface TestSessionHost {
  files(): Record<string, string>;
  /** The platform.dev.v0 event log. */
  log: SessionContext['log'];
  /** What a test file wrote with `console` (while loading, or in `test`, its handlers' lines included): for the Console. */
  console?(line: TestLogLine): void;
}

/** A console line of a test run: the test file and test it came from. */
export interface TestLogLine extends LogLine {
  file: string;
  test: string;
  /** Where in the test file it was written. */
  location?: { file: string; span: Span };
}

/** Test files of a project: tests/**\/*.test.ts, sorted. */
export function testFilesOf(files: Record<string, string>): string[] {
  return Object.keys(files)
    .filter(isTestFile)
    .sort();
}

export class TestSession extends StateStore<TestsState> {
  readonly #compiler: CompilerClient;
  readonly #host: TestSessionHost;
  #run: AbortController | undefined;

  constructor(compiler: CompilerClient, host: TestSessionHost) {
    super({ status: 'idle', results: [], diagnostics: [], passed: 0, failed: 0 });
    this.#compiler = compiler;
    this.#host = host;
  }

  /** Runs every test, one file's (`file`) or one test (`file` and `name`). */
  async run(scope: { file?: string; name?: string } = {}): Promise<void> {
    this.#run?.abort();
    const run = new AbortController();
    this.#run = run;
    const started = performance.now();
    // Outcomes outside the scope are kept from the last run; those inside start over.
    const inScope = (o: TestOutcome) => (scope.file === undefined || o.file === scope.file) && (scope.name === undefined || o.name === scope.name);
    const kept = this.state.results.filter((o) => !inScope(o));
    this.update({ status: 'compiling', scope, diagnostics: [], results: this.state.results.map((o) => (inScope(o) ? { ...o, status: 'running', failure: undefined, durationMs: undefined } : o)) });
    const files = this.#host.files();
    let compiled;
    try {
      compiled = await this.#compiler.compile(files, 'test');
    } catch (error) {
      if (run.signal.aborted) return;
      this.update({ status: 'failed', diagnostics: [diagnostic('DG1902', `The tests could not be compiled: ${error instanceof Error ? error.message : String(error)}`)] });
      return;
    }
    if (run.signal.aborted) return;
    if (!compiled) {
      this.update({ status: 'idle' });
      return;
    }
    const diagnostics = sortDiagnostics(compiled.diagnostics.filter((d) => d.severity === 'error' || d.code.startsWith('DG19')));
    const server = compiled.files?.['server/index.js'];
    const serverMap = compiled.files?.['server/index.js.map'];
    if (!server || !compiled.tests?.length) {
      this.update({ status: 'failed', diagnostics, results: kept });
      for (const d of diagnostics.filter((x) => x.code.startsWith('DG19'))) this.#host.log('test.case.fail', { name: '(compile)', durationMs: 0, ...d, failure: { ...d, kind: 'load' } });
      return;
    }
    let manifest: Manifest;
    try {
      manifest = JSON.parse(files[MANIFEST_FILE] ?? '') as Manifest;
    } catch {
      this.update({ status: 'failed', diagnostics });
      return;
    }
    const results: TestOutcome[] = [...kept];
    const update = (outcome: TestOutcome) => {
      const at = results.findIndex((o) => o.file === outcome.file && o.name === outcome.name);
      if (at === -1) results.push(outcome);
      else results[at] = outcome;
      results.sort((a, b) => a.file.localeCompare(b.file));
      const passed = results.filter((o) => o.status === 'passed').length;
      const failed = results.filter((o) => o.status === 'failed').length;
      this.update({ results: [...results], passed, failed });
    };
    this.update({ status: 'running', diagnostics, results });
    const events = runTestsInSandbox(
      { manifest, serverCode: decoder.decode(server), ...(serverMap ? { serverMap: decoder.decode(serverMap) } : {}), tests: compiled.tests },
      {
        ...(scope.file !== undefined && scope.name !== undefined ? { only: { file: scope.file, name: scope.name } } : scope.file !== undefined ? { file: scope.file } : {}),
        signal: run.signal,
        onStart: (file, name) => update({ file, name, status: 'running' }),
        onLog: (file, test, line, location) => {
          if (!run.signal.aborted) this.#host.console?.({ file, test, ...line, ...(location ? { location } : {}) });
        },
      },
    );
    for await (const { testFile, event } of events) {
      if (run.signal.aborted) return;
      if (event.kind === 'test.case.pass') update({ file: testFile, name: event.name, status: 'passed', durationMs: event.durationMs });
      else if (event.kind === 'test.case.fail') update({ file: testFile, name: event.name, status: 'failed', durationMs: event.durationMs, failure: event });
      const { protocol: _protocol, kind, ...fields } = event;
      this.#host.log(kind, { ...fields, testFile });
    }
    if (run.signal.aborted) return;
    // Tests that were running when their file ended (removed from the file since the last run) are gone.
    const finished = results.filter((o) => o.status !== 'running');
    const passed = finished.filter((o) => o.status === 'passed').length;
    const failed = finished.filter((o) => o.status === 'failed').length;
    this.#host.log('test.run.finish', { ok: failed === 0, passed, failed, diagnostics: [] });
    this.update({ status: 'done', results: finished, passed, failed, durationMs: performance.now() - started });
  }

  dispose(): void {
    this.#run?.abort();
  }
}
