import { validate } from "@scalar/openapi-validator";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Endpoint } from "../src/api/define-endpoint.ts";
import { endpoints } from "../src/api/endpoints/index.ts";
import { createApiServer } from "../src/api/server.ts";
import { required } from "../src/required.ts";
import { createTestDatabase, type TestDatabase } from "./support/databases.ts";
import { documentPath, endpointNamed, listEndpoints } from "./support/endpoints.ts";

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
  components: { schemas: Record<string, JsonObject> };
};
type JsonObject = {
  $ref?: string;
  allOf?: JsonObject[];
  anyOf?: JsonObject[];
  properties?: Record<string, JsonObject>;
};

/** The component a `$ref`, or a described `allOf`/`anyOf` around one, points to; `schema` itself otherwise. */
function resolve(document: Document, schema: JsonObject): JsonObject {
  const reference =
    schema.$ref ?? [...(schema.allOf ?? []), ...(schema.anyOf ?? [])].find((part) => part.$ref)?.$ref;
  return reference
    ? (document.components.schemas[reference.replace("#/components/schemas/", "")] ?? {})
    : schema;
}

/** The keys of the `next_page_params` an operation's 200 answer carries; null for an answer that is no list. */
function cursorKeys(document: Document, operation: Operation): string[] | null {
  const body = resolve(
    document,
    operation.responses["200"]?.content["application/json"]?.schema as JsonObject,
  );
  const cursor = body.properties?.next_page_params;
  return cursor ? Object.keys(resolve(document, cursor).properties ?? {}) : null;
}

/** The endpoints that answer 404 for what their path names (a block, token or transaction not indexed). */
const answersNotFound = ["blockWithdrawals", "tokenHolders", "transactionSummary", "tokenInstanceHolders"];

/** The statuses the endpoint `operationId` can answer. */
function statusesOf(operationId: string): string[] {
  return ["200", "400", ...(answersNotFound.includes(operationId) ? ["404"] : []), "422", "500"];
}

/** The filters each list with filters accepts besides its cursor keys, `items_count`, `apikey` and `key`. */
const listFilters: Record<string, string[]> = {
  addressTokens: ["type"],
  addressTransactions: ["filter", "sort", "order"],
  addressLogs: ["topic"],
  tokenTransfers: ["type"],
  addressNftCollections: ["type"],
  addressInternalTransactions: ["filter"],
  addressTokenTransfers: ["type", "filter", "token"],
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

  const operationOf = (endpoint: Endpoint) =>
    document.paths[documentPath(endpoint)]?.[endpoint.method.toLowerCase()] as Operation;

  it("is a valid OpenAPI 3.1 document", () => {
    expect(document.openapi).toBe("3.1.0");
    const outcome = validate(structuredClone(document), { checkPathParameters: true });
    expect(outcome.errors ?? []).toEqual([]);
    expect(outcome.valid).toBe(true);
  });

  it("numbers the endpoints of the list 1 to n, each once, and knows every name its tables use", () => {
    expect(endpoints.map((endpoint) => endpoint.number).sort((a, b) => a - b)).toEqual(
      endpoints.map((_, i) => i + 1),
    );
    const names = endpoints.map((endpoint) => endpoint.schema.operationId);
    expect(new Set(names).size).toBe(names.length);
    for (const name of [...answersNotFound, ...Object.keys(listFilters)])
      expect(endpointNamed(name)).toBeTruthy();
  });

  it("documents exactly the endpoints of the list, each with its path and query parameters described", () => {
    expect(Object.keys(document.paths).sort()).toEqual(endpoints.map(documentPath).sort());
    for (const endpoint of endpoints) {
      const path = documentPath(endpoint);
      expect(Object.keys(document.paths[path] ?? {}), path).toEqual([endpoint.method.toLowerCase()]);
      const operation = operationOf(endpoint);
      expect(operation.operationId, path).toBe(endpoint.schema.operationId);
      expect(operation.summary, path).toBeTruthy();
      expect(operation.description, path).toMatch(new RegExp(`^Endpoint ${endpoint.number}\\. \\S`));
      const pathNames = [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => name);
      const inPath = operation.parameters.filter((parameter) => parameter.in === "path");
      expect(inPath.map((parameter) => parameter.name).sort(), path).toEqual(pathNames.sort());
      expect(inPath.every((parameter) => parameter.required)).toBe(true);
      const inQuery = operation.parameters.filter((parameter) => parameter.in === "query").map((p) => p.name);
      expect(inQuery, path).toEqual(
        expect.arrayContaining(["apikey", "key", ...(listFilters[endpoint.schema.operationId] ?? [])]),
      );
      for (const parameter of operation.parameters)
        expect(parameter.description, `${path} ${parameter.name}`).toBeTruthy();
    }
  });

  it("accepts back every key of each list's next_page_params, items_count included", () => {
    const lists = endpoints.filter((endpoint) => {
      const operation = operationOf(endpoint);
      const keys = cursorKeys(document, operation);
      if (keys === null) return false;
      const inQuery = operation.parameters.filter((parameter) => parameter.in === "query").map((p) => p.name);
      expect(keys, endpoint.path).toContain("items_count");
      expect(inQuery, endpoint.path).toEqual(expect.arrayContaining(keys));
      return true;
    });
    // The lists the tests enumerate are the endpoints whose answer is a page.
    expect(lists).toEqual(listEndpoints);
    expect(lists.length).toBeGreaterThan(0);
  });

  it("gives every status each endpoint can answer a JSON schema", () => {
    for (const endpoint of endpoints) {
      const path = documentPath(endpoint);
      const statuses = statusesOf(endpoint.schema.operationId);
      const { responses } = operationOf(endpoint);
      expect(Object.keys(responses).sort(), path).toEqual(statuses);
      for (const status of statuses) {
        expect(responses[status]?.description, `${path} ${status}`).toBeTruthy();
        expect(responses[status]?.content["application/json"]?.schema, `${path} ${status}`).toBeTruthy();
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
      for (const [status, response] of Object.entries(required(item.get, `GET ${path}`).responses)) {
        expect(
          () =>
            ajv.compile(
              resolved(required(response.content["application/json"], `${path} ${status} JSON`).schema),
            ),
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
