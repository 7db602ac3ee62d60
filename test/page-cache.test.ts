import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { keptPageBytes } from "../src/api/page-cache.ts";
import { createApiServer } from "../src/api/server.ts";
import { createMetrics, type Metrics } from "../src/metrics.ts";
import { createTestDatabase, databaseKinds, type TestDatabase } from "./support/databases.ts";
import { seedBlocks } from "./support/seed-blocks.ts";

const receiver = "0x4675c7e5baafbffbca748158becba61ef3b0a263";

describe.each(databaseKinds)("page cache on %s", (kind) => {
  let test: TestDatabase;
  let metrics: Metrics;
  let app: FastifyInstance;

  const lookups = async () => {
    const { values } = await metrics.pageCacheLookups.get();
    return Object.fromEntries(values.map(({ labels, value }) => [String(labels.result), value]));
  };
  const addWithdrawal = (index: number, block: number) =>
    test.db.query(
      `INSERT INTO withdrawals (index, block_number, validator_index, address, amount)
       VALUES ($1, $2, 1, $3, 1000000000)`,
      [index, block, Buffer.from(receiver.slice(2), "hex")],
    );

  beforeAll(async () => {
    test = await createTestDatabase(kind);
    await seedBlocks(test.db, 1, 3);
    await test.db.query("INSERT INTO checkpoints (name, block_number) VALUES ('blocks', 3)");
    for (const index of [0, 1, 2]) await addWithdrawal(index, 2);
  });
  afterAll(() => test?.drop());
  beforeEach(async () => {
    metrics = createMetrics();
    app = await createApiServer({ db: test.db, metrics });
    return () => app.close();
  });

  // A server learns the data's version from its first request; a page is kept from then on.
  const learnVersion = () => app.inject("/api/v2/blocks/1/withdrawals");

  it("serves an unchanged page again, with the same body and ETag", async () => {
    await learnVersion();
    const first = await app.inject("/api/v2/blocks/2/withdrawals");
    const second = await app.inject("/api/v2/blocks/2/withdrawals");
    expect(first.statusCode).toBe(200);
    expect(first.headers.etag).toMatch(/^"[\w-]+"$/);
    expect(second.statusCode).toBe(200);
    expect(second.headers.etag).toBe(first.headers.etag);
    expect(second.headers["content-type"]).toBe(first.headers["content-type"]);
    expect(second.body).toBe(first.body);
    expect(second.json().items).toHaveLength(3);
    expect(await lookups()).toEqual({ miss: 2, hit: 1 });
  });

  it("answers 304 to an If-None-Match naming the page's ETag, cached or not", async () => {
    const { headers } = await app.inject("/api/v2/blocks/2/withdrawals");
    const etag = String(headers.etag);
    const fresh = await createApiServer({ db: test.db });
    for (const server of [app, fresh]) {
      for (const sent of [etag, `W/${etag}`, `"other", ${etag}`, "*"]) {
        const answer = await server.inject({
          url: "/api/v2/blocks/2/withdrawals",
          headers: { "if-none-match": sent },
        });
        expect(answer.statusCode).toBe(304);
        expect(answer.body).toBe("");
        expect(answer.headers.etag).toBe(etag);
      }
    }
    await fresh.close();
    const other = await app.inject({
      url: "/api/v2/blocks/2/withdrawals",
      headers: { "if-none-match": '"other"' },
    });
    expect(other.statusCode).toBe(200);
    expect(other.json().items).toHaveLength(3);
  });

  it("computes the page again after any write, and after a write taken back by a reorganization", async () => {
    const path = `/api/v2/addresses/${receiver}/withdrawals`;
    await learnVersion();
    const before = await app.inject(path);
    expect((await app.inject(path)).body).toBe(before.body);
    await addWithdrawal(3, 3);
    const after = await app.inject(path);
    expect(after.json().items.map((item: { index: number }) => item.index)).toEqual([3, 2, 1, 0]);
    expect(after.headers.etag).not.toBe(before.headers.etag);
    await test.db.query("DELETE FROM withdrawals WHERE block_number > 2");
    const reverted = await app.inject(path);
    expect(reverted.body).toBe(before.body);
    expect(reverted.headers.etag).toBe(before.headers.etag);
    expect(await lookups()).toEqual({ miss: 4, hit: 1 });
  });

  it("keeps a page that missed after a write from its next request on, not from the one that met the write", async () => {
    const path = `/api/v2/addresses/${receiver}/withdrawals`;
    const indexes = (answer: { json(): { items: { index: number }[] } }) =>
      answer.json().items.map((item) => item.index);
    await learnVersion();
    await addWithdrawal(4, 3);
    // Computed beside the read that found the version changed: whether its statements ran before or after
    // that read is not known, so it is not kept.
    const missed = await app.inject(path);
    expect(indexes(missed)).toEqual([4, 2, 1, 0]);
    const computedAgain = await app.inject(path);
    const served = await app.inject(path);
    expect(served.body).toBe(missed.body);
    expect(await lookups()).toEqual({ miss: 3, hit: 1 });
    await test.db.query("DELETE FROM withdrawals WHERE index = 4");
    const reverted = await app.inject(path);
    expect(indexes(reverted)).toEqual([2, 1, 0]);
    expect((await app.inject(path)).body).toBe(reverted.body);
    expect(computedAgain.body).toBe(missed.body);
    expect(await lookups()).toEqual({ miss: 4, hit: 2 });
  });

  it("keeps no error answer: a block indexed after its 404 is served", async () => {
    expect((await app.inject("/api/v2/blocks/4/withdrawals")).statusCode).toBe(404);
    expect((await app.inject("/api/v2/blocks/4/withdrawals")).statusCode).toBe(404);
    await test.db.transaction(async (tx) => {
      await seedBlocks(tx, 4, 4);
      await tx.query("UPDATE checkpoints SET block_number = 4 WHERE name = 'blocks'");
    });
    const indexed = await app.inject("/api/v2/blocks/4/withdrawals");
    expect(indexed.statusCode).toBe(200);
    expect(indexed.json()).toEqual({ items: [], next_page_params: null });
    await test.db.transaction(async (tx) => {
      await tx.query("UPDATE checkpoints SET block_number = 3 WHERE name = 'blocks'");
      await tx.query("DELETE FROM blocks WHERE number = 4");
    });
    expect((await app.inject("/api/v2/blocks/4/withdrawals")).statusCode).toBe(404);
  });

  it("drops the least recently used page when full, and keeps none at size 0", async () => {
    const url = "/api/v2/blocks/2/withdrawals";
    const page = (await app.inject(url)).body.length;
    const small = createMetrics();
    const bounded = await createApiServer({
      db: test.db,
      metrics: small,
      pageCacheBytes: keptPageBytes(url, page) + 10,
    });
    const counted = async () =>
      Object.fromEntries(
        (await small.pageCacheLookups.get()).values.map(({ labels, value }) => [
          String(labels.result),
          value,
        ]),
      );
    for (const path of [
      "/api/v2/blocks/1/withdrawals",
      "/api/v2/blocks/2/withdrawals",
      "/api/v2/blocks/2/withdrawals",
    ])
      await bounded.inject(path);
    expect(await counted()).toEqual({ miss: 2, hit: 1 });
    await bounded.inject("/api/v2/blocks/3/withdrawals");
    // Block 3's page does not fit beside block 2's, so block 2's, used less recently, was dropped.
    const again = await bounded.inject("/api/v2/blocks/2/withdrawals");
    expect(again.json().items).toHaveLength(3);
    expect(await counted()).toEqual({ miss: 4, hit: 1 });
    await bounded.close();

    // A URL's bytes count too: pages padded with ignored parameters cannot hold memory past the limit.
    // (The first request meets a version the cache has not seen: its page is kept from the second on.)
    const padded = (block: number) => `/api/v2/blocks/${block}/withdrawals?apikey=${"k".repeat(20_000)}`;
    const largest = Math.max(
      ...(await Promise.all([1, 3].map(async (block) => (await app.inject(padded(block))).body.length))),
    );
    const tight = createMetrics();
    const limited = await createApiServer({
      db: test.db,
      metrics: tight,
      pageCacheBytes: keptPageBytes(padded(1), largest) + 10,
    });
    for (const block of [1, 1, 1, 3, 1]) await limited.inject(padded(block));
    const results = (await tight.pageCacheLookups.get()).values.map(({ labels, value }) => [
      labels.result,
      value,
    ]);
    expect(Object.fromEntries(results)).toEqual({ miss: 4, hit: 1 });
    await limited.close();

    const none = createMetrics();
    const uncached = await createApiServer({ db: test.db, metrics: none, pageCacheBytes: 0 });
    const answers = [
      await uncached.inject("/api/v2/blocks/2/withdrawals"),
      await uncached.inject("/api/v2/blocks/2/withdrawals"),
    ];
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200]);
    expect(answers[1]?.headers.etag).toBe(answers[0]?.headers.etag);
    expect((await none.pageCacheLookups.get()).values).toEqual([]);
    await uncached.close();
  });
});
