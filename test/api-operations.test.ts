import { connect, type Socket } from "node:net";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { RateLimitParameters } from "../src/api/rate-limit.ts";
import { createApiServer } from "../src/api/server.ts";
import { type Database, openDatabase } from "../src/db/client.ts";
import { migrate } from "../src/db/migrate.ts";
import { createMetrics, type Metrics } from "../src/metrics.ts";
import { createRpcClient } from "../src/rpc/client.ts";
import { createTestDatabase, databaseKinds, type TestDatabase } from "./support/databases.ts";
import { at } from "./support/elements.ts";
import { type IndexedChain, indexIntoNewDatabase } from "./support/indexed-chain.ts";
import { type PostgresCluster, startPostgresCluster } from "./support/postgres-cluster.ts";
import { until } from "./support/until.ts";

/** Sends `text` on a new connection and returns everything the server answers before closing. */
function exchange(port: number, text: string, timeoutMs = 5_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let answer = "";
    const socket = connect(port, "127.0.0.1", () => socket.write(text));
    socket.setEncoding("utf8").on("data", (chunk) => {
      answer += chunk;
    });
    socket.on("close", () => resolve(answer));
    socket.on("error", reject);
    socket.setTimeout(timeoutMs, () => {
      socket.destroy();
      reject(new Error(`no close within ${timeoutMs} ms; got ${JSON.stringify(answer)}`));
    });
  });
}

function parseAnswer(answer: string): { status: number; headers: string; body: unknown } {
  const parts = answer.split("\r\n\r\n");
  const head = at(parts, 0, "HTTP answer");
  return {
    status: Number(at(head.split(" "), 1, "status line")),
    headers: head.toLowerCase(),
    body: JSON.parse(at(parts, 1, "HTTP answer")),
  };
}

describe.each(databaseKinds)("operations over HTTP (%s)", (kind) => {
  let chain: IndexedChain;
  let metrics: Metrics;
  let port: number;

  beforeAll(async () => {
    metrics = createMetrics();
    const client = createRpcClient({ url: inject("demoRpcUrl"), metrics });
    chain = await indexIntoNewDatabase(kind, client, {
      api: { metrics, nodeHead: () => chain.indexer.status().headBlock, requestTimeoutMs: 500 },
    });
    metrics.watchIndexer(() => chain.indexer.status());
    await chain.app.listen({ host: "127.0.0.1", port: 0 });
    port = (chain.app.server.address() as { port: number }).port;
  });
  afterAll(() => chain?.close());

  it("reports health as Blockscout does, with the database's and the node's heads", async () => {
    const { indexedBlock, headBlock } = chain.indexer.status();
    const health = await fetch(`http://127.0.0.1:${port}/api/health`);
    expect(health.status).toBe(200);
    const body = await health.json();
    expect(body).toMatchObject({ healthy: true, error: null });
    expect(body.metadata.blocks.latest_block.db.number).toBe(String(indexedBlock));
    expect(body.metadata.blocks.latest_block.node.number).toBe(String(headBlock));
    expect(body.metadata.blocks.latest_block.db.timestamp).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ$/);
    for (const probe of ["liveness", "readiness"]) {
      const answer = await fetch(`http://127.0.0.1:${port}/api/health/${probe}`);
      expect([answer.status, await answer.text()]).toEqual([200, "OK"]);
    }
  });

  it("exposes indexing, RPC and request metrics in Prometheus' format", async () => {
    await fetch(`http://127.0.0.1:${port}/api/v2/token-transfers`);
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    const value = (pattern: RegExp) => Number(text.match(pattern)?.[1]);
    const { indexedBlock, blocksWritten, transactionsWritten } = chain.indexer.status();
    expect(value(/^sextant_indexed_block (\S+)$/m)).toBe(Number(indexedBlock));
    expect(value(/^sextant_lag_blocks (\S+)$/m)).toBe(0);
    expect(value(/^sextant_indexed_blocks_total (\S+)$/m)).toBe(blocksWritten);
    expect(value(/^sextant_indexed_transactions_total (\S+)$/m)).toBe(transactionsWritten);
    expect(transactionsWritten).toBeGreaterThan(blocksWritten);
    expect(value(/^sextant_database_queries_in_flight (\S+)$/m)).toBe(0);
    expect(value(/^sextant_api_requests_waiting (\S+)$/m)).toBe(0);
    expect(value(/^sextant_rpc_calls_total\{method="eth_getBlockReceipts"\} (\S+)$/m)).toBe(blocksWritten);
    expect(
      value(
        /^sextant_http_request_duration_seconds_count\{route="\/api\/v2\/token-transfers",method="GET",status="200"\} (\S+)$/m,
      ),
    ).toBe(1);
  });

  it("keeps a plain client request id and replaces any other", async () => {
    const plain = await fetch(`http://127.0.0.1:${port}/api/health/liveness`, {
      headers: { "x-request-id": "trace-42.a:b" },
    });
    expect(plain.headers.get("x-request-id")).toBe("trace-42.a:b");
    for (const sent of ["<script>alert(1)</script>", "x".repeat(65), "a b"]) {
      const answer = await fetch(`http://127.0.0.1:${port}/api/health/liveness`, {
        headers: { "x-request-id": sent },
      });
      expect(answer.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it("answers what fastify and Node reject before any route in the contract's shape", async () => {
    const cases: [string, number][] = [
      [`GET /api/v2/token-transfers HTTP/1.1\r\nHost: x\r\nX-Big: ${"b".repeat(20_000)}\r\n\r\n`, 431],
      ["NOT HTTP AT ALL\r\n\r\n", 400],
      ["GET /api/v2/addresses/%E0%A4%A/transactions HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 400],
      // HTTP/1.1 without `Host`, which the protocol has refused.
      ["GET /api/v2/token-transfers HTTP/1.1\r\nConnection: close\r\n\r\n", 400],
      // Refused before CORS would answer it as a preflight.
      ["OPTIONS /api/v2/token-transfers HTTP/1.1\r\nConnection: close\r\n\r\n", 400],
    ];
    for (const [request, status] of cases) {
      const answer = parseAnswer(await exchange(port, request));
      expect(answer.status, request.slice(0, 40)).toBe(status);
      expect(answer.headers).toContain("content-type: application/json; charset=utf-8");
      expect(answer.headers).toContain("access-control-allow-origin: *");
      expect(answer.headers).toMatch(/x-request-id: [0-9a-f-]{36}/);
      expect(answer.body).toEqual({ message: expect.any(String) });
      expect(JSON.stringify(answer.body)).not.toContain("%E0");
    }
    // A long path parameter reaches validation instead of the router's length limit.
    const long = await fetch(`http://127.0.0.1:${port}/api/v2/addresses/0x${"a".repeat(500)}/transactions`);
    expect(long.status).toBe(422);
    // A bare OPTIONS is answered like a preflight.
    const options = parseAnswer(
      `${await exchange(port, "OPTIONS /api/v2/token-transfers HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")}null`,
    );
    expect(options.status).toBe(204);
  });

  it("reads a request target as Blockscout's router does: no fragment, no empty path segments", async () => {
    const get = async (target: string) =>
      parseAnswer(await exchange(port, `GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`));
    const filtered = await get("/api/v2/token-transfers?type=ERC-20");
    const unfiltered = await get("/api/v2/token-transfers");
    expect(filtered.status).toBe(200);
    expect(filtered.body).not.toEqual(unfiltered.body);
    const same: [string, typeof filtered][] = [
      ["/api/v2/token-transfers/?type=ERC-20", filtered],
      ["//api/v2//token-transfers?type=ERC-20", filtered],
      ["/api/v2/token-transfers?type=ERC-20#top", filtered],
      // What follows `#` is never a query, even one that looks like it.
      ["/api/v2/token-transfers/#x?type=ERC-20", unfiltered],
    ];
    for (const [target, expected] of same) {
      const answer = await get(target);
      expect(answer.status, target).toBe(200);
      expect(answer.body, target).toEqual(expected.body);
    }
    expect((await get("/api/v2//")).body).toEqual({ message: "Unknown API v2 action" });
  });

  it("closes a request that trickles in slower than the request timeout", async () => {
    const started = Date.now();
    const answer = await new Promise<string>((resolve, reject) => {
      let text = "";
      const socket: Socket = connect(port, "127.0.0.1", () =>
        socket.write("GET /api/v2/token-transfers HTTP/1.1\r\n"),
      );
      const drip = setInterval(() => socket.writable && socket.write("X-Slow: 1\r\n"), 100);
      socket.setEncoding("utf8").on("data", (chunk) => {
        text += chunk;
      });
      socket.on("close", () => {
        clearInterval(drip);
        resolve(text);
      });
      socket.on("error", (error) => {
        clearInterval(drip);
        reject(error);
      });
    });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(parseAnswer(answer)).toMatchObject({ status: 408, body: { message: expect.any(String) } });
  });
});

// PostgreSQL's server programs stop and start a cluster of the test's own.
describe("a lost database (postgres)", () => {
  let cluster: PostgresCluster;
  let db: Database;
  let app: FastifyInstance;

  beforeAll(async () => {
    cluster = await startPostgresCluster();
    db = await openDatabase({ databaseUrl: cluster.url() });
    await migrate(db);
    app = await createApiServer({ db });
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await db?.close().catch(() => {});
    cluster?.destroy();
  });

  it("answers 503 while the database is away and recovers by itself", async () => {
    const url = "/api/v2/token-transfers";
    expect((await app.inject(url)).statusCode).toBe(200);
    cluster.stop("fast");
    const during = await app.inject(url);
    expect(during.statusCode).toBe(503);
    expect(during.json()).toEqual({ message: expect.any(String) });
    expect(during.headers["retry-after"]).toBe("5");
    cluster.start();
    await until("answers again", async () => (await app.inject(url)).statusCode === 200, 30_000);
  });
});

describe("API rate limits", () => {
  let test: TestDatabase;
  beforeAll(async () => {
    test = await createTestDatabase("pglite");
  });
  afterAll(() => test?.drop());

  const serverWith = (rateLimits: RateLimitParameters) => createApiServer({ db: test.db, rateLimits });

  it("sets no limit and no headers unless configured", async () => {
    const app = await serverWith({});
    const answer = await app.inject("/api/v2/token-transfers");
    expect(answer.statusCode).toBe(200);
    expect(answer.headers["x-ratelimit-limit"]).toBeUndefined();
    await app.close();
  });

  it("counts each address's requests and answers 429 in Blockscout's shape past the limit", async () => {
    const app = await serverWith({ byIp: { limit: 3, intervalMs: 60_000 } });
    const from = (remoteAddress: string) => app.inject({ url: "/api/v2/token-transfers", remoteAddress });
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await from("10.0.0.1"));
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200, 200, 429]);
    expect(answers.map((answer) => answer.headers["x-ratelimit-remaining"])).toEqual(["2", "1", "0", "0"]);
    const limited = at(answers, 3);
    expect(limited.json()).toEqual({ message: "Too Many Requests" });
    expect(limited.headers["x-ratelimit-limit"]).toBe("3");
    expect(limited.headers["access-control-allow-origin"]).toBe("*");
    const reset = Number(limited.headers["x-ratelimit-reset"]);
    expect(reset).toBeGreaterThan(0);
    expect(reset).toBeLessThanOrEqual(60_000);
    // Another address has a budget of its own; health and docs are never limited.
    expect((await from("10.0.0.2")).statusCode).toBe(200);
    expect((await app.inject({ url: "/api/health/liveness", remoteAddress: "10.0.0.1" })).statusCode).toBe(
      200,
    );
    await app.close();
  });

  it("counts a path written with extra slashes or a fragment as the same path", async () => {
    const app = await serverWith({ byIp: { limit: 3, intervalMs: 60_000 } });
    const targets = [
      "/api/v2/token-transfers",
      "/api/v2//token-transfers/",
      "/api//v2/token-transfers#a",
      "/api/v2/token-transfers//?type=ERC-20",
    ];
    const codes = [];
    for (const url of targets) codes.push((await app.inject({ url, remoteAddress: "10.0.0.3" })).statusCode);
    expect(codes).toEqual([200, 200, 200, 429]);
    await app.close();
  });

  it("gives the static API key and whitelisted addresses budgets of their own, and resets each window", async () => {
    const app = await serverWith({
      byIp: { limit: 1, intervalMs: 60_000 },
      staticApiKey: { key: "secret", limit: 2, intervalMs: 60_000 },
      whitelisted: { ips: ["10.0.0.9"], limit: 3, intervalMs: 200 },
      behindProxy: true,
    });
    const request = (url: string, forwardedFor: string) =>
      app.inject({ url, headers: { "x-forwarded-for": `${forwardedFor}, 127.0.0.1` } });
    expect((await request("/api/v2/token-transfers", "10.0.0.5")).statusCode).toBe(200);
    expect((await request("/api/v2/token-transfers", "10.0.0.5")).statusCode).toBe(429);
    const keyed = await request("/api/v2/token-transfers?apikey=secret", "10.0.0.5");
    expect([keyed.statusCode, keyed.headers["x-ratelimit-limit"]]).toEqual([200, "2"]);
    const listed = [];
    for (let i = 0; i < 4; i++)
      listed.push((await request("/api/v2/token-transfers", "10.0.0.9")).statusCode);
    expect(listed).toEqual([200, 200, 200, 429]);
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect((await request("/api/v2/token-transfers", "10.0.0.9")).statusCode).toBe(200);
    await app.close();
  });
});

describe("API admission", () => {
  let test: TestDatabase;
  beforeAll(async () => {
    test = await createTestDatabase("pglite");
  });
  afterAll(() => test?.drop());

  it("computes at most `concurrency` requests at once; the others wait, counted, and are all answered", async () => {
    // Every statement waits while the gate is shut: the first request holds its place inside its handler.
    let open: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const gated: Database = {
      ...test.db,
      query: (text, params, options) => gate.then(() => test.db.query(text, params, options)),
      transaction: (work) => gate.then(() => test.db.transaction(work)),
    };
    const metrics = createMetrics();
    const app = await createApiServer({ db: gated, metrics, concurrency: 1, pageCacheBytes: 0 });
    const waiting = async () =>
      Number(
        (await app.inject("/metrics")).body.match(/^sextant_api_requests_waiting (\S+)$/m)?.[1] ?? Number.NaN,
      );
    const answers = ["", "?type=ERC-20", "?type=ERC-721"].map((query) =>
      app.inject(`/api/v2/token-transfers${query}`),
    );
    await until("two requests wait for the one place", async () => (await waiting()) === 2, 5_000);
    // Health is not an endpoint's work: it is answered while every place is taken.
    expect((await app.inject("/api/health/liveness")).statusCode).toBe(200);
    open();
    expect((await Promise.all(answers)).map((answer) => answer.statusCode)).toEqual([200, 200, 200]);
    expect(await waiting()).toBe(0);
    await app.close();
  });
});
