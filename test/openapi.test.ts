import { validate } from "@scalar/openapi-validator";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiServer } from "../src/api/server.ts";
import { createTestDatabase, type TestDatabase } from "./support/databases.ts";

type Parameter = { name: string; in: "path" | "query"; required?: boolean; description?: string };
type Operation = {
  operationId: string;
  summary: string;
  description: string;
  parameters: Parameter[];
  responses: Record<string, { description: string; content: Record<string, { schema: object }> }>;
};
type Document = {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, object> };
};

/** The contract's 13 paths with the statuses each can answer. */
const endpoints: Record<string, string[]> = {
  "/api/v2/addresses/{address_hash_param}/tokens": ["200", "400", "422", "500"],
  "/api/v2/addresses/{address_hash_param}/transactions": ["200", "400", "422", "500"],
  "/api/v2/addresses/{address_hash_param}/logs": ["200", "400", "422", "500"],
  "/api/v2/blocks/{block_hash_or_number_param}/withdrawals": ["200", "400", "404", "422", "500"],
  "/api/v2/addresses/{address_hash_param}/withdrawals": ["200", "400", "422", "500"],
  "/api/v2/tokens/{address_hash_param}/holders": ["200", "400", "404", "422", "500"],
  "/api/v2/transactions/{transaction_hash_param}/summary": ["200", "400", "404", "422", "500"],
  "/api/v2/token-transfers": ["200", "400", "422", "500"],
  "/api/v2/tokens/{address_hash_param}/instances/{token_id_param}/holders": [
    "200",
    "400",
    "404",
    "422",
    "500",
  ],
  "/api/v2/proxy/account-abstraction/status": ["200", "400", "422", "500"],
  "/api/v2/addresses/{address_hash_param}/nft/collections": ["200", "400", "422", "500"],
  "/api/v2/addresses/{address_hash_param}/internal-transactions": ["200", "400", "422", "500"],
  "/api/v2/addresses/{address_hash_param}/token-transfers": ["200", "400", "422", "500"],
};

/** Query parameters each list accepts besides `items_count`, `apikey` and `key`: filters and cursor keys. */
const listQueries: Record<string, string[]> = {
  "/api/v2/addresses/{address_hash_param}/tokens": [
    "type",
    "value",
    "id",
    "fiat_value",
    "token_name",
    "token_type",
  ],
  "/api/v2/addresses/{address_hash_param}/transactions": ["filter", "sort", "order", "block_number", "index"],
  "/api/v2/addresses/{address_hash_param}/logs": ["topic", "block_number", "index"],
  "/api/v2/blocks/{block_hash_or_number_param}/withdrawals": ["index"],
  "/api/v2/addresses/{address_hash_param}/withdrawals": ["index"],
  "/api/v2/tokens/{address_hash_param}/holders": ["value", "address_hash"],
  "/api/v2/token-transfers": ["type", "block_number", "index", "index_in_batch"],
  "/api/v2/tokens/{address_hash_param}/instances/{token_id_param}/holders": [
    "value",
    "address_hash",
    "token_id",
  ],
  "/api/v2/addresses/{address_hash_param}/nft/collections": [
    "type",
    "token_contract_address_hash",
    "token_type",
  ],
  "/api/v2/addresses/{address_hash_param}/internal-transactions": [
    "filter",
    "block_number",
    "index",
    "transaction_index",
  ],
  "/api/v2/addresses/{address_hash_param}/token-transfers": [
    "type",
    "filter",
    "token",
    "block_number",
    "index",
  ],
};

describe("the OpenAPI document", () => {
  let test: TestDatabase;
  let app: FastifyInstance;
  let document: Document;

  beforeAll(async () => {
    test = await createTestDatabase("pglite");
    app = await createApiServer({ db: test.db });
    const response = await app.inject("/api/v2/openapi.json");
    expect(response.statusCode).toBe(200);
    expect(response.headers["content-type"]).toBe("application/json; charset=utf-8");
    document = response.json();
  });

  afterAll(async () => {
    await app?.close();
    await test?.drop();
  });

  it("is a valid OpenAPI 3.1 document", () => {
    expect(document.openapi).toBe("3.1.0");
    const outcome = validate(structuredClone(document), { checkPathParameters: true });
    expect(outcome.errors ?? []).toEqual([]);
    expect(outcome.valid).toBe(true);
  });

  it("documents exactly the 13 endpoints, each with its path and query parameters described", () => {
    expect(Object.keys(document.paths).sort()).toEqual(Object.keys(endpoints).sort());
    for (const [path, item] of Object.entries(document.paths)) {
      expect(Object.keys(item)).toEqual(["get"]);
      const operation = item.get;
      expect(operation.operationId, path).toBeTruthy();
      expect(operation.summary, path).toBeTruthy();
      expect(operation.description, path).toMatch(/^Endpoint \d+\./);
      const pathNames = [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => name);
      const inPath = operation.parameters.filter((parameter) => parameter.in === "path");
      expect(inPath.map((parameter) => parameter.name).sort(), path).toEqual(pathNames.sort());
      expect(inPath.every((parameter) => parameter.required)).toBe(true);
      const inQuery = operation.parameters.filter((parameter) => parameter.in === "query").map((p) => p.name);
      expect(inQuery, path).toEqual(expect.arrayContaining(["apikey", "key", ...(listQueries[path] ?? [])]));
      if (listQueries[path]) expect(inQuery, path).toContain("items_count");
      for (const parameter of operation.parameters)
        expect(parameter.description, `${path} ${parameter.name}`).toBeTruthy();
    }
  });

  it("gives every status each endpoint can answer a JSON schema", () => {
    for (const [path, statuses] of Object.entries(endpoints)) {
      const { responses } = document.paths[path].get;
      expect(Object.keys(responses).sort(), path).toEqual(statuses);
      for (const status of statuses) {
        expect(responses[status].description, `${path} ${status}`).toBeTruthy();
        expect(responses[status].content["application/json"].schema, `${path} ${status}`).toBeTruthy();
      }
    }
  });

  it("has schemas that compile as JSON Schema 2020-12 with every reference resolved", () => {
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    addFormats.default(ajv);
    // The components as one schema resource, with `#/components/schemas/...` pointing into it.
    const resolved = (schema: object) =>
      JSON.parse(
        JSON.stringify(schema).replaceAll(
          '"#/components/',
          '"https://sextant.invalid/openapi.json#/$defs/components/',
        ),
      );
    ajv.addSchema(
      resolved({ $id: "https://sextant.invalid/openapi.json", $defs: { components: document.components } }),
    );
    for (const [name, schema] of Object.entries(document.components.schemas)) {
      expect(() => ajv.compile(resolved(schema)), name).not.toThrow();
    }
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [status, response] of Object.entries(item.get.responses)) {
        expect(
          () => ajv.compile(resolved(response.content["application/json"].schema)),
          `${path} ${status}`,
        ).not.toThrow();
      }
    }
  });

  it("leaves response bodies as the routes write them", async () => {
    const response = await app.inject("/api/v2/token-transfers?type=erc-20");
    expect(response.body).toBe('{"items":[],"next_page_params":null}');
    const invalid = await app.inject("/api/v2/addresses/0x12/logs");
    expect(invalid.statusCode).toBe(422);
    expect(invalid.json()).toEqual({
      errors: [
        {
          title: "Invalid value",
          source: { pointer: "/address_hash_param" },
          detail: "Invalid format. Expected ~r/^0x([A-Fa-f0-9]{40})$/",
        },
      ],
    });
  });

  it("is described by the docs page, which serves Scalar's script itself", async () => {
    const page = await app.inject("/docs/");
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<script src="js/scalar.js"></script>');
    expect(page.body).toContain('"url": "/api/v2/openapi.json"');
    expect(page.body).not.toMatch(/https?:\/\//);
    const script = await app.inject("/docs/js/scalar.js");
    expect(script.statusCode).toBe(200);
    expect(script.headers["content-type"]).toContain("javascript");
  });
});
