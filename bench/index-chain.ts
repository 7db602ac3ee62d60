import { createIndexer } from "../src/indexer/create-indexer.ts";
import { createLogger } from "../src/logger.ts";
import { required } from "../src/required.ts";
import { createRpcClient } from "../src/rpc/client.ts";
import { createTestDatabase, type DatabaseKind, type TestDatabase } from "../test/support/databases.ts";

/** Sextant's defaults (src/config.ts): ranges of 100 blocks, 4 in flight, JSON-RPC batches of 100. */
export const indexerDefaults = { rangeSize: 100, concurrency: 4, batchSize: 100 } as const;

/**
 * Sextant's full catch-up from block 0 to `head` into a fresh database of `kind`, with its default
 * settings; returns the milliseconds from `prepare` to the last range written. Throws unless the
 * database then holds `transactions` transactions. `inspect` reads the database before it is dropped.
 */
export async function indexChain(
  kind: DatabaseKind,
  url: string,
  head: number,
  transactions: number,
  inspect?: (test: TestDatabase) => Promise<void>,
): Promise<number> {
  const { rangeSize, concurrency, batchSize } = indexerDefaults;
  const test = await createTestDatabase(kind);
  try {
    // Twice as many HTTP requests in flight as ranges, as src/app.ts configures the client.
    const client = createRpcClient({ url, batchSize, concurrency: concurrency * 2 });
    const indexer = createIndexer({
      client,
      db: test.db,
      logger: createLogger("silent"),
      rangeSize,
      concurrency,
    });
    const started = performance.now();
    await indexer.prepare();
    await indexer.catchUp(BigInt(head));
    const ms = performance.now() - started;
    const [stored] = await test.db.query<{ count: number }>(
      "SELECT count(*)::int8 AS count FROM transactions",
    );
    const { count } = required(stored, "the count of stored transactions");
    if (count !== transactions)
      throw new Error(`${kind}: ${count} transactions stored, the chain has ${transactions}`);
    await inspect?.(test);
    return ms;
  } finally {
    await test.drop();
  }
}
