import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { parse } from "yaml";

// ajv-formats is CommonJS: its default export arrives wrapped under ESM.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

/** Blockscout's published OpenAPI document (OpenAPI 3.0) of the release the contract follows. */
export const blockscoutDocumentPath = fileURLToPath(
  new URL("../../../shared/reference/blockscout-openapi/blockscout-11.2.7-ethereum.yaml", import.meta.url),
);

/** A response body checker: the problems found, empty when the body conforms. */
export type ResponseValidator = (apiPath: string, status: number, body: unknown) => string[];

type OpenApiDocument = { paths: Record<string, Record<string, { responses?: Record<string, unknown> }>> };

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

function describe(errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map(
    (error) => `${error.instancePath || "/"} ${error.message} ${JSON.stringify(error.params)}`,
  );
}

/** The document's path template that `apiPath` (e.g. `/api/v2/blocks/1/withdrawals`) is an instance of. */
function templateOf(templates: string[], apiPath: string, prefix: string): string | undefined {
  const path = apiPath.split("?")[0];
  // Literal templates first: `/v2/tokens/` before `/v2/tokens/{address_hash_param}`.
  const ordered = [...templates].sort(
    (a, b) => (a.match(/\{/g)?.length ?? 0) - (b.match(/\{/g)?.length ?? 0),
  );
  return ordered.find((template) =>
    new RegExp(`^${(prefix + template).replace(/\{[^}]+\}/g, "[^/]+").replace(/\/$/, "")}/?$`).test(path),
  );
}

function validatorFor(
  ajv: Ajv | Ajv2020,
  id: string,
  document: OpenApiDocument,
  prefix: string,
): ResponseValidator {
  const compiled = new Map<string, ValidateFunction | null>();
  return (apiPath, status, body) => {
    const template = templateOf(Object.keys(document.paths), apiPath, prefix);
    if (!template) return [`the document has no path for ${apiPath}`];
    const key = `${template} ${status}`;
    if (!compiled.has(key)) {
      const response = document.paths[template].get?.responses?.[String(status)] as
        | { content?: Record<string, { schema?: unknown }> }
        | undefined;
      const pointer = [
        "paths",
        template,
        "get",
        "responses",
        String(status),
        "content",
        "application/json",
        "schema",
      ]
        .map((part) => part.replaceAll("~", "~0").replaceAll("/", "~1"))
        .join("/");
      compiled.set(
        key,
        response?.content?.["application/json"]?.schema ? ajv.compile({ $ref: `${id}#/${pointer}` }) : null,
      );
    }
    const validate = compiled.get(key);
    if (!validate) return [`the document describes no ${status} JSON response for ${template}`];
    return validate(body) ? [] : describe(validate.errors);
  };
}

/**
 * A validator of responses against Blockscout's schemas, with extra keys allowed (the superset rule) and
 * the `interfaceDocumentOverrides` applied. Paths are Sextant's (`/api/v2/...`).
 */
export function blockscoutValidator(): ResponseValidator {
  const document = parse(readFileSync(blockscoutDocumentPath, "utf8")) as OpenApiDocument & {
    components: { schemas: Record<string, { properties: Record<string, unknown> }> };
  };
  const schemas = document.components.schemas;
  schemas.TokenWithIntegerHoldersCount = structuredClone(schemas.Token);
  schemas.TokenWithIntegerHoldersCount.properties.holders_count = { type: "integer" };
  for (const { schema, property, type } of interfaceDocumentOverrides) {
    if (!(property in schemas[schema].properties))
      throw new Error(`override of ${schema}.${property}: Blockscout's schema has no such property`);
    schemas[schema].properties[property] = type;
  }
  allowExtraKeys(document);
  // OpenAPI 3.0 schemas: `nullable` is understood by Ajv; `x-*` and `example` are annotations.
  const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
  addFormats(ajv);
  ajv.addSchema(document, "blockscout");
  return validatorFor(ajv, "blockscout", document, "/api");
}

/**
 * A validator of responses against Sextant's own OpenAPI 3.1 document, as the running app serves it at
 * `/api/v2/openapi.json`. Its paths may be written with or without the `/api` prefix.
 */
export function ownDocumentValidator(document: OpenApiDocument): ResponseValidator {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  addFormats(ajv);
  ajv.addSchema(document, "sextant");
  const prefixed = Object.keys(document.paths).some((path) => path.startsWith("/api/"));
  return validatorFor(ajv, "sextant", document, prefixed ? "" : "/api");
}
