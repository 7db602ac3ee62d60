import { readFileSync } from "node:fs";
import { Ajv } from "ajv";
import { parse } from "yaml";
import { required } from "../../src/required.ts";
import {
  addFormats,
  type OpenApiDocument,
  type ResponseValidator,
  validatorFor,
} from "../conformance/openapi-validators.ts";
import { sharedPath } from "./shared.ts";

/**
 * Where the interface document deliberately gives a field another type than Blockscout's schema (rule 1
 * of the contract: "the interface document wins"), the schema is changed here, and only here: schema
 * name, property, and the type the contract sends.
 */
export const interfaceDocumentOverrides: { schema: string; property: string; type: object; why: string }[] = [
  {
    schema: "Transaction",
    property: "gas_limit",
    type: { type: "integer" },
    why: "the interface document types a transaction's gas_limit as an integer",
  },
  {
    schema: "Transaction",
    property: "token_transfers",
    type: { type: "array", items: { $ref: "#/components/schemas/TokenTransfer" }, nullable: true },
    why: "the interface document types a list transaction's token_transfers as an array of token transfers",
  },
  {
    schema: "Transaction",
    property: "token_transfers_overflow",
    type: { type: "boolean", nullable: true },
    why: "the interface document types token_transfers_overflow as a boolean",
  },
  {
    schema: "Transaction",
    property: "to",
    type: { allOf: [{ $ref: "#/components/schemas/Address" }], nullable: true },
    why: "the contract sends to: null for a contract creation (as Blockscout does; its schema omits nullable)",
  },
  {
    schema: "TokenBalance",
    property: "token",
    type: { $ref: "#/components/schemas/TokenWithIntegerHoldersCount" },
    why: "the interface document types holders_count as an integer on the token of an address tokens item",
  },
];

/**
 * Every `additionalProperties: false` made `true`: the contract's responses are a superset (rule 1). And
 * OpenAPI 3.0's `nullable` beside a `$ref` or `anyOf` (no `type`, which Ajv needs for it) made an `anyOf`
 * with `null`, and beside an `enum` (which OpenAPI 3.0 lets null pass) `null` added to the enum.
 */
function allowExtraKeys(node: unknown): void {
  if (Array.isArray(node)) {
    for (const entry of node) allowExtraKeys(entry);
  } else if (node !== null && typeof node === "object") {
    const record = node as Record<string, unknown>;
    if (record.additionalProperties === false) record.additionalProperties = true;
    for (const value of Object.values(record)) allowExtraKeys(value);
    if (record.nullable === true && Array.isArray(record.enum) && !record.enum.includes(null))
      record.enum = [...record.enum, null];
    if ("nullable" in record && !("type" in record)) {
      const { nullable, ...rest } = record;
      for (const key of Object.keys(record)) delete record[key];
      Object.assign(record, nullable === true ? { anyOf: [rest, { type: "null" }] } : rest);
    }
  }
}

/**
 * A validator of responses against Blockscout's schemas, with extra keys allowed (the superset rule) and
 * the `interfaceDocumentOverrides` applied. Paths are Sextant's (`/api/v2/...`).
 */
export function blockscoutValidator(): ResponseValidator {
  // Blockscout's published OpenAPI document (OpenAPI 3.0) of the release the contract follows.
  const path = sharedPath("reference/blockscout-openapi/blockscout-11.2.7-ethereum.yaml");
  const document = parse(readFileSync(path, "utf8")) as OpenApiDocument & {
    components: { schemas: Record<string, { properties: Record<string, unknown> }> };
  };
  const schemas = document.components.schemas;
  const schemaNamed = (name: string) => required(schemas[name], `Blockscout's ${name} schema`);
  const integerHoldersCount = structuredClone(schemaNamed("Token"));
  integerHoldersCount.properties.holders_count = { type: "integer" };
  schemas.TokenWithIntegerHoldersCount = integerHoldersCount;
  for (const { schema, property, type } of interfaceDocumentOverrides) {
    const { properties } = schemaNamed(schema);
    if (!(property in properties))
      throw new Error(`override of ${schema}.${property}: Blockscout's schema has no such property`);
    properties[property] = type;
  }
  allowExtraKeys(document);
  // OpenAPI 3.0 schemas: `nullable` is understood by Ajv; `x-*` and `example` are annotations.
  const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
  addFormats(ajv);
  ajv.addSchema(document, "blockscout");
  return validatorFor(ajv, "blockscout", document, "/api");
}
