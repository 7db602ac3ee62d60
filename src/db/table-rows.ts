import type { Queryable } from "./client.ts";

/** SQL type of a column. Every value travels as text and the database casts it, so both drivers agree. */
export type ColumnType =
  | "bytea"
  | "numeric"
  | "int8"
  | "int4"
  | "int2"
  | "bool"
  | "text"
  | "int4[]"
  | "numeric[]";

export type TableRows<Columns extends string> = {
  table: string;
  columns: Record<Columns, ColumnType>;
  /** One array per column, all of the same length. */
  values: Record<Columns, unknown[]>;
  length: number;
};

/** Creates an empty column-wise row set for `table`. */
export function createTableRows<Columns extends string>(
  table: string,
  columns: Record<Columns, ColumnType>,
): TableRows<Columns> & { push(row: Record<Columns, unknown>): void } {
  const names = Object.keys(columns) as Columns[];
  const values = Object.fromEntries(names.map((name) => [name, []])) as unknown as Record<Columns, unknown[]>;
  const rows = {
    table,
    columns,
    values,
    length: 0,
    push(row: Record<Columns, unknown>) {
      for (const name of names) values[name].push(row[name]);
      rows.length++;
    },
  };
  return rows;
}

export type InsertRowsParameters = { onConflict?: string };

/**
 * Inserts all rows with one statement: each column is one array parameter, spread by `unnest`. This
 * runs unchanged on PostgreSQL and PGlite and costs one round trip per table.
 */
export async function insertRows<Columns extends string>(
  db: Queryable,
  rows: TableRows<Columns>,
  { onConflict = "" }: InsertRowsParameters = {},
): Promise<void> {
  if (rows.length === 0) return;
  const names = Object.keys(rows.columns) as Columns[];
  // Every column arrives as text[] and is cast per value, which also serves array columns (`'{0,1}'::int4[]`).
  const arrays = names.map((_, i) => `$${i + 1}::text[]`).join(", ");
  const casts = names.map((name) => `u.${name}::${rows.columns[name]}`).join(", ");
  await db.query(
    `INSERT INTO ${rows.table} (${names.join(", ")})
     SELECT ${casts} FROM unnest(${arrays}) AS u(${names.join(", ")}) ${onConflict}`,
    names.map((name) => rows.values[name].map((value) => (value == null ? null : String(value)))),
  );
}

/** `0xabcd` → `\xabcd`, the text form PostgreSQL casts to bytea. */
export function byteaText(hex: string): string;
export function byteaText(hex: string | null | undefined): string | null;
export function byteaText(hex: string | null | undefined): string | null {
  return hex == null ? null : `\\x${hex.slice(2)}`;
}

/** A hex string as bytes, for a single `bytea` parameter (both drivers take a Buffer). */
export function byteaParam(hex: string): Buffer {
  return Buffer.from(hex.slice(2), "hex");
}
