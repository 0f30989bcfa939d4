import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The core runs in a browser worker and in Node (fixtures, which hold app code as data, are skipped). Its type check admits the web APIs both share; this
 * test refuses what only one host has.
 */
const CORE = import.meta.dirname;
const FORBIDDEN: Array<[RegExp, string]> = [
  [/\bfrom ['"]node:/, 'a node: import'],
  [/\brequire\(/, 'require()'],
  [/\bprocess\./, 'process'],
  [/\bBuffer\b/, 'Buffer'],
  [/\b__dirname\b|\bimport\.meta\.dirname\b/, 'a Node module path'],
  [/\bself\./, 'self (worker only)'],
  [/\bpostMessage\(/, 'postMessage (worker only)'],
  [/\bimportScripts\b/, 'importScripts (worker only)'],
  [/\bdocument\.|\bwindow\./, 'the DOM'],
  [/\blocalStorage\b|\bindexedDB\b/, 'browser storage'],
];

function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) sources(path, out);
    else if (/\.tsx?$/.test(name) && !/\.(test|fixture)\.tsx?$/.test(name) && !path.includes('__fixtures__')) out.push(path);
  }
  return out;
}

describe('the core is portable', () => {
  it('uses nothing that only Node or only a worker or page has', () => {
    const found: string[] = [];
    for (const file of sources(CORE)) {
      // Code only: comments and the contents of string literals are not uses.
      const text = readFileSync(file, 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`/g, "''")
        .replace(/\/\/.*$/gm, '');
      for (const [pattern, what] of FORBIDDEN) if (pattern.test(text)) found.push(`${relative(CORE, file)}: ${what}`);
    }
    expect(found).toEqual([]);
  });
});
