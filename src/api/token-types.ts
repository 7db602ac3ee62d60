import { ApiError } from "./errors.ts";
import { documented } from "./params.ts";

/** Token types the `type` filter of the lists knows (Blockscout's, ERC-7984 included). */
export const tokenTypes = ["ERC-20", "ERC-721", "ERC-1155", "ERC-404", "ERC-7984"] as const;

/** Blockscout's pattern of the `type` token-type list: case-insensitive, optionally in brackets. */
export const tokenTypeListPattern = `^\\[?(${tokenTypes.join("|")})(,(${tokenTypes.join("|")}))*\\]?$`;

/**
 * The `type` query parameter of a list that keeps the token types `allowed` (any of `tokenTypes` is
 * accepted; Blockscout drops the others).
 */
export function tokenTypesParameter(allowed: readonly string[]) {
  const dropped = allowed.length < tokenTypes.length ? "; others are dropped" : "";
  return documented(
    { type: "string" },
    {
      description: `Comma-separated token types (${allowed.join(", ")}${dropped}), any letter case, optionally in brackets; empty or absent for all.`,
      example: "ERC-20,ERC-721",
    },
  );
}

/**
 * The token types of a `type` list that are among `allowed` (Blockscout drops the others), upper-cased
 * and without duplicates; empty or absent means no filter (`[]`). A list that matches neither of
 * Blockscout's two forms (empty, or `tokenTypeListPattern`) is refused with Blockscout's 422.
 */
export function readTokenTypes(raw: string | undefined, allowed: readonly string[]): string[] {
  if (raw === undefined || raw === "") return [];
  if (!new RegExp(tokenTypeListPattern, "i").test(raw)) throw invalidTokenType();
  const labels = raw.toUpperCase().replace(/^\[/, "").replace(/\]$/, "").split(",");
  return [...new Set(labels.filter((label) => allowed.includes(label)))];
}

function invalidTokenType(): ApiError {
  const entry = (detail: string) => ({ title: "Invalid value", source: { pointer: "/type" }, detail });
  return new ApiError(422, {
    errors: [
      entry(
        'Failed to cast value using any of: Schema(title: "EmptyString", type: :string), Schema(type: :string)',
      ),
      entry("String length is larger than maxLength: 0"),
      entry(`Invalid format. Expected ~r/${tokenTypeListPattern}/i`),
    ],
  });
}
