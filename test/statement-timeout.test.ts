import { toHex } from "viem";
import { describe, expect, it } from "vitest";
import { type Database, openDatabase } from "../src/db/client.ts";
import { compactIndexes, dropAbandonedRebuilds } from "../src/db/compact-indexes.ts";
import { startAnvil } from "../src/demo/anvil.ts";
import { createIndexer } from "../src/indexer/create-indexer.ts";
import { createLogger } from "../src/logger.ts";
import { createRpcClient } from "../src/rpc/client.ts";
import { createTestDatabase, postgresKinds } from "./support/databases.ts";
import { until } from "./support/until.ts";

describe.each(postgresKinds)("a statement_timeout set for the whole database on %s", (kind) => {
  it("cuts reads short but not the indexer's writes, which would otherwise fail on every retry", async () => {
    const anvil = await startAnvil();
    const test = await createTestDatabase(kind);
    let db: Database | undefined;
    const stop = new AbortController();
    try {
      const client = createRpcClient({ url: anvil.rpcUrl });
      await client.request("anvil_mine", [toHex(3)]);
      // Every move of the checkpoint, in each range's write, takes longer than the database allows.
      await test.db.exec(`
        CREATE FUNCTION slow_checkpoint() RETURNS trigger LANGUAGE plpgsql AS
          $$ BEGIN PERFORM pg_sleep(0.3); RETURN NEW; END $$;
        CREATE TRIGGER slow_checkpoint BEFORE INSERT OR UPDATE ON checkpoints
          FOR EACH ROW EXECUTE FUNCTION slow_checkpoint()`);
      const name = new URL(test.url as string).pathname.slice(1);
      await test.db.exec(`ALTER DATABASE ${name} SET statement_timeout = '100ms'`);
      // The setting applies to connections opened after it.
      db = await openDatabase({ databaseUrl: test.url });
      await expect(db.query("SELECT pg_sleep(0.3)")).rejects.toMatchObject({ code: "57014" });

      const indexer = createIndexer({ client, db, logger: createLogger("silent"), rangeSize: 2 });
      await indexer.prepare();
      // The indexer waits out a database that cancels its writes, as it waits out one that is down.
      const running = indexer.run(stop.signal);
      const reader = db;
      const latest = async () =>
        (await reader.query<{ latest: number }>("SELECT max(number) AS latest FROM blocks"))[0]?.latest;
      await until("blocks 0 to 3 written", async () => (await latest()) === 3, {
        timeoutMs: 20_000,
        failOn: running,
      });
      stop.abort();
      await running;
    } finally {
      stop.abort();
      await db?.close();
      await test.drop();
      await anvil.stop();
    }
  }, 60_000);
});

describe.each(postgresKinds)(
  "index compaction under a statement_timeout set for the whole database on %s",
  (kind) => {
    it("rebuilds every index all the same, and leaves the pool's connections with the database's limit", async () => {
      const test = await createTestDatabase(kind);
      let db: Database | undefined;
      try {
        // An index whose rebuild, and a table whose ANALYZE, take longer than the database allows (the rebuild
        // about 0.7 s here), while the catalog reads around them keep room on a loaded machine: with a limit of
        // 20 ms one of them was cancelled during a CI run beside benchmarks.
        await test.db.exec(`CREATE TABLE filler AS SELECT g AS n FROM generate_series(1, 800000) g;
        CREATE INDEX filler_n ON filler (n)`);
        const name = new URL(test.url as string).pathname.slice(1);
        await test.db.exec(`ALTER DATABASE ${name} SET statement_timeout = '100ms'`);
        db = await openDatabase({ databaseUrl: test.url });
        await expect(db.exec("REINDEX INDEX CONCURRENTLY filler_n")).rejects.toMatchObject({ code: "57014" });
        await dropAbandonedRebuilds(db);

        const compacted = await compactIndexes(db);
        expect(compacted?.indexes).toBeGreaterThan(10);
        // The session's own setting went with it: the connections answer with the database's limit again.
        const limits = await Promise.all(
          Array.from({ length: 10 }, () =>
            db?.query<{ setting: string }>("SELECT current_setting('statement_timeout') AS setting"),
          ),
        );
        expect(new Set(limits.map((rows) => rows?.[0]?.setting))).toEqual(new Set(["100ms"]));
      } finally {
        await db?.close();
        await test.drop();
      }
    }, 60_000);
  },
);
