import { documented } from "./params.ts";

/** Token types the `type` filter of the lists knows (Blockscout's, ERC-7984 included). */
export const tokenTypes = ["ERC-20", "ERC-721", "ERC-1155", "ERC-404", "ERC-7984"] as const;

/** Blockscout's pattern of the `type` token-type list: case-insensitive, optionally in brackets. */
export const tokenTypeListPattern = `^\\[?(${tokenTypes.join("|")})(,(${tokenTypes.join("|")}))*\\]?$`;

/**
 * The schema format of a `type` list, checked with the other parameters (so that a request with more than one
 * bad parameter hears of each): empty, or `tokenTypeListPattern` in any letter case, which a JSON schema
 * `pattern` (no flags) cannot say.
 */
export const tokenTypeListFormat = {
  name: "token-type-list",
  test: new RegExp(`^$|${tokenTypeListPattern}`, "i"),
  /** Blockscout's 422 entries for a list in neither form: the failed `anyOf`, then each form's reason. */
  details: [
    'Failed to cast value using any of: Schema(title: "EmptyString", type: :string), Schema(type: :string)',
    "String length is larger than maxLength: 0",
    `Invalid format. Expected ~r/${tokenTypeListPattern}/i`,
  ],
} as const;

/**
 * The `type` query parameter of a list that keeps the token types `allowed` (any of `tokenTypes` is
 * accepted; Blockscout drops the others).
 */
export function tokenTypesParameter(allowed: readonly string[]) {
  const dropped = allowed.length < tokenTypes.length ? "; others are dropped" : "";
  return documented(
    { type: "string", format: tokenTypeListFormat.name },
    {
      description: `Comma-separated token types (${allowed.join(", ")}${dropped}), any letter case, optionally in brackets; empty or absent for all.`,
      example: "ERC-20,ERC-721",
    },
  );
}

/**
 * The token types of a `type` list (valid: see `tokenTypeListFormat`) that are among `allowed`
 * (Blockscout drops the others), upper-cased and without duplicates; empty or absent means no filter (`[]`).
 */
export function readTokenTypes(raw: string | undefined, allowed: readonly string[]): string[] {
  if (raw === undefined || raw === "") return [];
  const labels = raw.toUpperCase().replace(/^\[/, "").replace(/\]$/, "").split(",");
  return [...new Set(labels.filter((label) => allowed.includes(label)))];
}
