import { storedTokenTypes } from "../../db/token-types.ts";
/** A JSON Schema (2020-12, as OpenAPI 3.1 uses it). */
export type JsonSchema = Record<string, unknown>;

/** A reference to one of the document's component schemas. */
export function ref(name: string): JsonSchema {
  return { $ref: `#/components/schemas/${name}` };
}

/**
 * A described use of a component schema. `@fastify/swagger` drops the siblings of a `$ref`, so the
 * description sits beside an `allOf` (or, nullable, an `anyOf` with `null`) that holds the reference.
 */
export function refTo(name: string, description: string, { nullable = false } = {}): JsonSchema {
  return nullable
    ? { description, anyOf: [ref(name), { type: "null" }] }
    : { description, allOf: [ref(name)] };
}

/** `schema` that may also be `null` (enums list `null` too, as JSON Schema requires). */
export function orNull(schema: JsonSchema): JsonSchema {
  const type = schema.type as string | string[];
  return {
    ...schema,
    type: [...(Array.isArray(type) ? type : [type]), "null"],
    ...(Array.isArray(schema.enum) ? { enum: [...schema.enum, null] } : {}),
  };
}

/** An object whose listed keys are all sent and no others. */
export function object(properties: Record<string, JsonSchema>, extra: JsonSchema = {}): JsonSchema {
  return {
    type: "object",
    ...extra,
    required: Object.keys(properties),
    additionalProperties: false,
    properties,
  };
}

/** A string with a description and one real example. */
export function string(description: string, example?: string, extra: JsonSchema = {}): JsonSchema {
  return { type: "string", description, ...extra, ...(example === undefined ? {} : { examples: [example] }) };
}

/** A JSON integer (block numbers, indexes, nonces, positions, counts). */
export function integer(description: string, example?: number): JsonSchema {
  return { type: "integer", description, ...(example === undefined ? {} : { examples: [example] }) };
}

/** A boolean. */
export function boolean(description: string): JsonSchema {
  return { type: "boolean", description };
}

/** A field that is always `null` here (no price feed, no thumbnails): typed as Blockscout types it when set. */
export function alwaysNull(description: string, type: string | string[] = "string"): JsonSchema {
  return orNull({ type, description: `${description} Always null: Sextant has no source for it.` });
}

/** A uint256 (amount, fee, gas, supply, balance, token id) as a JSON string of decimal digits, exact. */
export function decimal(description: string, example?: string): JsonSchema {
  return string(description, example, { pattern: "^[0-9]+$" });
}

/** A 32-byte hash (transaction, block, topic) as lowercase `0x` hex. */
export function fullHash(description: string, example?: string): JsonSchema {
  return string(description, example, { pattern: "^0x[0-9a-f]{64}$" });
}

/** A 20-byte address as EIP-55 checksummed `0x` hex. */
export function checksummedAddress(description: string, example?: string): JsonSchema {
  return string(description, example, { pattern: "^0x[0-9a-fA-F]{40}$" });
}

/** A 20-byte address as lowercase `0x` hex (inside `next_page_params`). */
export function lowerAddress(description: string, example?: string): JsonSchema {
  return string(description, example, { pattern: "^0x[0-9a-f]{40}$" });
}

/** Byte data as lowercase `0x` hex. */
export function hexData(description: string, example?: string): JsonSchema {
  return string(description, example, { pattern: "^0x([0-9a-f]{2})*$" });
}

/** A timestamp as Blockscout writes it: UTC, six fraction digits, `Z`. */
export function timestamp(description: string, example = "2026-11-22T04:57:24.000000Z"): JsonSchema {
  return string(description, example, {
    format: "date-time",
    pattern: "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{6}Z$",
  });
}

/** Token types Sextant recognizes. */
export const tokenTypeEnum = [...storedTokenTypes];

/** Addresses, tokens and hashes of the demo chain (`npm start`), used as examples throughout. */
export const demo = {
  deployer: "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
  holder: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
  caller: "0xDc64a140Aa3E981100a9becA4E685f962f0cF6C9",
  erc20: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
  erc721: "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512",
  erc1155: "0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0",
  erc404: "0x5FC8d32690cc91D4c39d9d3abcBD16989F875707",
  transaction: "0x32651d437ccd41340a8f02f228f72740bdd68410cca897849b936d59fcec910f",
  block: "0xc1769aa6137519a2818d5f3badeb77ebd5e3c0c539e6e705250f7393ed4e519a",
  transferTopic: "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef",
} as const;
