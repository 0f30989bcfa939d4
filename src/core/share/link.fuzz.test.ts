import { createHash } from 'node:crypto';
import { deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { prng } from '../state/__fixtures__/sample';
import { decodeShareLink, encodeShareLink, type ShareLink, type ShareLinkDecodeResult } from '.';
import { projectPathProblem } from './paths';

const SEED = 424242;
const CASES = 3000;
const CODES = ['share_link_corrupt', 'share_link_truncated', 'share_link_too_large', 'share_link_future_version', 'share_link_unknown_version'];
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

function frame(payload: string | Uint8Array): string {
  const compressed = deflateRawSync(typeof payload === 'string' ? Buffer.from(payload) : payload);
  const header = Buffer.alloc(8);
  header.writeUInt32BE(compressed.length, 0);
  createHash('sha256').update(compressed).digest().copy(header, 4, 0, 4);
  return `v1.${Buffer.concat([header, compressed]).toString('base64url')}`;
}

function randomText(random: () => number, alphabet: string, max: number): string {
  let out = '';
  const length = Math.floor(random() * max);
  for (let i = 0; i < length; i++) out += alphabet[Math.floor(random() * alphabet.length)];
  return out;
}

function mutateText(text: string, random: () => number, alphabet: string): string {
  const at = Math.floor(random() * text.length);
  switch (Math.floor(random() * 5)) {
    case 0: return text.slice(0, at);
    case 1: return text.slice(0, at) + alphabet[Math.floor(random() * alphabet.length)] + text.slice(at + 1);
    case 2: return text.slice(0, at) + text.slice(at + 1 + Math.floor(random() * 8));
    case 3: return text.slice(0, at) + randomText(random, alphabet, 6) + text.slice(at);
    default: return text + text.slice(at);
  }
}

const project: ShareLink = {
  files: { 'app.manifest.json': '{"name":"x"}', 'src/server/index.ts': 'export default 1;\n', 'src/client/main.tsx': '<p/>' },
  persona: 'bob',
  openFile: 'src/client/main.tsx',
  name: 'fuzzed',
};
const payloadJson = JSON.stringify(project);

/** What an accepted link must satisfy, whatever the input was. */
async function checkAccepted(result: ShareLinkDecodeResult & { ok: true }) {
  for (const path of Object.keys(result.link.files)) expect(projectPathProblem(path)).toBeUndefined();
  expect(['alice', 'bob', 'guest']).toContain(result.link.persona);
  const again = await encodeShareLink(result.link);
  expect(again.ok).toBe(true);
}

describe('share link decoder fuzz (seeded)', () => {
  it(`${CASES} random and mutated links: never throws, always a typed result`, async () => {
    const random = prng(SEED);
    const encoded = await encodeShareLink(project);
    if (!encoded.ok) throw new Error(encoded.error.message);
    const tally: Record<string, number> = {};
    for (let n = 0; n < CASES; n++) {
      const kind = random();
      let input: string;
      if (kind < 0.15) input = randomText(random, `${B64}.v#=%+/ \u00e9\u{1F600}`, 200);
      else if (kind < 0.25) input = `v1.${randomText(random, B64, 400)}`;
      else if (kind < 0.6) input = mutateText(encoded.hash, random, B64);
      else if (kind < 0.85) input = frame(mutateText(payloadJson, random, '{}[]":,.\\/ab0\u0000'));
      else input = frame(Uint8Array.from({ length: Math.floor(random() * 64) }, () => Math.floor(random() * 256)));
      let result: ShareLinkDecodeResult;
      try {
        result = await decodeShareLink(input);
      } catch (error) {
        throw new Error(`case ${n} (seed ${SEED}) threw: ${String(error)} for ${JSON.stringify(input.slice(0, 500))}`);
      }
      if (result.ok) await checkAccepted(result);
      else {
        expect(CODES, `case ${n}`).toContain(result.error.code);
        expect(result.error.message.length).toBeGreaterThan(0);
      }
      const key = result.ok ? 'ok' : result.error.code;
      tally[key] = (tally[key] ?? 0) + 1;
    }
    expect(tally['share_link_corrupt']).toBeGreaterThan(100);
    expect(tally['share_link_truncated']).toBeGreaterThan(100);
    expect(tally['ok']).toBeGreaterThan(5);
  });
});
