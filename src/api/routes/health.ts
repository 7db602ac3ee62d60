import type { FastifyInstance } from "fastify";
import { readLatestBlock } from "../../db/queries/chain-head.ts";
import type { ApiContext } from "../context.ts";

/** Blockscout's gap, in blocks, past which a stale database head makes the instance unhealthy. */
const maxBlocksGapBetweenNodeAndDb = 20;

const hidden = { schema: { hide: true } };

/** Seconds since the epoch as Blockscout prints a UTC time in its health answer. */
function healthTime(seconds: number): string {
  return `${new Date(seconds * 1000).toISOString().slice(0, 19).replace("T", " ")}Z`;
}

/**
 * Blockscout's health endpoints: `/api/health` (200 healthy, 500 not, with the database's and the node's
 * latest blocks), `/api/health/liveness` (the process answers) and `/api/health/readiness` (the database
 * answers). Unhealthy, as in Blockscout, means no blocks at all, or a database head older than
 * `healthyBlocksPeriodMs` while the node is more than 20 blocks ahead.
 */
export function healthRoutes(app: FastifyInstance, { db, nodeHead, healthyBlocksPeriodMs }: ApiContext) {
  app.get("/api/health", hidden, async (_request, reply) => {
    const latest = await readLatestBlock(db);
    const node = nodeHead?.() ?? null;
    const dbBlock = latest
      ? { number: String(latest.number), timestamp: healthTime(latest.timestamp) }
      : { number: "", timestamp: "" };
    const latestBlock = { db: dbBlock, cache: dbBlock, node: { number: node === null ? "" : String(node) } };
    let error: { code: number; message: string } | null = null;
    if (!latest) error = { code: 5002, message: "There are no blocks in the DB." };
    else {
      const delayMs = Date.now() - latest.timestamp * 1000;
      if (
        delayMs > healthyBlocksPeriodMs &&
        node !== null &&
        node - BigInt(latest.number) > maxBlocksGapBetweenNodeAndDb
      )
        error = {
          code: 5001,
          message: `There are no new blocks in the DB for the last ${Math.round(delayMs / 60_000)} mins. Check the healthiness of the JSON RPC archive node or the DB.`,
        };
    }
    const healthy = error === null;
    const blocks = { healthy, latest_block: latestBlock, ...(error ? { error } : {}) };
    return reply
      .status(healthy ? 200 : 500)
      .send({ healthy, error, metadata: { blocks, latest_block: { db: dbBlock, cache: dbBlock } } });
  });
  app.get("/api/health/liveness", hidden, async (_request, reply) => reply.type("text/plain").send("OK"));
  app.get("/api/health/readiness", hidden, async (_request, reply) => {
    await readLatestBlock(db);
    return reply.type("text/plain").send("OK");
  });
}
