/** Share-link figures per template: link size (files only, and with a small data export) and encode/decode time p50. */
import { nodeTemplates } from '../src/adapters/node/templates';
import type { Manifest } from '../src/core/manifest';
import { decodeShareLink, encodeShareLink, type ShareLink } from '../src/core/share';
import { sampleStateExport } from '../src/core/state/__fixtures__/sample';
import { median, type Row } from './stats';

const RUNS = 30;
const DATA_ROWS = 20;

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

export async function shareRows(): Promise<Row[]> {
  const rows: Row[] = [];
  for (const template of nodeTemplates()) {
    const files = Object.fromEntries(Object.entries(template.files).map(([path, data]) => [path, typeof data === 'string' ? data : new TextDecoder().decode(data)]));
    const manifest = JSON.parse(files['app.manifest.json']!) as Manifest;
    const variants: Array<[string, ShareLink]> = [
      ['files', { files, persona: 'alice', template: template.id }],
      [`files + ${DATA_ROWS} rows per table`, { files, persona: 'alice', template: template.id, state: sampleStateExport(manifest, DATA_ROWS) }],
    ];
    for (const [label, link] of variants) {
      const encoded = await encodeShareLink(link);
      if (!encoded.ok) throw new Error(`${template.id}: ${encoded.error.message}`);
      const encode: number[] = [];
      const decode: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        encode.push(await timed(() => encodeShareLink(link)));
        decode.push(await timed(() => decodeShareLink(encoded.hash)));
      }
      rows.push({ name: `${template.id}, ${label}: link size`, value: encoded.hash.length, unit: 'bytes' });
      rows.push({ name: `${template.id}, ${label}: encode p50`, value: median(encode), unit: 'ms' });
      rows.push({ name: `${template.id}, ${label}: decode p50`, value: median(decode), unit: 'ms' });
    }
  }
  return rows;
}
