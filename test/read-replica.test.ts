import { once } from "node:events";
import { type AddressInfo, createServer } from "node:net";
import type { FastifyInstance } from "fastify";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createApiServer } from "../src/api/server.ts";
import { serve } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import { type Database, openDatabase } from "../src/db/client.ts";
import { migrate } from "../src/db/migrate.ts";
import { createIndexer, type Indexer } from "../src/indexer/create-indexer.ts";
import { createLogger } from "../src/logger.ts";
import { required } from "../src/required.ts";
import { createRpcClient } from "../src/rpc/client.ts";
import { eth_blockNumber } from "../src/rpc/eth_blockNumber.ts";
import { createTestDatabase, postgresKinds } from "./support/databases.ts";
import { freePort } from "./support/free-port.ts";
import {
  type PostgresCluster,
  startPostgresCluster,
  startStreamingReplica,
} from "./support/postgres-cluster.ts";
import { until } from "./support/until.ts";

// A cluster of the test's own, from PostgreSQL's server programs: it needs no DATABASE_URL.
describe("API reads from a streaming replica (postgres)", () => {
  let primary: PostgresCluster;
  let replica: PostgresCluster;
  let written: Database;
  let replicaDb: Database;
  let indexer: Indexer;
  /** Reads the replica unless it lags more than an hour. */
  let patient: FastifyInstance;
  /** Reads the replica only when it has replayed everything. */
  let strict: FastifyInstance;
  let head: number;
  let half: number;

  const dbHeadOf = async (app: FastifyInstance) =>
    Number((await app.inject("/api/health")).json().metadata.blocks.latest_block.db.number);
  const replaying = (paused: boolean) =>
    replicaDb.query(paused ? "SELECT pg_wal_replay_pause()" : "SELECT pg_wal_replay_resume()");

  beforeAll(async () => {
    primary = await startPostgresCluster();
    const admin = postgres(primary.url(), { max: 1, onnotice: () => {} });
    await admin.unsafe("CREATE DATABASE sextant");
    await admin.end();
    replica = await startStreamingReplica(primary);
    written = await openDatabase({ databaseUrl: primary.url("sextant") });
    await migrate(written);
    replicaDb = await openDatabase({ databaseUrl: replica.url("sextant") });
    const client = createRpcClient({ url: inject("demoRpcUrl") });
    head = Number(await eth_blockNumber(client));
    half = Math.floor(head / 2);
    indexer = createIndexer({ client, db: written, logger: createLogger("silent") });
    await indexer.prepare();
    await indexer.catchUp(BigInt(half));
    patient = await createApiServer({ db: written, replica: replicaDb, replicaMaxLagMs: 3_600_000 });
    strict = await createApiServer({ db: written, replica: replicaDb, replicaMaxLagMs: 0 });
  }, 180_000);

  afterAll(async () => {
    await patient?.close();
    await strict?.close();
    await written?.close();
    await replicaDb?.close().catch(() => {});
    replica?.destroy();
    primary?.destroy();
  });

  it("answers from the replica, with the head the replica has, while replay is paused", async () => {
    await until("the replica has the first half", async () => (await dbHeadOf(patient)) === half);
    await replaying(true);
    await indexer.catchUp();
    expect(indexer.status().indexedBlock).toBe(BigInt(head));

    // The replica still holds the first half: its head, and only rows up to it.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(await dbHeadOf(patient)).toBe(half);
    const transfers = (await patient.inject("/api/v2/token-transfers")).json();
    const newest = Math.max(...transfers.items.map((item: { block_number: number }) => item.block_number));
    expect(newest).toBeLessThanOrEqual(half);
    const [onReplica] = await replicaDb.query<{ newest: number }>(
      "SELECT max(block_number) AS newest FROM token_transfers",
    );
    expect(newest).toBe(onReplica?.newest);

    // A replica that lags reads the primary instead: the whole chain.
    expect(await dbHeadOf(strict)).toBe(head);
  });

  it("catches up once replay resumes, reads it while the primary is down, and reads the primary when the replica hangs or is gone", async () => {
    await replaying(false);
    await until("the replica has the whole chain", async () => (await dbHeadOf(patient)) === head);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(await dbHeadOf(strict)).toBe(head);

    // A replica that hangs (its host stops answering) is passed over once its check takes a second.
    replica.hang(true);
    try {
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      const within = <T>(answer: Promise<T>) =>
        Promise.race([
          answer,
          new Promise<never>((_, reject) => setTimeout(() => reject(new Error("no answer in 5 s")), 5_000)),
        ]);
      expect(await within(dbHeadOf(patient))).toBe(head);
      expect((await within(patient.inject("/api/health/liveness"))).statusCode).toBe(200);
    } finally {
      replica.hang(false);
    }

    // A primary that is down leaves the replica: whatever the lag limit, its data answers rather than a 503.
    primary.stop("fast");
    try {
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      for (const app of [patient, strict]) {
        expect((await app.inject("/api/v2/token-transfers")).statusCode).toBe(200);
        expect(await dbHeadOf(app)).toBe(head);
      }
    } finally {
      primary.start();
    }

    replica.stop("immediate");
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const answer = await patient.inject("/api/v2/token-transfers");
    expect(answer.statusCode).toBe(200);
    expect(await dbHeadOf(patient)).toBe(head);
  });
});

describe.each(postgresKinds)("a replica away when the API starts (%s)", (kind) => {
  /**
   * Serves a fresh primary with its replica at `replicaPort`; checks that a page answers, read from the
   * primary, and gives how long the API took to start.
   */
  async function serveAwayReplica(replicaPort: number): Promise<number> {
    const primary = await createTestDatabase(kind);
    const config = loadConfig({
      env: {},
      flags: {
        database: required(primary.url, "the test database's URL"),
        "read-database": `postgres://postgres@127.0.0.1:${replicaPort}/sextant`,
        port: "0",
        "log-level": "silent",
      },
    });
    const startedAt = Date.now();
    const app = await serve({ config, db: primary.db, logger: createLogger("silent") });
    const startMs = Date.now() - startedAt;
    try {
      const transfers = await app.inject("/api/v2/token-transfers");
      expect(transfers.statusCode).toBe(200);
      expect(transfers.json().items).toEqual([]);
    } finally {
      await app.close();
      await primary.drop();
    }
    return startMs;
  }

  it("is passed over: the API starts and reads the primary", async () => {
    await serveAwayReplica(await freePort());
  });

  it("is passed over when its host takes connections and never answers, after 2 s, not the driver's 30", async () => {
    const silent = createServer(() => {}).listen(0, "127.0.0.1");
    await once(silent, "listening");
    try {
      expect(await serveAwayReplica((silent.address() as AddressInfo).port)).toBeLessThan(5_000);
    } finally {
      silent.close();
    }
  });
});
