import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { createApiServer } from "../src/api/server.ts";
import { type Anvil, startAnvil } from "../src/demo/anvil.ts";
import { type EntryPointKey, runUserOperations } from "../src/demo/user-operations.ts";
import { createIndexer } from "../src/indexer/create-indexer.ts";
import { createLogger } from "../src/logger.ts";
import { createRpcClient, type RpcClient } from "../src/rpc/client.ts";
import { createTestDatabase, databaseKinds, type TestDatabase } from "./support/databases.ts";
import { only } from "./support/elements.ts";
import { indexNode } from "./support/index-node.ts";
import { until } from "./support/until.ts";

const path = "/api/v2/proxy/account-abstraction/status";
const logger = createLogger("silent");
const none = { v06: [], v07: [], v08: [] };

let anvil: Anvil;
let client: RpcClient;
/** User operations the demo sent per version. */
let sentPerVersion: Record<EntryPointKey, number>;
/** The block of v0.6's second operation: an index up to it holds some of v0.6's operations only. */
let v06SecondBlock: bigint;

beforeAll(async () => {
  anvil = await startAnvil();
  client = createRpcClient({ url: anvil.rpcUrl });
  const { examples } = await runUserOperations({ rpcUrl: anvil.rpcUrl });
  const sent = (version: EntryPointKey) => Object.values(examples[version]).flat().length;
  sentPerVersion = { v06: sent("v06"), v07: sent("v07"), v08: sent("v08") };
  v06SecondBlock = examples.v06.transfer.blockNumber;
});

afterAll(async () => {
  await anvil?.stop();
});

const group = (enabled: boolean, live: boolean, pastDb: boolean, pastRpc: boolean) => ({
  enabled,
  live,
  past_db_logs_indexing_finished: pastDb,
  past_rpc_logs_indexing_finished: pastRpc,
});

const waitFor = (condition: () => Promise<boolean>, what: string) =>
  until(what, condition, { timeoutMs: 10_000, intervalMs: 20 });

describe.each(databaseKinds)("endpoint 10 on %s", (kind) => {
  let test: TestDatabase;
  let app: FastifyInstance;
  const status = async () => {
    const response = await app.inject({ method: "GET", url: path });
    expect(response.statusCode).toBe(200);
    return response.json();
  };

  beforeAll(async () => {
    test = await createTestDatabase(kind);
    app = await createApiServer({ db: test.db });
  });

  afterAll(async () => {
    await app?.close();
    await test?.drop();
  });

  it("goes from all false to finished past indexing as the indexer catches up, live while it follows", async () => {
    const off = group(false, false, false, false);
    expect(await status()).toEqual({ finished_past_indexing: false, v06: off, v07: off, v07_v08: off });

    const indexer = createIndexer({ client, db: test.db, logger, pollIntervalMs: 20, liveTtlMs: 2_000 });
    await indexer.prepare();
    // An empty database has no stored logs to scan; the node's blocks are still ahead.
    const started = group(true, false, true, false);
    expect(await status()).toEqual({
      finished_past_indexing: false,
      v06: started,
      v07: started,
      v07_v08: started,
    });

    await indexer.catchUp();
    const caughtUp = group(true, false, true, true);
    expect(await status()).toEqual({
      finished_past_indexing: true,
      v06: caughtUp,
      v07: caughtUp,
      v07_v08: caughtUp,
    });

    const controller = new AbortController();
    const running = indexer.run(controller.signal);
    onTestFinished(async () => {
      controller.abort();
      await running;
    });
    await waitFor(async () => (await status()).v06.live, "live");
    const following = group(true, true, true, true);
    expect(await status()).toEqual({
      finished_past_indexing: true,
      v06: following,
      v07: following,
      v07_v08: following,
    });
    // Still live well past one heartbeat's age: each poll renews it.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect((await status()).v07_v08.live).toBe(true);

    controller.abort();
    await running;
    await waitFor(async () => !(await status()).v06.live, "the heartbeat to age");
    expect(await status()).toEqual({
      finished_past_indexing: true,
      v06: caughtUp,
      v07: caughtUp,
      v07_v08: caughtUp,
    });
  });

  it("answers an unknown query parameter with 422", async () => {
    const response = await app.inject({ method: "GET", url: `${path}?foo=1&apikey=x` });
    expect(response.statusCode).toBe(422);
    expect(response.json()).toEqual({
      errors: [{ title: "Invalid value", source: { pointer: "/foo" }, detail: "Unexpected field: foo" }],
    });
    expect((await app.inject({ method: "GET", url: `${path}?apikey=x&key=y` })).statusCode).toBe(200);
  });
});

describe.each(databaseKinds)(
  "user operations in logs stored before their entry points were configured (%s)",
  (kind) => {
    it("are read from the logs table at start, then past stored-log indexing is finished", async () => {
      const { test } = await indexNode(kind, client, { entryPoints: none });
      const app = await createApiServer({ db: test.db });
      try {
        const count = async () =>
          only(await test.db.query<{ count: number }>("SELECT count(*)::int AS count FROM user_operations"))
            .count;
        expect(await count()).toBe(0);
        const disabled = group(false, false, false, false);
        expect((await app.inject({ method: "GET", url: path })).json()).toEqual({
          finished_past_indexing: true,
          v06: disabled,
          v07: disabled,
          v07_v08: disabled,
        });

        // v0.6 only first: v0.7 and v0.8 stay off.
        const v06Only = createIndexer({
          client,
          db: test.db,
          logger,
          entryPoints: { ...none, v06: ["0x5FF137D4b0FDCD49DcA30c7CF57E578a026d2789"] },
        });
        await v06Only.prepare();
        expect(await count()).toBe(sentPerVersion.v06);
        const body = (await app.inject({ method: "GET", url: path })).json();
        expect(body.v06).toEqual(group(true, false, true, false));
        expect(body.v07_v08).toEqual(disabled);

        // Then the canonical set: only the newly configured entry points are scanned, and the rows equal
        // those of indexing from the node.
        const all = createIndexer({ client, db: test.db, logger });
        await all.prepare();
        expect(await count()).toBe(sentPerVersion.v06 + sentPerVersion.v07 + sentPerVersion.v08);
        await all.catchUp();
        expect((await app.inject({ method: "GET", url: path })).json().finished_past_indexing).toBe(true);

        const { test: fresh } = await indexNode(kind, client);
        const dump = "SELECT md5(string_agg(u::text, '|' ORDER BY hash)) AS digest FROM user_operations u";
        const [[ours], [theirs]] = [await test.db.query(dump), await fresh.db.query(dump)];
        await fresh.drop();
        expect(ours).toEqual(theirs);
      } finally {
        await app.close();
        await test.drop();
      }
    });
  },
);

describe.each(databaseKinds)("an entry point configured again after a time without it (%s)", (kind) => {
  it("has the logs stored while it was off scanned, not taken as scanned before", async () => {
    // Indexed with every entry point up to v0.6's second operation: those operations are stored.
    const { test } = await indexNode(kind, client, { head: v06SecondBlock });
    try {
      const count = async () =>
        only(await test.db.query<{ count: number }>("SELECT count(*)::int AS count FROM user_operations"))
          .count;
      expect(await count()).toBe(2);
      // Then without entry points to the head: the later operations' logs are stored, no operation is.
      const without = createIndexer({ client, db: test.db, logger, entryPoints: none });
      await without.prepare();
      await without.catchUp();
      expect(await count()).toBe(2);
      // Configured again, every operation of those stored logs is read.
      const again = createIndexer({ client, db: test.db, logger });
      await again.prepare();
      expect(await count()).toBe(sentPerVersion.v06 + sentPerVersion.v07 + sentPerVersion.v08);
      const app = await createApiServer({ db: test.db });
      try {
        const body = (await app.inject({ method: "GET", url: path })).json();
        expect(body.v06).toEqual(group(true, false, true, false));
      } finally {
        await app.close();
      }
    } finally {
      await test.drop();
    }
  });
});
