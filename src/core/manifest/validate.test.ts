import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { MemoryFileSystem } from '../fs';
import { manifestCases } from './__fixtures__/cases';
import { compare } from './__fixtures__/expect';
import { checkManifest, validateManifestText } from './validate';

describe('manifest validation, one fixture project per rule', () => {
  for (const testCase of manifestCases) {
    it(testCase.name, async () => {
      const fs = new MemoryFileSystem(testCase.files);
      const { diagnostics, manifest } = await checkManifest(fs);
      const text = testCase.files['app.manifest.json'] ?? '';
      const { want, got } = compare(testCase.expected, diagnostics, text);
      expect(got).toEqual(want);
      for (const e of testCase.expected) {
        const match = diagnostics.find((d) => d.code === e.code && (!e.hint || d.hint?.includes(e.hint)) && (!e.message || d.message.includes(e.message)));
        expect(match, `a ${e.code} with hint ~ ${e.hint ?? '*'} and message ~ ${e.message ?? '*'} in ${JSON.stringify(diagnostics, null, 1)}`).toBeDefined();
      }
      for (const d of diagnostics) {
        expect(d.message).not.toMatch(/\n|undefined|\[object Object\]/);
        if (d.code !== 'DG1001') expect(d.file).toBe('app.manifest.json');
      }
      if (testCase.expected.length === 0) expect(manifest).toBeDefined();
      else expect(manifest).toBeUndefined();
    });
  }
});

describe('validateManifestText', () => {
  it('reports every syntax error it can find, not only the first', () => {
    const { diagnostics } = validateManifestText('{\n  "a": 1,,\n  "b": tru\n}');
    expect(diagnostics.length).toBeGreaterThanOrEqual(2);
    expect(diagnostics.every((d) => d.code === 'DG1002')).toBe(true);
  });

  it('accepts CRLF line endings and reports the right line', () => {
    const text = '{\r\n  "format": "platform.application-source.v0",\r\n  "nmae": "x"\r\n}\r\n';
    const { diagnostics } = validateManifestText(text);
    const unknown = diagnostics.find((d) => d.code === 'DG1003');
    expect(unknown?.span).toEqual({ line: 3, column: 3, length: 6 });
  });

  it('accepts untypedDependencies as a list of unique package names', () => {
    const base = { format: 'platform.application-source.v0', name: 'app', entrypoints: { client: 'c.tsx', server: 's.ts' } };
    expect(validateManifestText(JSON.stringify({ ...base, untypedDependencies: ['left-pad', '@scope/pkg'] })).diagnostics).toEqual([]);
    const duplicate = validateManifestText(JSON.stringify({ ...base, untypedDependencies: ['a', 'a'] })).diagnostics;
    expect(duplicate.map((d) => d.code)).toEqual(['DG1002']);
  });

  it('handles an empty file', () => {
    const { diagnostics } = validateManifestText('');
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]?.code).toBe('DG1002');
  });
});

describe('the compiled manifest validator', () => {
  it('is what the schema gives now (regenerate with npx tsx scripts/manifest-validator.ts)', async () => {
    const { manifestValidatorSource, VALIDATOR_MODULE } = await import('../../../scripts/manifest-validator');
    expect(readFileSync(VALIDATOR_MODULE, 'utf8')).toBe(manifestValidatorSource());
  });
});
