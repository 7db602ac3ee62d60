import { describe, expect, it } from "vitest";
import { endpoints } from "../../src/api/endpoints/index.ts";
import { documentPath, listEndpoints } from "../support/endpoints.ts";
import { readInterfaceDocument } from "./interface-document.ts";

/** A path with its parameters unnamed: the document and Blockscout name them differently. */
const shape = (path: string) => path.replace(/\{\w+\}/g, "{}");

describe("the endpoint list", () => {
  const document = readInterfaceDocument();

  it("is the interface document's endpoints table: each number with its path, and nothing else", () => {
    expect(document.paths.size).toBeGreaterThan(0);
    expect(
      endpoints
        .map((endpoint): [number, string] => [endpoint.number, shape(documentPath(endpoint))])
        .sort(([a], [b]) => +a - +b),
    ).toEqual(
      [...document.paths]
        .map(([number, path]): [number, string] => [number, shape(path)])
        .sort(([a], [b]) => +a - +b),
    );
  });

  it("pages exactly the endpoints the document answers with items", () => {
    for (const endpoint of endpoints)
      expect(listEndpoints.includes(endpoint), endpoint.schema.operationId).toBe(
        document.bodies.get(endpoint.number)?.list,
      );
  });
});
