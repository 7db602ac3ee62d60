import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { createApiServer } from "./api/server.ts";
import { actionProtocols } from "./api/transaction-actions.ts";
import { type Config, ConfigError, rateLimitsOf } from "./config.ts";
import { type Database, openDatabase } from "./db/client.ts";
import { isDriverPatched } from "./db/driver-patch.ts";
import { migrate } from "./db/migrate.ts";
import { createIndexer, type Indexer } from "./indexer/create-indexer.ts";
import { createMetadataFetcher } from "./indexer/create-metadata-fetcher.ts";
import { refusedAddresses } from "./indexer/metadata-hosts.ts";
import { createAbiDirWatcher } from "./indexer/watch-abi-dir.ts";
import type { Logger } from "./logger.ts";
import type { Metrics } from "./metrics.ts";
import { createRpcClient } from "./rpc/client.ts";
import { anySignal } from "./signals.ts";

export type OpenStoreParameters = {
  config: Config;
  logger: Logger;
  /** Stops the wait for a PostgreSQL server that cannot be reached yet. */
  signal?: AbortSignal;
};

/** Opens the configured database and brings its schema up to date. */
export async function openStore({ config, logger, signal }: OpenStoreParameters): Promise<Database> {
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, signal });
  if (db.kind === "postgres" && !isDriverPatched())
    logger.warn(
      "the PostgreSQL driver lacks patches/postgres+3.4.9.patch (installed with --ignore-scripts?): a connection lost under a transaction would end the process; run `npx patch-package`",
    );
  try {
    const { applied } = await migrate(db);
    if (applied.length > 0) logger.info({ applied, database: db.kind }, "schema migrated");
  } catch (error) {
    // Closed, or it would keep the process alive after the error is reported (and PGlite locked).
    await db.close();
    throw error;
  }
  return db;
}

export type CreateChainIndexerParameters = {
  config: Config & { rpcUrl: string };
  db: Database;
  logger: Logger;
  /** Where the node's calls and the indexer's progress are reported. */
  metrics?: Metrics;
  /** Stops the node's calls in flight, and their retries, when the process is stopping. */
  signal?: AbortSignal;
};

/**
 * The indexer for the configured node. Its `run` also fetches NFT metadata in the background and
 * imports the ABI folder as it changes; when the indexer or the fetcher stops with an error, all stop.
 */
export function createChainIndexer({
  config,
  db,
  logger,
  metrics,
  signal,
}: CreateChainIndexerParameters): Indexer {
  const client = createRpcClient({
    url: config.rpcUrl,
    batchSize: config.rpcBatchSize,
    concurrency: config.concurrency * 2,
    timeoutMs: config.rpcTimeoutMs,
    metrics,
    signal,
  });
  const metadata = createMetadataFetcher({
    db,
    client,
    logger,
    ipfsGateway: config.ipfsGateway,
    refused: config.metadataHostFiltering ? refusedAddresses(config.metadataCidrBlacklist) : null,
  });
  const abis = createAbiDirWatcher({ db, logger, folder: config.abiDir ?? join(config.dataDir, "abis") });
  const indexer = createIndexer({
    client,
    db,
    logger,
    firstBlock: config.firstBlock,
    rangeSize: config.rangeSize,
    concurrency: config.concurrency,
    pollIntervalMs: config.pollIntervalMs,
    maxReorgDepth: config.maxReorgDepth,
    compactIndexesAfter: config.compactIndexesAfter,
    tracer: config.tracer,
    traceTimeout: config.traceTimeout,
    entryPoints: { v06: config.entryPointsV06, v07: config.entryPointsV07, v08: config.entryPointsV08 },
    wrappingContracts: config.wethTransfersFilteringEnabled ? config.whitelistedWethContracts : undefined,
  });
  metrics?.watchIndexer(() => indexer.status());
  return {
    ...indexer,
    async run(signal) {
      // One task's failure stops the others, as a stop does; a stop asked for before this call counts too.
      const failed = new AbortController();
      const both = anySignal([signal, failed.signal]);
      await Promise.all(
        [indexer.run(both.signal), metadata.run(both.signal), abis.run(both.signal)].map((task) =>
          task.catch((error) => {
            failed.abort(error);
            throw error;
          }),
        ),
      ).finally(both.dispose);
    },
  };
}

export type ServeParameters = {
  config: Config;
  db: Database;
  logger: Logger;
  /** Served at `/metrics`, with every request timed in it. */
  metrics?: Metrics;
  /** The indexer of this process, whose view of the node's head `/api/health` reports. */
  indexer?: Indexer;
};

/** Why the API cannot listen where it is told to, for the errors configuration fixes. */
const listenFailures: Record<string, string> = {
  EADDRINUSE: "the port is in use by another process",
  EADDRNOTAVAIL: "the host is not an address of this machine",
  EACCES: "this user may not listen on that port",
  ENOTFOUND: "the host name does not resolve",
  EAI_AGAIN: "the host name does not resolve",
};

/**
 * Starts the API on the configured host and port and returns the running server.
 * @throws {ConfigError} when it cannot listen there (the port taken, the host not this machine's).
 */
export async function serve({
  config,
  db,
  logger,
  metrics,
  indexer,
}: ServeParameters): Promise<FastifyInstance> {
  // A replica away at start is read once it answers; until then the API reads the primary.
  const replica = config.readDatabaseUrl
    ? await openDatabase({ databaseUrl: config.readDatabaseUrl, mayBeAway: true })
    : undefined;
  const app = await createApiServer({
    db,
    logger,
    metrics,
    nodeHead: indexer && (() => indexer.status().headBlock),
    healthyBlocksPeriodMs: config.healthyBlocksPeriodMs,
    rateLimits: rateLimitsOf(config),
    replica,
    replicaMaxLagMs: config.replicaMaxLagMs,
    protocols: actionProtocols(config),
    interpreterUrl: config.interpreterUrl,
    nativeSymbol: config.coin,
    ipfsPublicGateway: config.ipfsPublicGateway,
    pageCacheBytes: config.pageCacheMb * 1024 * 1024,
    concurrency: config.apiConcurrency,
  });
  if (replica) app.addHook("onClose", () => replica.close());
  try {
    await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    await app.close();
    const reason = listenFailures[(error as { code?: string }).code ?? ""];
    if (reason)
      throw new ConfigError(
        `cannot serve on ${config.host}:${config.port}: ${reason} (set --port/PORT or --host/SEXTANT_HOST)`,
        { cause: error },
      );
    throw error;
  }
  return app;
}
