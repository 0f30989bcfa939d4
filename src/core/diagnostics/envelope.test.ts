import { describe, expect, it } from 'vitest';
import { diagnostic, sortDiagnostics } from './diagnostic';
import { envelope, exitStatus } from './envelope';

describe('diagnostic', () => {
  it('takes its severity from the catalogue and drops undefined fields', () => {
    expect(diagnostic('DG1406', 'big', { hint: undefined })).toEqual({ code: 'DG1406', severity: 'warning', message: 'big' });
    expect(diagnostic('DG1002', 'x', { file: 'a', span: { line: 1, column: 2 } })).toEqual({ code: 'DG1002', severity: 'error', message: 'x', file: 'a', span: { line: 1, column: 2 } });
  });
});

describe('sortDiagnostics', () => {
  it('puts primaries first and consequences last, then orders by file, line and column', () => {
    const a = diagnostic('DG1205', 'client', { file: 'src/client/main.tsx', span: { line: 1, column: 1 }, causedBy: 'DG1301' });
    const b = diagnostic('DG1301', 'server', { file: 'src/server/index.ts', span: { line: 9, column: 3 }, primary: true });
    const c = diagnostic('DG1002', 'manifest late', { file: 'app.manifest.json', span: { line: 5, column: 1 } });
    const d = diagnostic('DG1003', 'manifest early', { file: 'app.manifest.json', span: { line: 2, column: 7 } });
    expect(sortDiagnostics([a, c, b, d]).map((x) => x.message)).toEqual(['server', 'manifest early', 'manifest late', 'client']);
  });
});

describe('envelope and exit status', () => {
  it('is ok without errors, even with warnings', () => {
    const value = envelope('build', [diagnostic('DG1406', 'large')]);
    expect(value).toEqual({ protocol: 'platform.command.v0', command: 'build', ok: true, diagnostics: [expect.objectContaining({ code: 'DG1406' })] });
    expect(exitStatus(value)).toBe(0);
  });

  it('exits 1 for errors and 2 for a bad invocation', () => {
    expect(exitStatus(envelope('check', [diagnostic('DG1002', 'bad')]))).toBe(1);
    expect(exitStatus(envelope('x', [diagnostic('DG0001', 'unknown')]))).toBe(2);
    expect(exitStatus(envelope('check', [diagnostic('DG0002', 'bad option'), diagnostic('DG1002', 'bad')]))).toBe(2);
  });

  it('carries a result only when there is one', () => {
    expect('result' in envelope('check', [])).toBe(false);
    expect(envelope('check', [], { name: 'a' }).result).toEqual({ name: 'a' });
  });
});
