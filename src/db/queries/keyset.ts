import { expandDecimal } from "../../decimal.ts";

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

/**
 * `column` equal to `value` (SQL), written so that only an index led by the column can give a page its order:
 * as the range of that one value, the column then heading the page's `ORDER BY`. Written as an equality, the
 * column is a constant to the planner, and an index in the page's order alone (a primary key by block and
 * position) serves as well, the column checked row by row. The planner takes that walk when its statistics
 * call the value common, and it reads every newer row when the value's rows are all of one age of the chain:
 * an address busy only lately, read to its last page, a type of old blocks, a common token and a common
 * recipient that never met (docs/performance.md, "Values common in one age of the chain"). The index's
 * columns before this one must be equalities, and only one column may be written so: after a range, a
 * column's bounds no longer end the scan, which reads on through the rows of the column's other values.
 */
export function rangeOfOne(column: string, value: string): string {
  return `${column} BETWEEN ${value} AND ${value}`;
}

/**
 * A page's limit written into its statement, as a plan kept for any values needs it: unknown, the limit makes
 * that plan expect a tenth of the rows.
 * @throws {RangeError} when it is not a non-negative integer.
 */
export function limitSql(limit: number): string {
  if (!(Number.isSafeInteger(limit) && limit >= 0)) throw new RangeError(`not a page's limit: ${limit}`);
  return String(limit);
}

/** SQL for a bytea column as lowercase `0x` hex text, the same on both drivers. */
export function hexColumn(column: string, alias: string): string {
  return `'0x' || encode(${column}, 'hex') AS ${alias}`;
}

/**
 * Where a value-ordered list's last row lives in `token_balances`: SQL expressions of its key, or, for an
 * ERC-1155 holder row whose cursor names no id, of the token's type (`anyIdOfType`): any of the holder's ids.
 */
export type BalanceRowSql = { token: string; holder: string } & (
  | { tokenId: string }
  | { anyIdOfType: string }
);

/** 2^53: integers below it survive a trip through a JSON double unchanged. */
const exactDoubleLimit = "9007199254740992";

/**
 * SQL for the balance a value-ordered list (endpoints 1, 6 and 9) resumes after: the stored value of the
 * cursor's last row when the value the client sent back is that value as a double would print it, else the
 * sent value as it is.
 *
 * Why: `value` in `next_page_params` is a JSON number with all its digits, and Blockscout's frontend sends
 * it back as `String(JSON.parse(...))`: above 2^53 the digits come back rounded and from 1e21 in exponent
 * form, so the sent value may sit above or below the last row's and resuming at it repeats or skips rows.
 * The cursor also names the last row (token, id and holder), so its exact value is read back (one primary
 * key lookup, no cost growing with the holders). A double is within 2^-53 ≈ 1.1e-16 of the integer it
 * rounded and its shortest printing within another unit in the last place: a stored value within 1e-15
 * (relative) of a sent value of 2^53 or more is taken as the row's value rounded. A value that cannot
 * have come through a double is used without the lookup: one below 2^53, where a double is exact, and
 * digits that no double prints (the exact digits that curl users and Python clients send back). When the
 * row is gone or its balance moved further since, the sent value is used as it is: the page still resumes
 * in order, as close as the client's value allows. Without the row's id, the least of the holder's values
 * within that rounding is taken: the page may pass over rows between it and the last row shown (the
 * holder's other ids so close in value, and other holders' rows between them), but never shows a row
 * again. `sent` is the SQL of the value, `sentValue` the decimal it binds; `lastRow` gives the row's key,
 * and binds its parameters, only when the lookup is made.
 */
export function resumeValueSql(
  sent: string,
  sentValue: string,
  lastRow: (() => BalanceRowSql) | null,
): string {
  if (lastRow === null || notFromDouble(sentValue)) return sent;
  return `COALESCE((
      SELECT min(r.value) FROM token_balances r
      WHERE ${balanceRowCondition(lastRow())}
        AND r.value BETWEEN ${sent} - ${sent} * 1e-15 AND ${sent} + ${sent} * 1e-15
    ), ${sent})`;
}

/** The condition on `token_balances r` that picks the row (or, for any id, the rows) `row` names. */
function balanceRowCondition(row: BalanceRowSql): string {
  // Any id: the type and `value > 0` make it one range of the holder's ids by value (token_balances_held_ids),
  // in a generic plan too, whatever the holder's other holdings.
  const id =
    "tokenId" in row
      ? `r.token_id = ${row.tokenId}`
      : `r.token_contract_type = ${row.anyIdOfType} AND r.token_id >= 0 AND r.value > 0`;
  return `r.token_address = ${row.token} AND ${id} AND r.holder = ${row.holder}`;
}

/** A statement reading the balance of the one row `row` names, when above zero, for {@link storedValueSql}. */
export function storedBalanceSql(row: Extract<BalanceRowSql, { tokenId: string }>): string {
  return `SELECT r.value FROM token_balances r WHERE ${balanceRowCondition(row)} AND r.value > 0`;
}

/**
 * SQL for the value a value-ordered list (endpoints 1, 6 and 9) resumes after when the cursor names its last
 * row but has lost its value (a partial cursor): the row's stored value, from the first of `lookups` (each a
 * statement reading it by the row's key) that finds it. When the row is gone, nothing tells where the page
 * ended: the value is above every balance, and the list starts over as it does for a cursor without keys.
 */
export function storedValueSql(...lookups: string[]): string {
  // 1e1000, not 'Infinity' (PostgreSQL 14 and later): no sum of uint256 transfers comes near it.
  return `COALESCE(${lookups.map((lookup) => `(${lookup})`).join(", ")}, 1e1000::numeric)`;
}

/**
 * Whether the decimal `value` is exactly the value a client meant, not a double's rounding of it: below
 * 2^53, where a double holds every integer exactly, or digits that no double prints, once spelled out as
 * the API spells a cursor's value (a double of 2^53 or more prints as its shortest round-trip digits,
 * padded with zeros or, from 1e21, in exponent form).
 */
export function notFromDouble(value: string): boolean {
  const match = /^(-?)([0-9]+)(?:\.[0-9]+)?$/.exec(value);
  if (match === null) return false;
  const [, sign, whole = ""] = match;
  if (sign === "-" || BigInt(whole) < BigInt(exactDoubleLimit)) return true;
  return value === whole && expandDecimal(String(Number(whole))) !== expandDecimal(whole);
}

/**
 * The value a value-ordered list (largest first) resumes below when the cursor names no row: the value
 * sent, or, when it may be a double's rounding (see {@link notFromDouble}), the least integer that double
 * could stand for. Below the rounded value itself, the previous page's last row (whose exact value may be
 * above it) would come again; below this bound no row of the previous page does, and those of the next
 * within the rounding are passed over, which nothing but the row's own keys could tell apart.
 */
export function belowDoubleRounding(sentValue: string): string {
  if (notFromDouble(sentValue)) return sentValue;
  const double = Number(sentValue);
  if (!Number.isFinite(double) || double < 2 ** 53) return sentValue;
  const integer = BigInt(double);
  // Half the gap between neighbouring doubles of this magnitude, whose 53 bits leave the rest to rounding.
  const halfGap = 2n ** BigInt(integer.toString(2).length - 54);
  return (integer - halfGap).toString();
}

/** A statement's parameters and the function that binds one more, giving its `$n` placeholder. */
export type StatementParameters = { params: unknown[]; bind: (value: unknown) => string };

/** A statement's parameters, starting with `params`, to which `bind` appends. */
export function createParameters(params: unknown[] = []): StatementParameters {
  return {
    params,
    bind: (value) => {
      params.push(value);
      return `$${params.length}`;
    },
  };
}
