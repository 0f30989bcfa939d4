/**
 * safeReturnPath under attack: whatever a hostile `return` holds (dot segments, repeated slashes,
 * backslashes, encoded slashes, tabs and newlines, schemes), what it gives back is a path of the app's
 * own origin, never a scheme-relative or absolute URL, and never the sign-in routes themselves.
 */
import { describe, expect, it } from 'vitest';
import { safeReturnPath } from './app-auth';

const APP = 'https://app-x.plane.example';

/** What a browser makes of a Location header holding `path`, from a few pages of the app. */
function staysHome(path: string): boolean {
  return ['/', '/__platform/auth/callback?code=x', '/a/b/c/'].every((from) => new URL(path, `${APP}${from}`).origin === APP);
}

/** The invariant: a single leading slash, nothing a browser reads as an authority, no control characters, not a sign-in route. */
function expectSafe(input: string, output: string): void {
  const why = JSON.stringify(input);
  expect(output.startsWith('/'), why).toBe(true);
  expect(/^\/[/\\]/.test(output), `${why} → ${JSON.stringify(output)}`).toBe(false);
  // eslint-disable-next-line no-control-regex
  expect(/[\\\u0000-\u0020\u007f]/.test(output), `${why} → ${JSON.stringify(output)}`).toBe(false);
  expect(staysHome(output), `${why} → ${JSON.stringify(output)}`).toBe(true);
  expect(new URL(output, APP).pathname.startsWith('/__platform/auth/'), `${why} → ${JSON.stringify(output)}`).toBe(false);
}

/** A small seeded generator, so a failure names an input that reproduces. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

describe('safeReturnPath', () => {
  it('never returns a scheme-relative URL for dot segments before a double slash (issue 29)', () => {
    for (const hostile of ['/.//evil.example/x', '/..//evil.example/x', '/././/evil.example', '/a/..//evil.example', '/%2e//evil.example', '/.%2e//evil.example']) {
      const kept = safeReturnPath(hostile);
      expectSafe(hostile, kept);
    }
  });

  it('keeps ordinary paths as they are, query and fragment included', () => {
    expect(safeReturnPath('/board?x=1#y')).toBe('/board?x=1#y');
    expect(safeReturnPath('/__platform/join/xwi_abc')).toBe('/__platform/join/xwi_abc');
    expect(safeReturnPath('/a/./b/../c')).toBe('/a/c');
    expect(safeReturnPath('/a//b')).toBe('/a/b');
    expect(safeReturnPath('/files?next=//evil.example')).toBe('/files?next=//evil.example');
  });

  it('answers / for the named hostile inputs', () => {
    for (const hostile of ['/\\evil.example', '/./\\/evil.example', '/\t/evil.example', '/\n/evil.example', '/\r\n//evil.example', '\\\\evil.example', '//evil.example', 'https://evil.example/', 'javascript:alert(1)', '/__platform/auth/sign-in', '//__platform/auth/sign-in', '/./__platform/auth/callback', '/%5F_platform/auth/sign-in']) {
      expectSafe(hostile, safeReturnPath(hostile));
    }
    expectSafe('/%2F%2Fevil.example', safeReturnPath('/%2F%2Fevil.example'));
  });

  it('holds the invariant over many generated hostile inputs', () => {
    const pieces = ['/', '//', '\\', '.', '..', './', '../', './/', '%2F', '%2f', '%5C', '%2e', '%2E%2E', '\t', '\n', '\r', ' ', '\u0000', '@', ':', 'evil.example', 'http:', 'https://', '?', '#', '__platform', 'auth', ';', '%09', '\u3002', '\uff0f'];
    const next = random(29);
    for (let i = 0; i < 5_000; i++) {
      let input = next() < 0.8 ? '/' : '';
      const length = 1 + Math.floor(next() * 8);
      for (let j = 0; j < length; j++) input += pieces[Math.floor(next() * pieces.length)];
      expectSafe(input, safeReturnPath(input));
    }
  });

  it('answers / for what is not a string, is empty, or is too long', () => {
    for (const value of [undefined, null, 42, {}, '', `/${'a'.repeat(3000)}`]) expect(safeReturnPath(value)).toBe('/');
  });
});
