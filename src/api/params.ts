import { expandDecimal } from "../decimal.ts";
import { demo, type JsonSchema } from "./schemas/common.ts";

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
 * Most digits of a balance. A balance is a sum of transfers of up to 2^256 - 1 each (any contract can
 * emit them), not a uint256: 100 digits hold 10^22 such transfers, and every value a double prints with
 * a two-digit exponent.
 */
export const balanceDigits = 100;
/**
 * A cursor `value` (a balance) that a JSON number carried: Blockscout's frontend reads it with
 * `JSON.parse` and sends back `String(number)`, so a value above 2^53 comes back rounded
 * (`1152921504606847000`) and one of 1e21 or more in exponent form (`4.994e+21`). Digits, a fraction and
 * an exponent of up to two digits.
 */
const valueCursorPattern = `^([0-9]{1,${balanceDigits}}(\\.[0-9]{1,${balanceDigits}})?([eE][+-]?[0-9]{1,2})?|null|)$`;
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

/** The description and the example (a real value of the demo chain) of a path or query parameter. */
export type ParameterDoc = { description: string; example?: string };

/** `schema` with what the OpenAPI document says of the parameter: its description and its example. */
export function documented<Schema extends JsonSchema>(
  schema: Schema,
  { description, example }: ParameterDoc,
) {
  return { ...schema, description, ...(example === undefined ? {} : { examples: [example] }) };
}

const digitsCursorDoc = (what: string): ParameterDoc => ({
  description: `Cursor key from \`next_page_params\`: ${what}. Digits, or \`null\`/empty for none.`,
});
const hexCursorDoc = (what: string): ParameterDoc => ({
  description: `Cursor key from \`next_page_params\`: ${what}. Hex, or \`null\`/empty for none.`,
});

/** The `address_hash_param` path parameter; `doc` says what differs from any address's description. */
export function addressHashParams(doc: Partial<ParameterDoc> = {}) {
  const anyAddress = {
    description: "Address, `0x` and 40 hex digits in any letter case.",
    example: demo.holder,
  };
  return {
    type: "object",
    required: ["address_hash_param"],
    properties: {
      address_hash_param: documented({ type: "string", pattern: addressPattern }, { ...anyAddress, ...doc }),
    },
  };
}

/** A block number (or another int8 key) in a cursor: `what` says whose. */
export function bigintCursor(what: string) {
  return documented({ type: "string", pattern: cursorPattern(18) }, digitsCursorDoc(what));
}

/** A position (transaction, log or frame index, page count) in a cursor: `what` says whose. */
export function indexCursor(what: string) {
  return documented({ type: "string", pattern: cursorPattern(9) }, digitsCursorDoc(what));
}

/** A uint256 (value, fee, token id) in a cursor: `what` says whose. */
export function uint256Cursor(what: string) {
  return documented({ type: "string", pattern: cursorPattern(78) }, digitsCursorDoc(what));
}

/** The `value` of a cursor whose JSON number clients may send back as a double prints it. */
export function valueCursor(what: string) {
  return documented(
    { type: "string", pattern: valueCursorPattern },
    {
      description: `Cursor key from \`next_page_params\`: ${what}. Digits, or as a JSON double prints them (\`4.994e+21\`, \`1152921504606847000\`): the page still resumes right after the last row, found by the other keys. \`null\`/empty for none.`,
    },
  );
}

/** A cursor address as clients send it back: hex, or `null`/empty for "no value". */
export function addressCursor(what: string) {
  return documented({ type: "string", pattern: "^(0x[A-Fa-f0-9]{40}|null|)$" }, hexCursorDoc(what));
}

/** A cursor hash as clients send it back: hex, or `null`/empty for "no value". */
export function hashCursor(what: string) {
  return documented({ type: "string", pattern: `${hashPattern}|^(null|)$` }, hexCursorDoc(what));
}

/** The cursor key most lists start with. */
export const blockNumberCursor = bigintCursor("block number of the last item");

/** Blockscout's `limit` of the token transfers list: items wanted, at most a page. */
export const limitParameter = { type: "string", pattern: limitPattern };

/**
 * The rows to fetch for a page under Blockscout's `limit`: `min(page + 1, |limit|)` as Blockscout does, so
 * a limit of a page or less gives that many items and no next page; no limit fetches a page and one more.
 */
export function rowsForLimit(raw: string | undefined, page: number): number {
  const limit = cursorInteger(raw);
  return limit === null ? page + 1 : Math.min(page + 1, Math.abs(limit));
}

/** Blockscout's API keys, which every endpoint accepts and ignores. */
export const apiKeys = {
  apikey: documented({ type: "string" }, { description: "API key (Blockscout's); accepted and ignored." }),
  key: documented({ type: "string" }, { description: "Secret key (Blockscout's); accepted and ignored." }),
};

/** Parameters every list accepts besides its own: Blockscout's page counter and API keys. */
export const commonListQuery = {
  items_count: documented(
    { type: "string", pattern: cursorPattern(9) },
    { description: "Cursor key from `next_page_params`: items already read. Accepted and ignored." },
  ),
  ...apiKeys,
};

/** A cursor integer sent as text: digits become a number, `null`, empty or absent become null. */
export function cursorInteger(raw: string | undefined): number | null {
  return raw === undefined || raw === "" || raw === "null" ? null : Number(raw);
}

/** A cursor uint256 sent as text: digits stay a string, `null`, empty or absent become null. */
export function cursorDecimal(raw: string | undefined): string | null {
  return raw === undefined || raw === "" || raw === "null" ? null : raw;
}

/** A cursor hash or address sent as text: lowercase hex, `null`, empty or absent become null. */
export function cursorHex(raw: string | undefined): string | null {
  const hex = cursorDecimal(raw);
  return hex === null ? null : lowerHex(hex);
}

/**
 * A cursor `value` (see {@link valueCursor}) as the exact decimal it spells, for SQL's `numeric`:
 * `4.994e+21` becomes `4994000000000000000000`, `1.5e-1` becomes `0.15`; `null`, empty or absent become null.
 */
export function cursorValue(raw: string | undefined): string | null {
  const sent = cursorDecimal(raw);
  return sent === null ? null : (expandDecimal(sent) ?? sent);
}

/** A path or query hash as the lowercase hex the database compares. */
export function lowerHex(raw: string): string {
  return raw.toLowerCase();
}
