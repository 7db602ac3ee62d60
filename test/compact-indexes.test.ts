import { toHex } from "viem";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createApiServer } from "../src/api/server.ts";
import { addressSuffixSql } from "../src/db/address-transaction-keys.ts";
import { readCheckpoint } from "../src/db/checkpoints.ts";
import type { Database } from "../src/db/client.ts";
import { compactIndexes, compactionCheckpoint, shouldCompactIndexes } from "../src/db/compact-indexes.ts";
import { type Anvil, startAnvil } from "../src/demo/anvil.ts";
import { createRpcClient } from "../src/rpc/client.ts";
import { fingerprint, postgresKinds, type TestDatabase } from "./support/databases.ts";
import { followNode, indexNode } from "./support/index-node.ts";
import { until } from "./support/until.ts";

const client = createRpcClient({ url: inject("demoRpcUrl") });

type IndexState = { name: string; valid: boolean; bytes: number; file: string };

/** Every index of the schema's tables but the migrations' own, and whether PostgreSQL may use it. */
async function schemaIndexes(db: Database): Promise<IndexState[]> {
  return db.query<IndexState>(
    `SELECT c.relname AS name, i.indisvalid AS valid, pg_relation_size(i.indexrelid) AS bytes,
       pg_relation_filenode(i.indexrelid)::text AS file
     FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_class t ON t.oid = i.indrelid
     WHERE t.relnamespace = current_schema()::regnamespace AND t.relname <> 'schema_migrations'
     ORDER BY c.relname`,
  );
}

/** The bodies of a page of every address list of the busiest address, and of a token's holders and transfers. */
async function answers(db: Database): Promise<string[]> {
  const [busiest] = await db.query<{ address: string }>(
    `SELECT '0x' || encode(d.hash, 'hex') AS address
     FROM address_transactions a JOIN addresses d ON ${addressSuffixSql("d.hash")} = a.address_suffix
     GROUP BY d.hash ORDER BY count(*) DESC, d.hash LIMIT 1`,
  );
  const [token] = await db.query<{ address: string }>(
    `SELECT '0x' || encode(token_address, 'hex') AS address FROM token_balances
     GROUP BY token_address ORDER BY count(*) DESC, token_address LIMIT 1`,
  );
  const address = busiest?.address;
  const paths = [
    `/api/v2/addresses/${address}/transactions`,
    `/api/v2/addresses/${address}/transactions?sort=value&order=asc`,
    `/api/v2/addresses/${address}/transactions?filter=from&sort=fee&order=desc`,
    `/api/v2/addresses/${address}/logs`,
    `/api/v2/addresses/${address}/token-transfers`,
    `/api/v2/addresses/${address}/internal-transactions`,
    `/api/v2/addresses/${address}/tokens`,
    `/api/v2/tokens/${token?.address}/holders`,
    "/api/v2/token-transfers",
  ];
  // A new server each time: its page cache would answer from before the rebuild, which moves no data version.
  const app = await createApiServer({ db, pageCacheBytes: 0 });
  try {
    const bodies: string[] = [];
    for (const url of paths) {
      const response = await app.inject({ method: "GET", url });
      expect(response.statusCode, url).toBe(200);
      bodies.push(response.body);
    }
    return bodies;
  } finally {
    await app.close();
  }
}

describe.each(postgresKinds)("compacting the indexes of the demo chain in %s", (kind) => {
  let test: TestDatabase;

  beforeAll(async () => {
    ({ test } = await indexNode(kind, client, { rangeSize: 7, concurrency: 3 }));
  });
  afterAll(() => test?.drop());

  it("rebuilds every index, drops an abandoned rebuild first, and leaves the rows and answers as they were", async () => {
    const rowsBefore = await fingerprint(test.db);
    const answersBefore = await answers(test.db);
    const indexesBefore = await schemaIndexes(test.db);
    // What a REINDEX CONCURRENTLY cut off leaves: an invalid index named as its copy (this one is invalid
    // because its build failed on duplicate addresses).
    await expect(
      test.db.exec("CREATE UNIQUE INDEX CONCURRENTLY logs_address_ccnew ON logs (address)"),
    ).rejects.toThrow();
    expect((await schemaIndexes(test.db)).find((index) => index.name === "logs_address_ccnew")?.valid).toBe(
      false,
    );

    const compacted = await compactIndexes(test.db);

    expect(compacted?.abandoned).toEqual(["logs_address_ccnew"]);
    const indexesAfter = await schemaIndexes(test.db);
    expect(indexesAfter.map(({ name, valid }) => ({ name, valid }))).toEqual(
      indexesBefore.map(({ name }) => ({ name, valid: true })),
    );
    expect(compacted?.indexes).toBe(indexesBefore.length);
    // Each was written anew.
    const filesBefore = new Set(indexesBefore.map((index) => index.file));
    expect(indexesAfter.filter((index) => filesBefore.has(index.file))).toEqual([]);
    expect(compacted?.bytesBefore).toBe(indexesBefore.reduce((sum, index) => sum + index.bytes, 0));
    expect(compacted?.bytesAfter).toBe(indexesAfter.reduce((sum, index) => sum + index.bytes, 0));
    // The rows are the same, and a checkpoint records the last block stored when the indexes were compacted.
    const { checkpoints, ...rowsAfter } = await fingerprint(test.db);
    const { checkpoints: checkpointsBefore, ...rowsBeforeButCheckpoints } = rowsBefore;
    expect(rowsAfter).toEqual(rowsBeforeButCheckpoints);
    expect(checkpoints).not.toEqual(checkpointsBefore);
    expect(await readCheckpoint(test.db, compactionCheckpoint)).toBe(await readCheckpoint(test.db));
    expect(await answers(test.db)).toEqual(answersBefore);
  });
});

describe.each(postgresKinds)("the indexer's compaction in %s", (kind) => {
  it("compacts once its catch-up reaches the head, having written enough, and follows meanwhile", async () => {
    const followed = await followNode(kind, client, { compactIndexesAfter: 1, pollIntervalMs: 50 });
    try {
      await until("the indexes compacted", async () => followed.indexer.status().indexCompactions === 1, {
        failOn: followed.running,
      });
      expect(followed.indexer.status().following).toBe(true);
      expect(await readCheckpoint(followed.test.db, compactionCheckpoint)).not.toBeNull();
      const indexes = await schemaIndexes(followed.test.db);
      expect(indexes.filter((index) => !index.valid)).toEqual([]);
      // Only a chain twice as high compacts again.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(followed.indexer.status().indexCompactions).toBe(1);
    } finally {
      await followed.drop();
    }
  });
});

describe.each(postgresKinds)("a compaction cut off while following in %s", (kind) => {
  it("leaves no invalid copy of an index behind: the next round drops it", async () => {
    const followed = await followNode(kind, client, { compactIndexesAfter: 1, pollIntervalMs: 50 });
    const { test, indexer } = followed;
    try {
      // A snapshot taken before the compaction holds its first rebuild in its last wait, the index's copy
      // built but not yet valid; then the rebuild's connection is lost.
      await test.db.transaction(async (tx) => {
        await tx.exec("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ");
        await tx.query("SELECT count(*) FROM checkpoints");
        const [rebuild] = await until(
          "a rebuild waiting for old snapshots",
          async () => {
            const rebuilds = await test.db.query<{ pid: number }>(
              `SELECT pid FROM pg_stat_progress_create_index
               WHERE datname = current_database() AND phase = 'waiting for old snapshots'`,
            );
            return rebuilds.length > 0 && rebuilds;
          },
          { failOn: followed.running },
        );
        await test.db.query("SELECT pg_terminate_backend($1)", [rebuild?.pid]);
        await until("the rebuild's copy left invalid", async () => {
          const invalid = (await schemaIndexes(test.db)).filter((index) => !index.valid);
          return invalid.length === 1 && invalid[0]?.name.endsWith("_ccnew");
        });
      });
      await until(
        "no invalid index left",
        async () => (await schemaIndexes(test.db)).every((index) => index.valid),
        {
          failOn: followed.running,
          timeoutMs: 20_000,
        },
      );
      expect(indexer.status().following).toBe(true);
    } finally {
      await followed.drop();
    }
  });
});

describe.each(postgresKinds)("compaction while following in %s", (kind) => {
  let anvil: Anvil;
  beforeAll(async () => {
    anvil = await startAnvil();
  });
  afterAll(async () => {
    await anvil?.stop();
  });

  it("compacts again once the chain's height has doubled, without falling behind", async () => {
    const node = createRpcClient({ url: anvil.rpcUrl });
    const [from, to] = await node.request<string[]>("eth_accounts");
    await node.request("eth_sendTransaction", [{ from, to, value: toHex(7) }]);
    await node.request("anvil_mine", ["0x2"]);
    const followed = await followNode(kind, node, { compactIndexesAfter: 1, pollIntervalMs: 50 });
    const { indexer, test } = followed;
    try {
      await until("the first compaction", async () => indexer.status().indexCompactions === 1, {
        failOn: followed.running,
      });
      const compactedAt = await readCheckpoint(test.db, compactionCheckpoint);
      expect(compactedAt).toBe(3n);
      // One block at a time, the indexer stays at the head: each block is followed, not caught up with.
      for (let block = 4n; block <= 7n; block += 1n) {
        await node.request("anvil_mine", ["0x1"]);
        await until(`block ${block}`, async () => indexer.status().indexedBlock === block, {
          failOn: followed.running,
        });
        expect(indexer.status().following).toBe(true);
      }
      // 7 is twice 3 and more: the second compaction; none before it (6 is not yet).
      await until("the second compaction", async () => indexer.status().indexCompactions === 2, {
        failOn: followed.running,
      });
      expect(await readCheckpoint(test.db, compactionCheckpoint)).toBe(7n);
    } finally {
      await followed.drop();
    }
  });
});

describe("compacting PGlite", () => {
  it("does nothing: an embedded database holds a small chain and serves while it indexes", async () => {
    const { test } = await indexNode("pglite", client, { head: 20n });
    try {
      expect(await compactIndexes(test.db)).toBeNull();
    } finally {
      await test.drop();
    }
  });
});

describe("shouldCompactIndexes", () => {
  it.each([
    { stored: 100_000, indexedBlock: 1_000n, compactedBlock: null, minTransactions: 100_000, expected: true },
    { stored: 99_999, indexedBlock: 1_000n, compactedBlock: null, minTransactions: 100_000, expected: false },
    {
      stored: 10_000_000,
      indexedBlock: 2_000n,
      compactedBlock: 1_000n,
      minTransactions: 100_000,
      expected: true,
    },
    {
      stored: 10_000_000,
      indexedBlock: 1_999n,
      compactedBlock: 1_000n,
      minTransactions: 100_000,
      expected: false,
    },
    { stored: 10_000_000, indexedBlock: 1_000n, compactedBlock: null, minTransactions: 0, expected: false },
  ])(
    "$stored stored at block $indexedBlock, compacted at $compactedBlock, at least $minTransactions: $expected",
    (example) => {
      expect(shouldCompactIndexes(example)).toBe(example.expected);
    },
  );
});
