import {
  type CreateIndexerParameters,
  createIndexer,
  type Indexer,
} from "../../src/indexer/create-indexer.ts";
import { createLogger } from "../../src/logger.ts";
import { createRpcClient, type RpcClient } from "../../src/rpc/client.ts";
import { createTestDatabase, type DatabaseKind, type TestDatabase } from "./databases.ts";

/** The indexer's parameters (a silent logger unless given). */
export type FollowNodeOptions = Partial<Omit<CreateIndexerParameters, "client" | "db">>;

export type IndexNodeOptions = FollowNodeOptions & {
  /** The block to catch up to; the node's head now by default. */
  head?: bigint;
};

export type IndexedNode = {
  test: TestDatabase;
  indexer: Indexer;
  /** The block catch-up reached, as `catchUp` returned it. */
  head: bigint | null;
};

export type FollowedNode = {
  test: TestDatabase;
  indexer: Indexer;
  /** The indexer's run: rejects with the error that stopped it. */
  running: Promise<void>;
  /** Stops the indexer and waits for it; rejects with the error its run ended with, if any. */
  stop(): Promise<void>;
  /** Stops the indexer, then drops the database (also when the run ended with an error, then rethrown). */
  drop(): Promise<void>;
};

/** Indexes `node` (a client or its URL) into a new database of `kind`, up to `options.head`. */
export async function indexNode(
  kind: DatabaseKind,
  node: RpcClient | string,
  { head, ...options }: IndexNodeOptions = {},
): Promise<IndexedNode> {
  return inNewDatabase(kind, node, options, async ({ test, indexer }) => ({
    test,
    indexer,
    head: await indexer.catchUp(head),
  }));
}

/**
 * Runs an indexer of `node` (a client or its URL) into a new database of `kind`: it catches up, then
 * follows the node's head until `stop` or `drop`.
 */
export async function followNode(
  kind: DatabaseKind,
  node: RpcClient | string,
  options: FollowNodeOptions = {},
): Promise<FollowedNode> {
  return inNewDatabase(kind, node, options, async ({ test, indexer }) => {
    const controller = new AbortController();
    const running = indexer.run(controller.signal);
    const stop = async () => {
      controller.abort();
      await running;
    };
    return {
      test,
      indexer,
      running,
      stop,
      async drop() {
        try {
          await stop();
        } finally {
          await test.drop();
        }
      },
    };
  });
}

/** A new database of `kind` with a prepared indexer of `node`, handed to `use`; dropped if anything fails. */
async function inNewDatabase<T>(
  kind: DatabaseKind,
  node: RpcClient | string,
  { logger = createLogger("silent"), ...options }: FollowNodeOptions,
  use: (prepared: { test: TestDatabase; indexer: Indexer }) => Promise<T>,
): Promise<T> {
  const client = typeof node === "string" ? createRpcClient({ url: node }) : node;
  const test = await createTestDatabase(kind);
  try {
    const indexer = createIndexer({ client, db: test.db, logger, ...options });
    await indexer.prepare();
    return await use({ test, indexer });
  } catch (error) {
    await test.drop();
    throw error;
  }
}
