import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiServer } from "../src/api/server.ts";
import { createTestDatabase, databaseKinds, type TestDatabase } from "./support/databases.ts";

const address = "0x000000000000000000000000000000000000dEaD";
const paths = [
  `/api/v2/addresses/${address}/transactions`,
  `/api/v2/addresses/${address}/logs`,
  `/api/v2/addresses/${address}/internal-transactions`,
  `/api/v2/addresses/${address}/withdrawals`,
  `/api/v2/addresses/${address}/token-transfers`,
  `/api/v2/addresses/${address}/tokens`,
  `/api/v2/addresses/${address}/nft/collections`,
  "/api/v2/blocks/1/withdrawals",
  "/api/v2/token-transfers",
  `/api/v2/tokens/${address}/holders`,
  `/api/v2/tokens/${address}/instances/1/holders`,
];
const keys = [
  "block_number",
  "index",
  "transaction_index",
  "index_in_batch",
  "batch_log_index",
  "items_count",
  "value",
  "fee",
  "hash",
  "id",
  "token_id",
  "address_hash",
  "token_contract_address_hash",
  "token_type",
  "filter",
  "sort",
  "order",
  "type",
  "topic",
  "token",
  "inserted_at",
];
const values = [
  "",
  "null",
  "0",
  "-1",
  "1e5",
  "1.5",
  "9".repeat(19),
  "9".repeat(79),
  "0x",
  `0x${"f".repeat(64)}`,
  address,
  "ERC-20",
  "[erc-721,ERC-1155]",
  "to",
  "asc",
  "value",
  "%00",
  "'; DROP TABLE blocks; --",
  "💥",
  "{}",
  "[]",
];

describe.each(databaseKinds)("hostile input on %s", (kind) => {
  let test: TestDatabase;
  let app: FastifyInstance;

  beforeAll(async () => {
    test = await createTestDatabase(kind);
    app = await createApiServer({ db: test.db });
  });
  afterAll(async () => {
    await app?.close();
    await test?.drop();
  });

  it("answers oversized cursor numbers with 422, never a server error", async () => {
    const withBlockNumber = paths.filter((path) => /transactions|logs|token-transfers/.test(path));
    expect(withBlockNumber).toHaveLength(5);
    for (const path of withBlockNumber) {
      const response = await app.inject(`${path}?block_number=${"9".repeat(30)}&index=1`);
      expect(response.statusCode, path).toBe(422);
      expect(response.json().errors[0]).toEqual({
        title: "Invalid value",
        source: { pointer: "/block_number" },
        detail: "Invalid integer. Got: string",
      });
    }
  });

  it("answers parameters named after Object's own members as unknown fields", async () => {
    const named = ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf"];
    for (const path of [
      ...paths,
      `/api/v2/transactions/0x${"ab".repeat(32)}/summary`,
      "/api/v2/proxy/account-abstraction/status",
    ]) {
      for (const name of named) {
        const response = await app.inject(`${path}?${name}=1`);
        expect(response.statusCode, `${path}?${name}`).toBe(422);
        expect(response.json().errors, `${path}?${name}`).toContainEqual({
          title: "Invalid value",
          source: { pointer: `/${name}` },
          detail: `Unexpected field: ${name}`,
        });
      }
    }
  });

  it("never answers a 5xx to random combinations of known parameters", async () => {
    // A fixed seed keeps failures reproducible.
    let seed = 42;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let i = 0; i < 600; i++) {
      const path = paths[random(paths.length)];
      const query = Array.from(
        { length: 1 + random(4) },
        () => `${keys[random(keys.length)]}=${encodeURIComponent(values[random(values.length)])}`,
      );
      const response = await app.inject(`${path}?${query.join("&")}`);
      expect(response.statusCode, `${path}?${query.join("&")}`).toBeLessThan(500);
      const body = response.json();
      if (response.statusCode === 422) expect(body.errors.length).toBeGreaterThan(0);
      if (response.statusCode === 200)
        expect(Object.keys(body).sort()).toEqual(["items", "next_page_params"]);
    }
  });
});
