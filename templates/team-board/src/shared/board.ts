/** The columns of a board, in order. */
export const COLUMNS = ['todo', 'doing', 'done'] as const;
export type Column = (typeof COLUMNS)[number];

export function isColumn(value: string): value is Column {
  return (COLUMNS as readonly string[]).includes(value);
}
