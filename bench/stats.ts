/** Small statistics and a table printer for the benchmarks. */

export interface Row {
  name: string;
  value: number;
  unit: 'ms' | 'x' | 'ops/s' | 'bytes' | 'count' | 'MB';
}

export function time(fn: () => unknown): number {
  const start = performance.now();
  fn();
  return performance.now() - start;
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] ?? NaN;
}

export function median(values: number[]): number {
  return percentile(values, 50);
}

function format(row: Row): string {
  if (row.unit === 'x') return `${row.value.toFixed(2)}x`;
  if (row.unit === 'MB') return `${row.value.toFixed(1)} MB`;
  if (row.unit === 'ms') return `${row.value < 10 ? row.value.toFixed(3) : row.value.toFixed(1)} ms`;
  return `${Math.round(row.value).toLocaleString('en-US')} ${row.unit}`;
}

export function printTable(title: string, rows: Row[]): void {
  const width = Math.max(...rows.map((r) => r.name.length));
  console.log(`\n${title}`);
  console.log('-'.repeat(width + 16));
  for (const row of rows) console.log(`${row.name.padEnd(width)}  ${format(row).padStart(12)}`);
}
