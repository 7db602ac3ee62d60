/** Pattern of an address path or query parameter (Blockscout's). */
export const addressPattern = "^0x([A-Fa-f0-9]{40})$";
/** Pattern of a 32-byte hash parameter (Blockscout's). */
export const hashPattern = "^0x([A-Fa-f0-9]{64})$";
/**
 * A cursor integer as clients send it back: digits, or `null`/empty for "no value". The digit limit is
 * the column's: beyond it the value could not be compared, so it is refused rather than failing the query.
 */
const cursorPattern = (digits: number) => `^([0-9]{1,${digits}}|null|)$`;
/**
 * A cursor `value` that a JSON number carried: Blockscout's frontend reads it with `JSON.parse` and sends
 * back `String(number)`, so a value above 2^53 comes back rounded (`1152921504606847000`) and one of 1e21
 * or more in exponent form (`4.994e+21`). Digits, a fraction and an exponent of up to two digits.
 */
const valueCursorPattern = "^([0-9]{1,78}(\\.[0-9]{1,78})?([eE][+-]?[0-9]{1,2})?|null|)$";
/** Blockscout's `limit` (a nullable integer, its sign ignored). */
const limitPattern = "^(-?[0-9]{1,9}|null|)$";
/** Patterns of integer parameters, whose failure Blockscout words "Invalid integer". */
export const integerPatterns = new Set([
  limitPattern,
  cursorPattern(9),
  cursorPattern(18),
  cursorPattern(78),
  valueCursorPattern,
]);

export const addressHashParams = {
  type: "object",
  required: ["address_hash_param"],
  properties: { address_hash_param: { type: "string", pattern: addressPattern } },
} as const;

/** A block number or a block hash (Blockscout's `block_hash_or_number_param`). */
export const blockHashOrNumberParams = {
  type: "object",
  required: ["block_hash_or_number_param"],
  properties: {
    block_hash_or_number_param: {
      type: "string",
      anyOf: [{ pattern: hashPattern }, { pattern: "^[0-9]+$" }],
    },
  },
} as const;

/** A block number (or another int8 key) in a cursor. */
export const bigintCursor = { type: "string", pattern: cursorPattern(18) } as const;
/** A position (transaction, log or frame index, page count) in a cursor. */
export const indexCursor = { type: "string", pattern: cursorPattern(9) } as const;
/** A uint256 (value, fee, token id) in a cursor. */
export const uint256Cursor = { type: "string", pattern: cursorPattern(78) } as const;

/** The `value` of a cursor whose JSON number clients may send back as a double prints it. */
export const valueCursor = { type: "string", pattern: valueCursorPattern } as const;

/** Blockscout's `limit` of the token transfers list: items wanted, at most a page. */
export const limitParameter = { type: "string", pattern: limitPattern } as const;

/**
 * The rows to fetch for a page under Blockscout's `limit`: `min(page + 1, |limit|)` as Blockscout does, so
 * a limit of a page or less gives that many items and no next page; no limit fetches a page and one more.
 */
export function rowsForLimit(raw: string | undefined, page: number): number {
  const limit = cursorInteger(raw);
  return limit === null ? page + 1 : Math.min(page + 1, Math.abs(limit));
}

/** Parameters every list accepts besides its own: Blockscout's page counter and API keys. */
export const commonListQuery = {
  items_count: indexCursor,
  apikey: { type: "string" },
  key: { type: "string" },
} as const;

/** A cursor integer sent as text: digits become a number, `null`, empty or absent become null. */
export function cursorInteger(raw: string | undefined): number | null {
  return raw === undefined || raw === "" || raw === "null" ? null : Number(raw);
}

/** A cursor uint256 sent as text: digits stay a string, `null`, empty or absent become null. */
export function cursorDecimal(raw: string | undefined): string | null {
  return raw === undefined || raw === "" || raw === "null" ? null : raw;
}

/**
 * A cursor `value` (see {@link valueCursor}) as the exact decimal it spells, for SQL's `numeric`:
 * `4.994e+21` becomes `4994000000000000000000`, `1.5e-1` becomes `0.15`; `null`, empty or absent become null.
 */
export function cursorValue(raw: string | undefined): string | null {
  const sent = cursorDecimal(raw);
  const match = sent === null ? null : /^([0-9]+)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?$/.exec(sent);
  if (match === null) return sent;
  const [, whole, fraction = "", exponent = "0"] = match;
  const digits = whole + fraction;
  const point = whole.length + Number(exponent);
  const integer = point <= 0 ? "0" : digits.slice(0, point).padEnd(point, "0");
  const decimals =
    point >= digits.length ? "" : (point < 0 ? "0".repeat(-point) : "") + digits.slice(Math.max(point, 0));
  const exact = integer.replace(/^0+(?=[0-9])/, "");
  const tail = decimals.replace(/0+$/, "");
  return tail === "" ? exact : `${exact}.${tail}`;
}

/** A path or query hash as the lowercase hex the database compares. */
export function lowerHex(raw: string): string {
  return raw.toLowerCase();
}

/** A cursor address as clients send it back: hex, or `null`/empty for "no value". */
export const addressCursor = { type: "string", pattern: "^(0x[A-Fa-f0-9]{40}|null|)$" } as const;

/** Pattern of a token id path parameter (Blockscout's `token_id_param`). */
export const tokenIdPattern = "^-?([1-9][0-9]*|0)$";

/** A token address and one of its ids (`/tokens/{address_hash}/instances/{id}/...`). */
export const tokenInstanceParams = {
  type: "object",
  required: ["address_hash_param", "token_id_param"],
  properties: {
    address_hash_param: { type: "string", pattern: addressPattern },
    token_id_param: { type: "string", pattern: tokenIdPattern },
  },
} as const;

/** Blockscout's pattern of the `type` token-type list: case-insensitive, optionally in brackets. */
export const tokenTypeListPattern =
  "^\\[?(ERC-20|ERC-721|ERC-1155|ERC-404|ERC-7984)(,(ERC-20|ERC-721|ERC-1155|ERC-404|ERC-7984))*\\]?$";

/**
 * The token types of a `type` list that are among `allowed` (Blockscout drops the others), upper-cased
 * and without duplicates; empty or absent means no filter (`[]`). Null when the list does not match
 * `tokenTypeListPattern`.
 */
export function tokenTypeList(raw: string | undefined, allowed: readonly string[]): string[] | null {
  if (raw === undefined || raw === "") return [];
  if (!new RegExp(tokenTypeListPattern, "i").test(raw)) return null;
  const labels = raw.toUpperCase().replace(/^\[/, "").replace(/\]$/, "").split(",");
  return [...new Set(labels.filter((label) => allowed.includes(label)))];
}
