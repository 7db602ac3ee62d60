import type { FastifyInstance } from "fastify";
import { type CreateApiServerParameters, createApiServer } from "../../src/api/server.ts";
import {
  type CreateIndexerParameters,
  createIndexer,
  type Indexer,
} from "../../src/indexer/create-indexer.ts";
import { createLogger } from "../../src/logger.ts";
import type { RpcClient } from "../../src/rpc/client.ts";
import { createTestDatabase, type DatabaseKind, type TestDatabase } from "./databases.ts";

export type IndexedChain = {
  test: TestDatabase;
  indexer: Indexer;
  app: FastifyInstance;
  close(): Promise<void>;
};

/** Indexes the node's chain (up to `head`, default its head now) into a new database and serves it. */
export async function indexIntoNewDatabase(
  kind: DatabaseKind,
  client: RpcClient,
  {
    head,
    api,
    ...options
  }: Partial<Omit<CreateIndexerParameters, "client" | "db" | "logger">> & {
    head?: bigint;
    /** Options of the API server, e.g. the protocols whose events become actions. */
    api?: Omit<CreateApiServerParameters, "db">;
  } = {},
): Promise<IndexedChain> {
  const test = await createTestDatabase(kind);
  const indexer = createIndexer({ client, db: test.db, logger: createLogger("silent"), ...options });
  await indexer.prepare();
  await indexer.catchUp(head);
  const app = await createApiServer({ db: test.db, ...api });
  return {
    test,
    indexer,
    app,
    async close() {
      await app.close();
      await test.drop();
    },
  };
}
