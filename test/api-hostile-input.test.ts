import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { endpoints } from "../src/api/endpoints/index.ts";
import { createApiServer } from "../src/api/server.ts";
import { createTestDatabase, databaseKinds, type TestDatabase } from "./support/databases.ts";
import { endpointPath, pathParameters, queryParameters, wellFormedPathValues } from "./support/endpoints.ts";
import { seededRandom } from "./support/seeded-random.ts";

const address = wellFormedPathValues.address_hash_param as string;
/** Every endpoint, its path parameters well formed. */
const paths = endpoints.map((endpoint) => endpointPath(endpoint, wellFormedPathValues));
/** Every query parameter of any endpoint. */
const keys = [...new Set(endpoints.flatMap(queryParameters))];
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
    const withBlockNumber = endpoints.filter((endpoint) =>
      queryParameters(endpoint).includes("block_number"),
    );
    expect(withBlockNumber).not.toHaveLength(0);
    for (const path of withBlockNumber.map((endpoint) => endpointPath(endpoint, wellFormedPathValues))) {
      const response = await app.inject(`${path}?block_number=${"9".repeat(30)}&index=1`);
      expect(response.statusCode, path).toBe(422);
      expect(response.json().errors[0]).toEqual({
        title: "Invalid value",
        source: { pointer: "/block_number" },
        detail: "Invalid integer. Got: string",
      });
    }
  });

  it("answers the largest cursor numbers the patterns accept, alone and together, without an error", async () => {
    let sent = 0;
    for (const endpoint of endpoints) {
      const properties = endpoint.schema.querystring.properties as Record<string, { pattern?: string }>;
      // The most digits each cursor number's pattern (`^([0-9]{1,N}|null|)$`) lets through.
      const largest = Object.entries(properties).flatMap(([key, { pattern }]) => {
        const digits = pattern?.match(/^\^\(\[0-9\]\{1,(\d+)\}/)?.[1];
        return digits === undefined ? [] : [`${key}=${"9".repeat(Number(digits))}`];
      });
      if (largest.length === 0) continue;
      const path = endpointPath(endpoint, wellFormedPathValues);
      for (const query of [...largest, largest.join("&")]) {
        const response = await app.inject(`${path}?${query}`);
        expect([200, 404], `${path}?${query}`).toContain(response.statusCode);
        sent++;
      }
    }
    expect(sent).toBeGreaterThan(20);
  });

  it("answers a path parameter too long to be valid with the contract's 422, and only a URL past 8,000 bytes with 414", async () => {
    const long = await app.inject(`/api/v2/addresses/0x${"a".repeat(1_500)}/logs`);
    expect(long.statusCode).toBe(422);
    expect(long.json().errors).toContainEqual(
      expect.objectContaining({ source: { pointer: "/address_hash_param" } }),
    );
    const tooLong = await app.inject(`/api/v2/addresses/0x${"a".repeat(8_100)}/logs`);
    expect([tooLong.statusCode, tooLong.json()]).toEqual([414, { message: "URI too long" }]);
  });

  it("answers parameters named after Object's own members as unknown fields", async () => {
    const named = ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf"];
    for (const path of paths) {
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
    const { below, pick } = seededRandom(42);
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
    // Each path parameter of each endpoint in turn, the others well formed; and any path under /api/v2.
    const pathTemplates = [
      ...endpoints.flatMap((endpoint) =>
        pathParameters(endpoint).map(
          (name) => (x: string) => endpointPath(endpoint, { ...wellFormedPathValues, [name]: x }),
        ),
      ),
      (x: string) => `/api/v2/${x}`,
    ];
    const methods = ["GET", "GET", "GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"] as const;
    const encode = (text: string) => (below(4) === 0 ? text : encodeURIComponent(text));
    for (let i = 0; i < 10_000; i++) {
      const path = below(3) === 0 ? pick(pathTemplates)(encode(pick(odd))) : pick(paths);
      const parameters = Array.from({ length: below(6) }, () => {
        const key = below(8) === 0 ? encode(pick(odd)) : pick(keys);
        return `${key}=${encode(pick(odd))}`;
      });
      // Repeated parameters and a 100 KB query string now and then.
      if (below(10) === 0 && parameters.length > 0) parameters.push(parameters[0] as string);
      if (below(500) === 0) parameters.push(`value=${"9".repeat(100_000)}`);
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
