import type { Queryable } from "./client.ts";

/** A value as the indexer hands it over, per SQL type of its column. */
type ColumnValues = {
  /** `0x`-prefixed hex. */
  bytea: string;
  /** A bigint, a safe integer, decimal digits or a `0x` quantity. */
  numeric: Quantity;
  int8: Quantity;
  int4: number;
  int2: number;
  bool: boolean;
  text: string;
  "int4[]": readonly number[];
  "numeric[]": readonly Quantity[];
};

type Quantity = bigint | number | string;

/** The largest value an `int8` column holds: above every block number. */
export const int8Max = 9_223_372_036_854_775_807n;

/** SQL type of a column. */
export type ColumnType = keyof ColumnValues;

export type ColumnValue<Type extends ColumnType> = ColumnValues[Type];

/** A row of a table with these columns; a missing value is SQL null. */
export type Row<Columns extends Record<string, ColumnType>> = {
  [Name in keyof Columns]: ColumnValues[Columns[Name]] | null | undefined;
};

/** Turns a column's values into the text PostgreSQL casts from, so that both drivers agree. */
const encoders: { [Type in ColumnType]: (value: ColumnValues[Type]) => string } = {
  bytea: (hex) => `\\x${hex.slice(2)}`,
  numeric: quantityText,
  int8: quantityText,
  int4: String,
  int2: String,
  bool: String,
  text: (text) => text,
  "int4[]": (values) => `{${values.join(",")}}`,
  "numeric[]": (values) => `{${values.map(quantityText).join(",")}}`,
};

/** Each column of `rows` with its SQL type, in the order the table was described. */
function columnsOf<Columns extends Record<string, ColumnType>>(
  rows: TableRows<Columns>,
): [keyof Columns & string, ColumnType][] {
  return Object.entries(rows.columns) as [keyof Columns & string, ColumnType][];
}

/**
 * A value as the writer hands it to the database, in the text PostgreSQL casts from (and prints back with
 * `::text`); null for SQL null.
 */
export function columnText<Type extends ColumnType>(
  type: Type,
  value: ColumnValues[Type] | null | undefined,
): string | null {
  return value == null ? null : encoderOf(type)(value);
}

/** The encoder of a column of SQL type `type`, for values the row types already checked. */
function encoderOf(type: ColumnType): (value: unknown) => string {
  return encoders[type] as (value: unknown) => string;
}

function quantityText(value: Quantity): string {
  return typeof value === "string" && value.startsWith("0x") ? BigInt(value).toString() : String(value);
}

/** Column-wise rows of one table, filled by the indexer and written by `insertRows`. */
export type TableRows<Columns extends Record<string, ColumnType>> = {
  table: string;
  columns: Columns;
  /** One array per column, all of the same length. */
  values: { -readonly [Name in keyof Columns]: Row<Columns>[Name][] };
  length: number;
  push(row: Row<Columns>): void;
};

/** Creates an empty column-wise row set for `table`. */
export function createTableRows<Columns extends Record<string, ColumnType>>(
  table: string,
  columns: Columns,
): TableRows<Columns> {
  const names = Object.keys(columns) as (keyof Columns & string)[];
  const values = Object.fromEntries(
    names.map((name) => [name, []]),
  ) as unknown as TableRows<Columns>["values"];
  const rows: TableRows<Columns> = {
    table,
    columns,
    values,
    length: 0,
    push(row) {
      for (const name of names) values[name].push(row[name]);
      rows.length++;
    },
  };
  return rows;
}

/** Removes the rows at the indexes for which `drop` holds, keeping the others in their order. */
export function removeRows<Columns extends Record<string, ColumnType>>(
  rows: TableRows<Columns>,
  drop: (index: number) => boolean,
): void {
  const kept = Array.from({ length: rows.length }, (_, i) => i).filter((i) => !drop(i));
  if (kept.length === rows.length) return;
  for (const name of Object.keys(rows.columns) as (keyof Columns)[]) {
    const column = rows.values[name];
    rows.values[name] = kept.map((i) => column[i]) as typeof column;
  }
  rows.length = kept.length;
}

export type InsertRowsParameters = { onConflict?: string };

/**
 * Inserts all rows with one statement: each column is one array parameter, spread by `unnest`. This
 * runs unchanged on PostgreSQL and PGlite and costs one round trip per table.
 */
export async function insertRows<Columns extends Record<string, ColumnType>>(
  db: Queryable,
  rows: TableRows<Columns>,
  { onConflict = "" }: InsertRowsParameters = {},
): Promise<void> {
  if (rows.length === 0) return;
  const columns = columnsOf(rows);
  const names = columns.map(([name]) => name);
  // Every column arrives as text[] and is cast per value, which also serves array columns (`'{0,1}'::int4[]`).
  const arrays = names.map((_, i) => `$${i + 1}::text[]`).join(", ");
  const casts = columns.map(([name, type]) => `u.${name}::${type}`).join(", ");
  await db.query(
    `INSERT INTO ${rows.table} (${names.join(", ")})
     SELECT ${casts} FROM unnest(${arrays}) AS u(${names.join(", ")}) ${onConflict}`,
    columns.map(([name, type]) => arrayLiteral(type, rows.values[name])),
  );
}

/**
 * A column's values as one `text[]` literal, which both drivers pass on unchanged: built here, where each
 * type's text is known to need quoting or not, it costs a fraction of a driver's escaping of every value.
 */
function arrayLiteral(type: ColumnType, values: readonly unknown[]): string {
  const encode = encoderOf(type);
  // Digits, signs and `true`/`false` need no quotes; bytes (`\x…`), arrays (`{…}`) and text do.
  const quote =
    type === "text"
      ? (text: string) => `"${text.replace(/[\\"]/g, "\\$&")}"`
      : type === "bytea"
        ? (text: string) => `"\\${text}"`
        : type.endsWith("[]")
          ? (text: string) => `"${text}"`
          : (text: string) => text;
  const elements = new Array<string>(values.length);
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    elements[i] = value == null ? "NULL" : quote(encode(value));
  }
  return `{${elements.join(",")}}`;
}

/**
 * Loads all rows with COPY where the database offers it (a transaction's connection; 1.5–2.2×
 * `insertRows` on 100,000 rows), else inserts them; without a conflict clause: for rows that cannot be
 * stored yet.
 */
export async function copyRows<Columns extends Record<string, ColumnType>>(
  db: Queryable,
  rows: TableRows<Columns>,
): Promise<void> {
  if (rows.length === 0) return;
  if (!db.copyFrom) return insertRows(db, rows);
  const columns = columnsOf(rows);
  // Byte strings, most of a COPY's bytes, are written from their `0x` hex without a string of their own
  // (a string per value cost 1.5–1.8× the CPU on 200 k log rows): the hex goes one byte further on, and
  // its `0x` is overwritten with `\\x`, the escaped `\x`. Only text can hold characters beyond ASCII.
  const kinds = columns.map(
    ([, type]): CellKind => (type === "bytea" ? "hex" : type === "text" ? "utf8" : "latin1"),
  );
  const cells = columns.map(([name, type]) => {
    const values = rows.values[name] as unknown[];
    if (type === "bytea") return values as (string | null | undefined)[];
    const encode = type === "text" ? (text: unknown) => copyEscape(text as string) : encoderOf(type);
    return values.map((value) => (value == null ? null : encode(value)));
  });
  let size = 0;
  cells.forEach((column, c) => {
    const kind = kinds[c];
    for (const cell of column) {
      if (cell == null) size += 3;
      else if (kind === "hex") size += cell.length + 2;
      else size += (kind === "utf8" ? Buffer.byteLength(cell) : cell.length) + 1;
    }
  });
  const data = Buffer.allocUnsafe(size);
  const last = cells.length - 1;
  let offset = 0;
  for (let i = 0; i < rows.length; i++) {
    for (let c = 0; c <= last; c++) {
      const cell = (cells[c] as (string | null | undefined)[])[i];
      const kind = kinds[c];
      if (cell == null) {
        data[offset++] = 0x5c; // \N
        data[offset++] = 0x4e;
      } else if (kind === "hex") {
        data.write(cell, offset + 1, "latin1");
        data[offset] = 0x5c;
        data[offset + 1] = 0x5c;
        offset += cell.length + 1;
      } else offset += data.write(cell, offset, kind);
      data[offset++] = c === last ? 0x0a : 0x09; // a line feed ends the row, a tab each column
    }
  }
  await db.copyFrom(
    rows.table,
    columns.map(([name]) => name),
    data,
  );
}

/** How a COPY cell is written: `0x` hex of bytes, or a string of one byte per character, or of any. */
type CellKind = "hex" | "latin1" | "utf8";

/**
 * Escapes text for COPY's text format, where backslash, tab and line breaks are special. Only text can
 * hold them: digits, signs, braces and commas pass as they are, and bytes are written as `\\x…`.
 */
function copyEscape(text: string): string {
  return /[\\\t\n\r]/.test(text)
    ? text.replace(
        /[\\\t\n\r]/g,
        (c) => ({ "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r" })[c] as string,
      )
    : text;
}

/** `0xabcd` → `\xabcd`, the text form PostgreSQL casts to bytea. */
export function byteaText(hex: string): string;
export function byteaText(hex: string | null | undefined): string | null;
export function byteaText(hex: string | null | undefined): string | null {
  return hex == null ? null : encoders.bytea(hex);
}

/**
 * A constant hex string as an SQL `bytea` literal, for a statement whose plan must see the value (a partial
 * index's predicate is proved only from constants). Checked, since it is written into the statement.
 */
export function byteaLiteral(hex: string): string {
  if (!/^0x(?:[0-9a-f]{2})*$/.test(hex)) throw new TypeError(`not lowercase hex bytes: ${hex}`);
  return `'\\x${hex.slice(2)}'::bytea`;
}

/**
 * A token type (`ERC-` and its number) as an SQL literal, for a statement whose plan must see it: a plan kept
 * for any type cannot tell one that only old blocks hold. Checked, since it is written into the statement.
 */
export function tokenTypeLiteral(type: string): string {
  if (!/^ERC-[0-9]+$/.test(type)) throw new TypeError(`not a token type: ${type}`);
  return `'${type}'`;
}

/** A hex string as bytes, for a single `bytea` parameter (both drivers take a Buffer). */
export function byteaParam(hex: string): Buffer {
  return Buffer.from(hex.slice(2), "hex");
}
