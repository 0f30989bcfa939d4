/** Rows read from the app's database, as a table: NULL in italics, a BLOB as its size. */
import type { Grid, GridCell } from '../../../worker/protocol/runtime';

function Cell({ value }: { value: GridCell }) {
  if (value === null) return <em class="muted">null</em>;
  if (typeof value === 'object') return <span class="muted" title={value.hex}>{`<${value.blob} bytes>`}</span>;
  return <>{String(value)}</>;
}

export function GridView({ grid, label }: { grid: Grid; label: string }) {
  return (
    <div class="grid-scroll">
      <table class="data-grid" aria-label={label}>
        <thead>
          <tr>
            {grid.columns.map((c, i) => (
              <th key={i} scope="col">
                {c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {grid.rows.map((row, r) => (
            <tr key={r}>
              {row.map((value, c) => (
                <td key={c}>
                  <Cell value={value} />
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      {grid.rows.length === 0 && <p class="muted">No rows.</p>}
      {grid.truncated && <p class="muted">Some rows or long values were left out.</p>}
    </div>
  );
}
