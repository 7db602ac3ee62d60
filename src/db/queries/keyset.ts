/** A keyset condition and the parameters it binds. */
export type Keyset = { sql: string; params: unknown[] };

/**
 * Builds the condition that resumes a page after the cursor: the row tuple of `columns` strictly before
 * (`desc`) or after (`asc`) the cursor's values. Only the longest prefix of keys the client sent is used,
 * so a partial cursor resumes as close as it can without repeating a row of the previous page.
 * `firstParam` is the number of the first `$n` placeholder to use.
 */
export function keysetCondition(
  columns: string[],
  values: (string | number | null | undefined)[],
  direction: "asc" | "desc",
  firstParam: number,
): Keyset {
  const present: unknown[] = [];
  for (const value of values) {
    if (value === null || value === undefined) break;
    present.push(value);
  }
  if (present.length === 0) return { sql: "TRUE", params: [] };
  const used = columns.slice(0, present.length);
  const placeholders = present.map((_, i) => `$${firstParam + i}`);
  const operator = direction === "desc" ? "<" : ">";
  return { sql: `(${used.join(", ")}) ${operator} (${placeholders.join(", ")})`, params: present };
}

/** SQL for a bytea column as lowercase `0x` hex text, the same on both drivers. */
export function hexColumn(column: string, alias: string): string {
  return `'0x' || encode(${column}, 'hex') AS ${alias}`;
}
