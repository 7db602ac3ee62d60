import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseKinds } from "../support/databases.ts";
import { only } from "../support/elements.ts";
import {
  endpointNamed,
  endpointPath,
  listEndpoints,
  pathParameters,
  wellFormedPathValues,
} from "../support/endpoints.ts";
import type { IndexedChain } from "../support/indexed-chain.ts";
import { fetchJson, hex, indexDemoChain, sql } from "./demo-chain.ts";

const unknownAddress = wellFormedPathValues.address_hash_param as string;
const addressDetail = "Invalid format. Expected ~r/^0x([A-Fa-f0-9]{40})$/";
const invalid = (pointer: string, detail: string) => ({
  title: "Invalid value",
  source: { pointer },
  detail,
});

describe.each(databaseKinds)("the error catalogue on %s", (kind) => {
  let chain: IndexedChain;
  let erc20: string;
  let nft: string;
  let head: number;
  /** The path parameters of the lists that answer 404 for a token not indexed: a real token of the demo. */
  let tokenParameters: Record<string, Record<string, string>>;
  /** The path of the list `operationId` with valid parameters: an unknown address, or a real token. */
  const list = (operationId: string) =>
    endpointPath(endpointNamed(operationId), { ...wellFormedPathValues, ...tokenParameters[operationId] });
  /** Every list endpoint's path with valid parameters. */
  let lists: string[];

  beforeAll(async () => {
    chain = await indexDemoChain(kind);
    const tokens = await sql<{ address: string; type: string }>(
      chain.test.db,
      `SELECT ${hex("address")} AS address, type FROM tokens ORDER BY address`,
    );
    erc20 = tokens.find((token) => token.type === "ERC-20")?.address as string;
    nft = tokens.find((token) => token.type === "ERC-1155")?.address as string;
    ({ head } = only(
      await sql<{ head: number }>(chain.test.db, "SELECT max(number)::int AS head FROM blocks"),
    ));
    tokenParameters = {
      tokenHolders: { address_hash_param: erc20 },
      tokenInstanceHolders: { address_hash_param: nft, token_id_param: "1" },
    };
    lists = listEndpoints.map((endpoint) => list(endpoint.schema.operationId));
  });
  afterAll(() => chain?.close());

  const get = (url: string) => fetchJson(chain.app, url);

  it("answers a malformed address path parameter with 422 and its pointer, on every address route", async () => {
    const withAddress = listEndpoints.filter((endpoint) =>
      pathParameters(endpoint).includes("address_hash_param"),
    );
    expect(withAddress).not.toHaveLength(0);
    for (const path of withAddress.map((endpoint) => list(endpoint.schema.operationId))) {
      const bad = path.replace(/0x[0-9a-fA-F]{40}/, "0x123");
      const response = await get(bad);
      expect(response.status, bad).toBe(422);
      expect(response.body, bad).toEqual({ errors: [invalid("/address_hash_param", addressDetail)] });
    }
  });

  it("answers a malformed block, token id or transaction parameter with 422 and its pointer", async () => {
    const block = await get("/api/v2/blocks/latest/withdrawals");
    expect(block.status).toBe(422);
    expect(
      (block.body as { errors: { source: unknown; title: string }[] }).errors.map((e) => e.source),
    ).toEqual(expect.arrayContaining([{ pointer: "/block_hash_or_number_param" }]));
    const id = await get(`/api/v2/tokens/${nft}/instances/01/holders`);
    expect(id.status).toBe(422);
    expect(id.body).toEqual({
      errors: [invalid("/token_id_param", "Invalid format. Expected ~r/^-?([1-9][0-9]*|0)$/")],
    });
    const both = await get("/api/v2/tokens/0xZZ/instances/x/holders");
    expect(both.body).toEqual({
      errors: [
        invalid("/address_hash_param", addressDetail),
        invalid("/token_id_param", "Invalid format. Expected ~r/^-?([1-9][0-9]*|0)$/"),
      ],
    });
  });

  it("answers a bad enum, hash, address or integer query parameter with 422 and its pointer", async () => {
    const cases: [string, unknown][] = [
      [`${list("addressTransactions")}?filter=sideways`, invalid("/filter", "Invalid value for enum")],
      [`${list("addressTransactions")}?sort=gas`, invalid("/sort", "Invalid value for enum")],
      [`${list("addressTransactions")}?order=up`, invalid("/order", "Invalid value for enum")],
      [
        `${list("addressInternalTransactions")}?filter=sideways`,
        invalid("/filter", "Invalid value for enum"),
      ],
      [`${list("addressTokenTransfers")}?filter=sideways`, invalid("/filter", "Invalid value for enum")],
      [
        `${list("addressLogs")}?topic=0x12`,
        invalid("/topic", "Invalid format. Expected ~r/^0x([A-Fa-f0-9]{64})$/"),
      ],
      [`${list("addressTokenTransfers")}?token=0x12`, invalid("/token", addressDetail)],
      [
        `${list("addressTransactions")}?block_number=abc`,
        invalid("/block_number", "Invalid integer. Got: string"),
      ],
      [`${list("addressLogs")}?index=1.5`, invalid("/index", "Invalid integer. Got: string")],
      [`${list("blockWithdrawals")}?index=-1`, invalid("/index", "Invalid integer. Got: string")],
    ];
    for (const [url, entry] of cases) {
      const response = await get(url);
      expect(response.status, url).toBe(422);
      expect(response.body, url).toEqual({ errors: [entry] });
    }
  });

  it("answers one 422 entry per bad parameter", async () => {
    const response = await get(`${list("addressTransactions")}?filter=x&sort=y`);
    expect(response.body).toEqual({
      errors: [invalid("/filter", "Invalid value for enum"), invalid("/sort", "Invalid value for enum")],
    });
  });

  it("answers an unknown query parameter with 422 on every list, and accepts what clients send", async () => {
    for (const path of lists) {
      const unknown = await get(`${path}?colour=blue`);
      expect(unknown.status, path).toBe(422);
      expect(unknown.body, path).toEqual({ errors: [invalid("/colour", "Unexpected field: colour")] });
      const known = await get(`${path}?items_count=50&apikey=k&key=k`);
      expect(known.status, path).toBe(200);
    }
  });

  it("lists nothing for a valid but unknown address", async () => {
    for (const path of lists.filter((path) => path.includes(unknownAddress))) {
      const response = await get(path);
      expect(response.status, path).toBe(200);
      expect(response.body, path).toEqual({ items: [], next_page_params: null });
    }
  });

  it("answers 404 Not found for unknown tokens, an ERC-20 instance and unknown blocks", async () => {
    for (const url of [
      `/api/v2/tokens/${unknownAddress}/holders`,
      `/api/v2/tokens/${unknownAddress}/instances/1/holders`,
      `/api/v2/tokens/${erc20}/instances/1/holders`,
      `/api/v2/blocks/${head + 1}/withdrawals`,
      `/api/v2/blocks/0x${"ab".repeat(32)}/withdrawals`,
    ]) {
      const response = await get(url);
      expect(response.status, url).toBe(404);
      expect(response.body, url).toEqual({ message: "Not found" });
    }
  });

  it("answers 400 Unknown API v2 action for any other path under /api/v2", async () => {
    for (const url of [
      "/api/v2/nothing",
      "/api/v2/addresses/0x12/whatever",
      "/api/v2/token-transfers/extra",
      "/api/v2",
      "/api/v2?items_count=50",
    ]) {
      const response = await get(url);
      expect(response.status, url).toBe(400);
      expect(response.body, url).toEqual({ message: "Unknown API v2 action" });
    }
    // The API reads no body: a POST is an unknown action whatever it carries.
    for (const payload of ["{not json", '{"a":1}', "plain text"]) {
      const response = await chain.app.inject({
        method: "POST",
        url: list("addressTransactions"),
        headers: { "content-type": payload.startsWith("{") ? "application/json" : "text/plain" },
        payload,
      });
      expect(response.statusCode, payload).toBe(400);
      expect(response.json(), payload).toEqual({ message: "Unknown API v2 action" });
    }
  });

  it("sends JSON, CORS and a request id with every answer, and answers a preflight", async () => {
    for (const url of [
      ...lists,
      `${list("addressTransactions")}?filter=x`,
      "/api/v2/nothing",
      `/api/v2/tokens/${unknownAddress}/holders`,
      // Answered by the router before any route or hook: a malformed URL, a path parameter too long.
      "/api/v2/%zz",
      `/api/v2/addresses/0x${"f".repeat(1_001)}/tokens`,
    ]) {
      const response = await get(url);
      expect(response.headers["content-type"], url).toBe("application/json; charset=utf-8");
      expect(response.headers["access-control-allow-origin"], url).toBe("*");
      expect(response.headers["x-request-id"], url).toMatch(/\S+/);
      expect(response.text, url).not.toMatch(/SELECT|stack|at .*\.ts/);
    }
    const preflight = await chain.app.inject({
      method: "OPTIONS",
      url: list("addressTransactions"),
      headers: { origin: "https://example.org", "access-control-request-method": "GET" },
    });
    expect(preflight.statusCode).toBeLessThan(300);
    expect(preflight.headers["access-control-allow-origin"]).toBe("*");
    // A read-only API: reads, and nothing a browser would send a body with.
    expect(preflight.headers["access-control-allow-methods"]).toBe("GET, HEAD");
  });
});
