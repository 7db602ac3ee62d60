import type { FastifyInstance } from "fastify";
import { type CreateApiServerParameters, createApiServer } from "../../src/api/server.ts";
import type { Indexer } from "../../src/indexer/create-indexer.ts";
import type { RpcClient } from "../../src/rpc/client.ts";
import type { DatabaseKind, TestDatabase } from "./databases.ts";
import { type IndexNodeOptions, indexNode } from "./index-node.ts";

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
    api,
    ...options
  }: IndexNodeOptions & {
    /** Options of the API server, e.g. the protocols whose events become actions. */
    api?: Omit<CreateApiServerParameters, "db">;
  } = {},
): Promise<IndexedChain> {
  const { test, indexer } = await indexNode(kind, client, options);
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
