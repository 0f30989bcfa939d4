/**
 * `platform test [directory] [--json]`: builds, type-checks the tests, runs each test on fresh state.
 * With `--json` it streams newline-delimited platform.dev.v0 events ending with test.run.finish;
 * without, a readable report whose last line is `N passed, N failed`. Exit 0 only when all passed.
 */
import { envelope, type Diagnostic } from '../diagnostics/index.ts';
import { finishEvent, formatEvent, type TestEvent } from '../testing/index.ts';
import { prepareTests } from '../build/index.ts';
import { formatDiagnostic } from './format.ts';
import { missingManifest } from './project-directory.ts';
import type { CommandDefinition } from './types.ts';

export interface TestCommandResult {
  passed: number;
  failed: number;
}

export const test: CommandDefinition<TestCommandResult> = {
  name: 'test',
  streams: true,
  summary: 'Build the app, type-check tests/**/*.test.ts and run each test on fresh, isolated state.',
  positionals: [{ name: 'directory', required: false, description: 'The project directory (default: the current directory).' }],
  options: {
    only: { type: 'string', valueName: '<name>', description: 'Run only the test with this exact name.' },
  },
  async run(invocation, host) {
    const directory = invocation.positionals[0] ?? '.';
    const json = invocation.options.json === true;
    const print = (text: string) => host.print?.(text);
    const fs = host.project(directory);
    const diagnostics: Diagnostic[] = (await missingManifest(fs, directory)) ?? [];
    let passed = 0;
    let failed = 0;
    const emit = (event: TestEvent) => print(json ? JSON.stringify(event) : formatEvent(event));
    if (!diagnostics.length) {
      if (!host.runTests) throw new Error('This host cannot run tests.');
      const prepared = await prepareTests(fs, await host.compiler());
      diagnostics.push(...prepared.diagnostics);
      if (!json) for (const d of prepared.diagnostics) print(formatDiagnostic(d));
      const only = typeof invocation.options.only === 'string' ? invocation.options.only : undefined;
      for await (const event of host.runTests(prepared, { only })) {
        if (event.kind === 'test.case.pass') passed++;
        else if (event.kind === 'test.case.fail') failed++;
        emit(event);
      }
    }
    const finish = finishEvent(passed, failed, diagnostics);
    emit(finish);
    // The finish event decides: a run with no passing test, or any failure, is not ok.
    return { ...envelope('test', diagnostics, { passed, failed }), ok: finish.ok };
  },
};
