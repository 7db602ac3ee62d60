/** Rows per page of every list. */
export const pageSize = 50;

export type Page<Item> = { items: Item[]; next_page_params: Record<string, unknown> | null };

/**
 * Builds the list envelope from up to `pageSize + 1` rows: the extra row tells that another page exists,
 * and the cursor is taken from the last row shown, beside that extra row.
 */
export function toPage<Row, Item>(
  rows: Row[],
  render: (row: Row) => Item,
  cursorOf: (last: Row, following: Row) => Record<string, unknown>,
): Page<Item> {
  const shown = rows.slice(0, pageSize);
  const last = shown.at(-1);
  const following = rows[pageSize];
  return {
    items: shown.map(render),
    next_page_params:
      following !== undefined && last !== undefined
        ? { ...cursorOf(last, following), items_count: pageSize }
        : null,
  };
}
