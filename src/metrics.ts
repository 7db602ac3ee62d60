import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import type { Database } from "./db/client.ts";

/** What the indexer reports for the metrics, read at scrape time. */
export type IndexerProgress = {
  /** Last block stored, null before the first. */
  indexedBlock: bigint | null;
  /** Latest head the node reported, null before the first answer. */
  headBlock: bigint | null;
  /** Blocks and transactions written since the process started. */
  blocksWritten: number;
  transactionsWritten: number;
};

/** The process's Prometheus metrics: one registry, shared by the RPC client, the indexer and the API. */
export type Metrics = {
  registry: Registry;
  /** JSON-RPC calls sent, by method (a batch counts each of its calls). */
  rpcCalls: Counter<"method">;
  /** JSON-RPC requests that failed, by method of their first call and error name. */
  rpcErrors: Counter<"method" | "error">;
  /** Seconds per JSON-RPC HTTP request, by method of its first call. */
  rpcDuration: Histogram<"method">;
  /** Seconds per API request, by route pattern, HTTP method and status code. */
  httpDuration: Histogram<"route" | "method" | "status">;
  /** API database queries running or waiting for a connection (PostgreSQL's pool of 10, or PGlite's one). */
  databaseQueriesInFlight: Gauge;
  /** API requests waiting for one of the places `SEXTANT_API_CONCURRENCY` sets. */
  apiRequestsWaiting: Gauge;
  /** API pages by `result` of the page cache: `hit`, `miss`, `not_modified`. */
  pageCacheLookups: Counter<"result">;
  /** Reports the indexer's progress at each scrape; call once the indexer exists. */
  watchIndexer(progress: () => IndexerProgress): void;
};

/**
 * Creates the metrics of one Sextant process in a registry of its own (so that tests and several
 * servers in one process never share counters), with Node's default process metrics.
 */
export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "sextant_" });
  let progress: (() => IndexerProgress) | null = null;
  const asNumber = (block: bigint | null | undefined) => (block == null ? Number.NaN : Number(block));

  new Gauge({
    name: "sextant_indexed_block",
    help: "Last block written to the database",
    registers: [registry],
    collect() {
      if (progress) this.set(asNumber(progress().indexedBlock));
    },
  });
  new Gauge({
    name: "sextant_node_block",
    help: "Latest block the node reported",
    registers: [registry],
    collect() {
      if (progress) this.set(asNumber(progress().headBlock));
    },
  });
  new Gauge({
    name: "sextant_lag_blocks",
    help: "Blocks between the node's head and the last block written",
    registers: [registry],
    collect() {
      const { indexedBlock, headBlock } = progress?.() ?? {};
      if (headBlock != null) this.set(Number(headBlock - (indexedBlock ?? -1n)));
    },
  });
  // Counters of work done: rate() over them gives blocks and transactions per second.
  new Counter({
    name: "sextant_indexed_blocks_total",
    help: "Blocks written since the process started",
    registers: [registry],
    collect() {
      if (!progress) return;
      this.reset();
      this.inc(progress().blocksWritten);
    },
  });
  new Counter({
    name: "sextant_indexed_transactions_total",
    help: "Transactions written since the process started",
    registers: [registry],
    collect() {
      if (!progress) return;
      this.reset();
      this.inc(progress().transactionsWritten);
    },
  });

  return {
    registry,
    rpcCalls: new Counter({
      name: "sextant_rpc_calls_total",
      help: "JSON-RPC calls sent to the node",
      labelNames: ["method"],
      registers: [registry],
    }),
    rpcErrors: new Counter({
      name: "sextant_rpc_errors_total",
      help: "JSON-RPC requests that failed",
      labelNames: ["method", "error"],
      registers: [registry],
    }),
    rpcDuration: new Histogram({
      name: "sextant_rpc_request_duration_seconds",
      help: "Duration of JSON-RPC HTTP requests",
      labelNames: ["method"],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: "sextant_http_request_duration_seconds",
      help: "Duration of API requests",
      labelNames: ["route", "method", "status"],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
    databaseQueriesInFlight: new Gauge({
      name: "sextant_database_queries_in_flight",
      help: "Database queries running or waiting for a connection",
      registers: [registry],
    }),
    apiRequestsWaiting: new Gauge({
      name: "sextant_api_requests_waiting",
      help: "API requests waiting for a place to be computed (SEXTANT_API_CONCURRENCY)",
      registers: [registry],
    }),
    pageCacheLookups: new Counter({
      name: "sextant_api_page_cache_lookups_total",
      help: "API pages answered from the page cache (hit, not_modified) or computed (miss)",
      labelNames: ["result"],
      registers: [registry],
    }),
    watchIndexer(source) {
      progress = source;
    },
  };
}

/** `db` with each query counted in `inFlight` while it runs or waits for a connection. */
export function observeQueries(db: Database, inFlight: Gauge): Database {
  return {
    ...db,
    async query(text, params, options) {
      inFlight.inc();
      try {
        return await db.query(text, params, options);
      } finally {
        inFlight.dec();
      }
    },
  };
}
