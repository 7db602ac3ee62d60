import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { Tracer } from "../src/indexer/choose-tracer.ts";
import { createRpcClient } from "../src/rpc/client.ts";
import { chainMismatches } from "./support/compare-with-node.ts";
import { databaseKinds, fingerprint, type TestDatabase } from "./support/databases.ts";
import { only } from "./support/elements.ts";
import { startFaultProxy } from "./support/fault-proxy.ts";
import { indexNode } from "./support/index-node.ts";

describe.each(databaseKinds)("internal transactions of the demo chain on %s", (kind) => {
  const client = createRpcClient({ url: inject("demoRpcUrl") });
  const databases = new Map<Tracer, TestDatabase>();
  /** The tracer options of every call that traced a block, as the node received them. */
  const traceOptions: unknown[] = [];

  beforeAll(async () => {
    const head = BigInt(await client.request<string>("eth_blockNumber"));
    // callTracer is asked through a proxy that sees each call, with a time limit per transaction.
    const proxy = await startFaultProxy({
      target: inject("demoRpcUrl"),
      faults: [],
      rate: 0,
      beforeForward: async (calls) => {
        for (const call of calls)
          if (call.method?.startsWith("debug_traceBlock")) traceOptions.push(call.params?.[1]);
      },
    });
    try {
      for (const tracer of ["parity", "callTracer", "none"] as const) {
        const node = tracer === "callTracer" ? createRpcClient({ url: proxy.url }) : client;
        const { test } = await indexNode(kind, node, { tracer, rangeSize: 25, head, traceTimeout: "30s" });
        databases.set(tracer, test);
      }
    } finally {
      await proxy.close();
    }
  });
  afterAll(async () => {
    for (const test of databases.values()) await test.drop();
  });

  it("are the same rows from trace_block and from debug_traceBlockByNumber", async () => {
    // The node took the time limit, which reached it with every block traced.
    expect(traceOptions.length).toBeGreaterThan(0);
    expect(new Set(traceOptions.map((options) => JSON.stringify(options)))).toEqual(
      new Set([JSON.stringify({ tracer: "callTracer", timeout: "30s" })]),
    );
    const parity = databases.get("parity") as TestDatabase;
    const callTracer = databases.get("callTracer") as TestDatabase;
    const frames = only(
      await parity.db.query<{ count: number }>("SELECT count(*)::int AS count FROM internal_transactions"),
    );
    // Inner frames and top-level creates (top-level calls are not stored).
    expect(frames.count).toBeGreaterThan(500);
    expect(await fingerprint(callTracer.db)).toEqual(await fingerprint(parity.db));
  });

  it("cover every kind of frame the scenario makes, with errors where frames failed", async () => {
    const { db } = databases.get("parity") as TestDatabase;
    const types = await db.query<{ type: string }>(
      "SELECT DISTINCT type FROM internal_transactions ORDER BY type",
    );
    expect(types.map((row) => row.type)).toEqual(
      expect.arrayContaining(["call", "create", "create2", "selfdestruct"]),
    );
    // A top-level call repeats its transaction and is not stored; a top-level create is (endpoint 12 lists it).
    const topLevel = await db.query<{ type: string }>(
      "SELECT DISTINCT type FROM internal_transactions WHERE index = 0 ORDER BY type",
    );
    expect(topLevel.map((row) => row.type)).toEqual(["create"]);
    const failed = only(
      await db.query<{ unexplained: number; total: number }>(
        "SELECT count(*) FILTER (WHERE error IS NULL)::int AS unexplained, count(*)::int AS total FROM transactions WHERE status = 0",
      ),
    );
    expect(failed.total).toBeGreaterThan(10);
    expect(failed.unexplained).toBe(0);
    const inner = only(
      await db.query<{ count: number }>(
        "SELECT count(*)::int AS count FROM transactions WHERE status = 1 AND has_error_in_internal_transactions",
      ),
    );
    expect(inner.count).toBeGreaterThan(0);
    const creations = only(
      await db.query<{ missing: number }>(
        `SELECT count(*)::int AS missing FROM internal_transactions i
         LEFT JOIN addresses a ON a.hash = i.created_contract
         WHERE i.created_contract IS NOT NULL AND i.error IS NULL AND NOT coalesce(a.is_contract, false)`,
      ),
    );
    expect(creations.missing).toBe(0);
  });

  it("are recorded as missing, not absent, when the node offers no tracer", async () => {
    const { db } = databases.get("none") as TestDatabase;
    const [row] = await db.query<{ frames: number; traced: number; known: number }>(
      `SELECT (SELECT count(*)::int FROM internal_transactions) AS frames,
              (SELECT count(*)::int FROM blocks WHERE traced) AS traced,
              (SELECT count(*)::int FROM transactions WHERE has_error_in_internal_transactions IS NOT NULL) AS known`,
    );
    expect(row).toEqual({ frames: 0, traced: 0, known: 0 });
  });

  it("hold the node's traces, whichever tracer read them, and none where no tracer did", async () => {
    const head = BigInt(await client.request<string>("eth_blockNumber"));
    const framesCompared = new Map<Tracer, number>();
    for (const [tracer, { db }] of databases) {
      const { compared, mismatches } = await chainMismatches(db, client, head);
      expect(mismatches, tracer).toEqual([]);
      framesCompared.set(tracer, compared.frames);
    }
    expect(framesCompared.get("parity")).toBeGreaterThan(0);
    expect(framesCompared.get("callTracer")).toBe(framesCompared.get("parity"));
    expect(framesCompared.get("none")).toBe(0);
  });
});
