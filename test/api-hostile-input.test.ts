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

  it("never answers a 5xx, and answers every 4xx in the contract's shape, to a seeded fuzz of 10,000 requests", async () => {
    // A fixed seed keeps failures reproducible.
    let seed = 42;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const pick = <T>(list: readonly T[]): T => list[random(list.length)] as T;
    const odd = [
      ...values,
      `0x${"0".repeat(39)}`,
      `0x${"G".repeat(40)}`,
      address.toLowerCase(),
      address.toUpperCase().replace("0X", "0x"),
      `0x${"ab".repeat(32)}`,
      `0x${"ab".repeat(33)}`,
      "00",
      "+1",
      " 1",
      "1 ",
      "0x10",
      "1_000",
      "Infinity",
      "NaN",
      "4.994e+21",
      "1152921504606847000",
      "-0",
      "١٢٣",
      "%E0%A4%A",
      "a".repeat(5_000),
      "\\u0000",
      "<script>",
      "$1",
      "' OR 1=1 --",
    ];
    const pathTemplates = [
      (x: string) => `/api/v2/addresses/${x}/transactions`,
      (x: string) => `/api/v2/addresses/${x}/tokens`,
      (x: string) => `/api/v2/addresses/${x}/logs`,
      (x: string) => `/api/v2/blocks/${x}/withdrawals`,
      (x: string) => `/api/v2/tokens/${x}/holders`,
      (x: string) => `/api/v2/transactions/${x}/summary`,
      (x: string) => `/api/v2/tokens/${address}/instances/${x}/holders`,
      (x: string) => `/api/v2/addresses/${x}/nft/collections`,
      (x: string) => `/api/v2/addresses/${x}/internal-transactions`,
      (x: string) => `/api/v2/addresses/${x}/token-transfers`,
      (x: string) => `/api/v2/${x}`,
    ];
    const methods = ["GET", "GET", "GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"] as const;
    const encode = (text: string) => (random(4) === 0 ? text : encodeURIComponent(text));
    for (let i = 0; i < 10_000; i++) {
      const path =
        random(3) === 0
          ? pick(pathTemplates)(encode(pick(odd)))
          : pick([...paths, "/api/v2/proxy/account-abstraction/status"]);
      const parameters = Array.from({ length: random(6) }, () => {
        const key = random(8) === 0 ? encode(pick(odd)) : pick(keys);
        return `${key}=${encode(pick(odd))}`;
      });
      // Repeated parameters and a 100 KB query string now and then.
      if (random(10) === 0 && parameters.length > 0) parameters.push(parameters[0] as string);
      if (random(500) === 0) parameters.push(`value=${"9".repeat(100_000)}`);
      const url = parameters.length > 0 ? `${path}?${parameters.join("&")}` : path;
      const method = pick(methods);
      const response = await app.inject({ method, url });
      const where = `${method} ${url.slice(0, 300)}`;
      expect(response.statusCode, where).toBeLessThan(500);
      if (method === "HEAD" || response.statusCode === 204) continue;
      const body = response.json();
      if (response.statusCode === 422) {
        expect(body.errors.length, where).toBeGreaterThan(0);
        for (const error of body.errors) {
          expect(error, where).toEqual({
            title: "Invalid value",
            source: { pointer: expect.stringMatching(/^\//) },
            detail: expect.any(String),
          });
        }
      } else if (response.statusCode >= 400) {
        expect(body, where).toEqual({ message: expect.any(String) });
      }
    }
  }, 300_000);
});
