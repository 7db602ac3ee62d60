/**
 * `npm run bench:api`: Sextant's API at scale, over real HTTP, on PostgreSQL.
 *
 * 1. Opens (building what is missing) a synthetic chain written by Sextant's own indexer and writer
 *    (bench/dataset), and prints its shape as stored.
 * 2. Serves it with the app's `serve` on a free port and, for every list endpoint and every filter, type
 *    and sort, times the first page and a deep page (page 1,000, reached by a cursor taken from the row
 *    49,950 rows deep, or the deepest page the list has): p50 and p99 of sequential keep-alive requests,
 *    each answer read to its last byte and not decoded, as wrk reads it
 *    (a deep page's in turn with its first page's, whose p50 beside them gives its ratio), beside the
 *    baseline in the same process on the same database: the very SQL statements the page ran
 *    (recorded during a first request), replayed one after another through the `postgres` driver; and
 *    the floor of HTTP itself: the same body answered from memory by a bare `node:http` server in the
 *    same process, read by the same client; and the JSON floor: that server serializing the same answer
 *    anew for each request; and the page floor, timed in turn with the page: its statements in the rounds
 *    the request sent them, then the JSON floor, the least a page built per request does, tail included.
 *    For each page over the p50 target, its JSON floor plus its slowest statement, each of its statements'
 *    time in turn and its path, to replay it; for each page over the p99 target, the page floor's p99.
 * 3. Throughput with autocannon (in a child process) at 32 and 64 connections: the hot address's first
 *    page of endpoint 2, and a mixed workload over many cold addresses and all endpoints.
 * 4. Storage: bytes per transaction, every table and index included, per table.
 * 5. EXPLAIN (ANALYZE, BUFFERS) of the slowest statement of the three slowest pages.
 *
 * Options (environment): BENCH_TRANSACTIONS (default 10,000,000; 200000 for a quick check),
 * DATABASE_URL (the PostgreSQL server, default postgres://postgres@127.0.0.1:5432/postgres),
 * BENCH_BUILD_MINUTES (most time spent building missing blocks before measuring; default no limit, 0:
 * measure what is stored), BENCH_REQUESTS (most samples per page and side, default 200),
 * BENCH_MIN_SAMPLES (default 20), BENCH_CASE_MS (time per page and side after which sampling stops once
 * the minimum is in, default 1,500), BENCH_LOAD_SECONDS (autocannon duration, default 20), BENCH_ONLY (a
 * regular expression: only the pages whose endpoint and variant match).
 */
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { loadavg } from "node:os";
import { serve } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import { addressSuffix, positionPartsSql } from "../src/db/address-transaction-keys.ts";
import type { Database, Queryable, QueryOptions } from "../src/db/client.ts";
import { Direction, receivedOrCreatedBits } from "../src/db/direction.ts";
import { byteaParam } from "../src/db/table-rows.ts";
import { createLogger } from "../src/logger.ts";
import { required } from "../src/required.ts";
import { defaultTransactions, loadDataset } from "./dataset/load-dataset.ts";
import { syntheticChainVersion, transactionsPerBlock } from "./dataset/synthetic-chain.ts";
import { readAnswer } from "./read-answer.ts";

const serverUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const transactions = Number(process.env.BENCH_TRANSACTIONS ?? defaultTransactions);
const maxSamples = Number(process.env.BENCH_REQUESTS ?? 200);
const caseMs = Number(process.env.BENCH_CASE_MS ?? 1_500);
const loadSeconds = Number(process.env.BENCH_LOAD_SECONDS ?? 20);
const minSamples = Number(process.env.BENCH_MIN_SAMPLES ?? 20);
const only = new RegExp(process.env.BENCH_ONLY ?? "");
const pageSize = 50;
const deepPage = 1_000;
const targets = {
  p50: 5,
  p99: 25,
  deepRatio: 1.2,
  hotRps: 3_000,
  mixedRps: 500,
  mixedP99: 100,
  bytesPerTx: 1_500,
};

const load = () =>
  loadavg()
    .map((value) => value.toFixed(1))
    .join(" ");
const mark = (ok: boolean) => (ok ? "✓" : "✗");
const ms = (value: number) => (value >= 100 ? value.toFixed(0) : value.toFixed(value >= 10 ? 1 : 2));

const started = performance.now();
const { db, chain, reachedBlock, complete } = await loadDataset({
  serverUrl,
  transactions,
  buildMinutes: Number(process.env.BENCH_BUILD_MINUTES ?? Number.POSITIVE_INFINITY),
  onProgress: ({ block, head, transactionsPerSecond }) =>
    process.stderr.write(`  built block ${block}/${head} (${transactionsPerSecond} tx/s)\n`),
});
process.stderr.write(`dataset ready in ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
const { hot, erc20, erc721, erc1155, erc404 } = chain.addresses;

// ---------------------------------------------------------------------------------------------------
// Shape, as stored

/** The one row a query answers, such as an aggregate's. */
const oneRow = async <Row>(sql: string, params: unknown[] = []): Promise<Row> =>
  required((await db.query<Row>(sql, params))[0], `the row of ${sql.slice(0, 60)}`);
const count = async (sql: string, params: unknown[] = []) =>
  Number((await oneRow<{ n: string }>(`SELECT (${sql})::text AS n`, params)).n);
const storedTransactions = reachedBlock * transactionsPerBlock;
const shape: [string, number | string][] = [
  ["blocks", reachedBlock + 1],
  ["transactions", storedTransactions],
  ["built", complete ? "complete" : `partial: ${reachedBlock} of ${chain.head} blocks`],
  ["addresses", await count("SELECT count(*) FROM addresses")],
  [
    "hot address: transactions",
    await count("SELECT count(*) FROM address_transactions WHERE address_suffix = $1", [
      byteaParam(addressSuffix(hot)),
    ]),
  ],
  [
    "hot address: logs emitted",
    await count("SELECT count(*) FROM logs WHERE address = $1", [byteaParam(hot)]),
  ],
  [
    "hot address: token transfers",
    await count("SELECT count(*) FROM address_token_transfers WHERE address = $1", [byteaParam(hot)]),
  ],
  [
    "hot address: internal transactions",
    await count("SELECT count(*) FROM address_internal_transactions WHERE address = $1", [byteaParam(hot)]),
  ],
  [
    "hot address: withdrawals",
    await count("SELECT count(*) FROM withdrawals WHERE address = $1", [byteaParam(hot)]),
  ],
  [
    "hot address: token balances",
    await count("SELECT count(*) FROM token_balances WHERE holder = $1 AND value > 0", [byteaParam(hot)]),
  ],
  [
    "rare topic (Rescue) logs",
    await count("SELECT count(*) FROM logs WHERE address = $1 AND topic0 = $2", [
      byteaParam(hot),
      byteaParam(chain.topics.rescue),
    ]),
  ],
  [
    "ERC-20: holders",
    await count(
      "SELECT count(*) FROM token_balances WHERE token_address = $1 AND token_id = -1 AND value > 0",
      [byteaParam(erc20)],
    ),
  ],
  [
    "ERC-20: transfers",
    await count("SELECT count(*) FROM token_transfers WHERE token_address = $1", [byteaParam(erc20)]),
  ],
  [
    "ERC-721: ids",
    await count("SELECT count(*) FROM token_instances WHERE token_address = $1", [byteaParam(erc721)]),
  ],
  [
    "ERC-721: transfers",
    await count("SELECT count(*) FROM token_transfers WHERE token_address = $1", [byteaParam(erc721)]),
  ],
  [
    "ERC-1155: ids",
    await count("SELECT count(*) FROM token_instances WHERE token_address = $1", [byteaParam(erc1155)]),
  ],
  [
    "ERC-1155: transfers",
    await count("SELECT count(*) FROM token_transfers WHERE token_address = $1", [byteaParam(erc1155)]),
  ],
  [
    "ERC-404: transfers",
    await count("SELECT count(*) FROM token_transfers WHERE token_address = $1", [byteaParam(erc404)]),
  ],
  [
    "ERC-404: last block",
    await count("SELECT coalesce(max(block_number), 0) FROM token_transfers WHERE token_address = $1", [
      byteaParam(erc404),
    ]),
  ],
  ["withdrawals", await count("SELECT count(*) FROM withdrawals")],
  ["internal transactions", await count("SELECT count(*) FROM internal_transactions")],
  ["logs", await count("SELECT count(*) FROM logs")],
  ["token transfers", await count("SELECT count(*) FROM token_transfers")],
];
console.log(
  `\n## Dataset (synthetic chain v${syntheticChainVersion}, ${transactions.toLocaleString("en")} transactions planned)\n`,
);
console.log("| what | count |\n|---|---:|");
for (const [name, value] of shape)
  console.log(`| ${name} | ${typeof value === "number" ? value.toLocaleString("en") : value} |`);

// ---------------------------------------------------------------------------------------------------
// The API over HTTP, with the statements of each page recorded

/**
 * A recorded statement. `after` is how many of the request's statements had answered when it was sent:
 * statements sent between the same answers ran beside each other.
 */
type Statement = { text: string; params: unknown[]; options: QueryOptions; after: number };
let recording: Statement[] | null = null;
let answered = 0;
const record = (target: Queryable): Queryable => ({
  query<Row>(text: string, params: unknown[] = [], options: QueryOptions = {}) {
    const statements = recording;
    if (statements === null) return target.query<Row>(text, params, options);
    statements.push({ text, params, options, after: answered });
    return target.query<Row>(text, params, options).finally(() => {
      if (recording === statements) answered += 1;
    });
  },
  exec: (text) => target.exec(text),
});
const recorded: Database = {
  ...db,
  ...record(db),
  transaction: (work) => db.transaction((tx) => work(record(tx))),
};
const config = { ...loadConfig({ env: {} }), host: "127.0.0.1", port: 0, databaseUrl: serverUrl };
// Pages are timed as computed: the page cache would answer every sample after the first.
const app = await serve({
  config: { ...config, pageCacheMb: 0 },
  db: recorded,
  logger: createLogger("fatal"),
});
const apiOrigin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;

async function get(path: string, from = apiOrigin): Promise<{ status: number; body: string }> {
  const response = await fetch(from + path);
  return { status: response.status, body: await response.text() };
}

// What moving a page's bytes costs, with nothing computed: the least any server could take for that answer
// on this machine with this client. At `/json` the same answer is serialized again for each request, as a
// server that builds its pages must at least do, with no database and no rendering.
let floorBody = Buffer.alloc(0);
let floorObject: unknown = null;
const floorServer = createServer((request, response) => {
  response.setHeader("content-type", "application/json; charset=utf-8");
  response.end(request.url === "/json" ? JSON.stringify(floorObject) : floorBody);
});
await new Promise<void>((resolve) => floorServer.listen(0, "127.0.0.1", resolve));
const floorBase = `http://127.0.0.1:${(floorServer.address() as AddressInfo).port}`;

function percentile(sorted: number[], p: number): number {
  return required(
    sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)],
    `a sample for the ${p}th percentile`,
  );
}

type Sampled = { p50: number; p99: number; n: number };

/**
 * Times each of `runs` in turn, round after round, until the samples or the time are spent: runs compared
 * with each other (a deep page and its first) share whatever the machine does meanwhile.
 */
async function sampleInTurn(runs: (() => Promise<unknown>)[]): Promise<Sampled[]> {
  for (let i = 0; i < 3; i++) for (const run of runs) await run();
  const times = runs.map((): number[] => []);
  const began = performance.now();
  let rounds = 0;
  while (rounds < maxSamples && (rounds < minSamples || performance.now() - began < caseMs * runs.length)) {
    for (const [i, run] of runs.entries()) {
      const t = performance.now();
      await run();
      times[i]?.push(performance.now() - t);
    }
    rounds += 1;
  }
  return times.map((own) => {
    own.sort((a, b) => a - b);
    return { p50: percentile(own, 50), p99: percentile(own, 99), n: own.length };
  });
}

async function sample(run: () => Promise<unknown>): Promise<Sampled> {
  return required((await sampleInTurn([run]))[0], "the samples of one run");
}

type Case = { endpoint: string; variant: string; path: string; deep?: DeepCursor };
/**
 * The row a deep page resumes after: SQL over the endpoint's own rows, in its order, and the cursor it gives.
 * Its ORDER BY names the columns with their table's alias: a bare name would be the output column of the
 * same name, the number cast to text, and sort "1002…" before "170…".
 */
type DeepCursor = {
  sql: string;
  params: unknown[];
  cursor: (row: Record<string, unknown>) => Record<string, unknown>;
};
type Result = {
  endpoint: string;
  variant: string;
  page: string;
  /** The page's path under the API's origin, cursor included. */
  path: string;
  items: number;
  /** Size of the answer's body: a page's content, not its depth, decides most of its rendering. */
  bytes: number;
  statements: number;
  sql: { p50: number; p99: number };
  http: { p50: number; p99: number; n: number };
  /** A deep page's first page, timed in turn with it (the deep page's ratio compares the two). */
  firstInTurn?: Sampled;
  /** The same body answered from memory by a bare HTTP server: the floor under `http`. */
  floor: { p50: number };
  /** The same answer serialized anew for each request by that server: the floor of a page built per request. */
  jsonFloor: { p50: number };
  /**
   * The page's statements, in the rounds the request sent them (each round's beside each other), then its JSON
   * floor: what a page built per request does at least, with its tail, timed in turn with the page.
   */
  pageFloor: Sampled;
  slowest: Statement & { ms: number };
  /** Each statement's mean time when replayed in turn, in the order the request made them. */
  statementsMs: number[];
  first?: Result;
  error?: string;
};

const hex = (column: string) => `'0x' || encode(${column}, 'hex')`;
const h = byteaParam(hot);

/** The offset of the row a page at `deepPage` resumes after, or the deepest page's when the list is shorter. */
async function deepRow(deep: DeepCursor): Promise<{ row: Record<string, unknown>; page: number } | null> {
  const offset = (deepPage - 1) * pageSize - 1;
  const [row] = await db.query<Record<string, unknown>>(`${deep.sql} OFFSET ${offset} LIMIT 1`, deep.params);
  if (row) return { row, page: deepPage };
  const total = await count(`SELECT count(*) FROM (${deep.sql}) q`, deep.params);
  const pages = Math.floor((total - 1) / pageSize);
  if (pages < 1) return null;
  const last = await oneRow<Record<string, unknown>>(
    `${deep.sql} OFFSET ${pages * pageSize - 1} LIMIT 1`,
    deep.params,
  );
  return { row: last, page: pages + 1 };
}

function withQuery(path: string, query: Record<string, unknown>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) search.set(key, value === null ? "null" : String(value));
  return `${path}${path.includes("?") ? "&" : "?"}${search}`;
}

async function measure(
  endpoint: string,
  variant: string,
  path: string,
  page: string,
  firstPath?: string,
): Promise<Result> {
  recording = [];
  answered = 0;
  const first = await get(path);
  const statements = recording;
  recording = null;
  const items = (JSON.parse(first.body) as { items?: unknown[] } | null)?.items?.length ?? 1;
  const slowest: Statement & { ms: number } = { text: "", params: [], options: {}, after: 0, ms: -1 };
  const statementsMs: number[] = [];
  const base = {
    endpoint,
    variant,
    page,
    path,
    items,
    bytes: Buffer.byteLength(first.body),
    statements: statements.length,
    slowest,
    statementsMs,
  };
  if (first.status !== 200) {
    return {
      ...base,
      sql: { p50: 0, p99: 0 },
      http: { p50: 0, p99: 0, n: 0 },
      floor: { p50: 0 },
      jsonFloor: { p50: 0 },
      pageFloor: { p50: 0, p99: 0, n: 0 },
      error: `HTTP ${first.status}: ${first.body.slice(0, 120)}`,
    };
  }
  const timed = statements.map((statement) => ({ statement, ms: 0 }));
  const sql = await sample(async () => {
    for (const entry of timed) {
      const t = performance.now();
      await db.query(entry.statement.text, entry.statement.params, entry.statement.options);
      entry.ms += performance.now() - t;
    }
  });
  // Each run of the statements, the three untimed ones included, added to their times.
  statementsMs.push(...timed.map((entry) => entry.ms / (sql.n + 3)));
  // The first of the slowest, as statements come.
  const worst = statementsMs.indexOf(Math.max(...statementsMs));
  if (worst >= 0) Object.assign(slowest, statements[worst], { ms: statementsMs[worst] });
  floorBody = Buffer.from(first.body);
  floorObject = JSON.parse(first.body);
  // The statements in the rounds the request sent them, each round's beside each other.
  const rounds: Statement[][] = [];
  for (const statement of statements) {
    const round = rounds.at(-1);
    if (round?.[0]?.after === statement.after) round.push(statement);
    else rounds.push([statement]);
  }
  const pageFloor = async () => {
    for (const round of rounds)
      await Promise.all(round.map(({ text, params, options }) => db.query(text, params, options)));
    await readAnswer(`${floorBase}/json`);
  };
  // A deep page is timed in turn with its first page: a ratio of two pages timed a minute apart would
  // carry whatever the machine did in between. The page floor is timed in turn with them: its tail and the
  // page's come from the same minutes.
  const [http, floorInTurn, firstInTurn] = await sampleInTurn([
    () => readAnswer(apiOrigin + path),
    pageFloor,
    ...(firstPath === undefined ? [] : [() => readAnswer(apiOrigin + firstPath)]),
  ]);
  const floor = await sample(() => readAnswer(`${floorBase}/`));
  const jsonFloor = await sample(() => readAnswer(`${floorBase}/json`));
  return {
    ...base,
    sql,
    http: required(http, "the page's own samples"),
    floor,
    jsonFloor,
    pageFloor: required(floorInTurn, "the page floor's samples"),
    firstInTurn,
  };
}

const topics = chain.topics;
const padded = (address: string) => `0x${address.slice(2).padStart(64, "0")}`;
const [instance] = await db.query<{ token_id: string }>(
  `SELECT token_id::text FROM token_balances WHERE token_address = $1 AND token_id >= 0 AND value > 0
   GROUP BY token_id ORDER BY count(*) DESC LIMIT 1`,
  [byteaParam(erc1155)],
);
const summaryOf = await oneRow<{ deposit: string; transfer: string }>(
  `SELECT (SELECT ${hex("t.hash")} FROM logs l JOIN transactions t ON t.block_number = l.block_number AND t.index = l.transaction_index
           WHERE l.address = $1 AND l.topic0 = $2 ORDER BY l.block_number DESC LIMIT 1) AS deposit,
          (SELECT ${hex("t.hash")} FROM token_transfers x JOIN transactions t ON t.block_number = x.block_number AND t.index = x.transaction_index
           WHERE x.token_address = $3 ORDER BY x.block_number DESC LIMIT 1) AS transfer`,
  [h, byteaParam(topics.deposit), byteaParam(erc20)],
);
const typeNames = ["ERC-20", "ERC-721", "ERC-1155", "ERC-404"];

const cases: Case[] = [];
// 1: the hot address's tokens, by type.
for (const type of [undefined, ...typeNames]) {
  cases.push({
    endpoint: "1 address tokens",
    variant: type ? `type=${type}` : "all types",
    path: withQuery(`/api/v2/addresses/${hot}/tokens`, type ? { type } : {}),
    deep: {
      sql: `SELECT ${hex("token_address")} AS token_address, token_id::text AS token_id, value::text AS value FROM (
              SELECT b.token_address, CASE WHEN t.type = 'ERC-721' THEN -1 ELSE b.token_id END AS token_id, sum(b.value) AS value
              FROM token_balances b JOIN tokens t ON t.address = b.token_address
              WHERE b.holder = $1 AND b.value > 0 ${type ? "AND t.type = $2" : ""} GROUP BY 1, 2) h
            ORDER BY h.value DESC, h.token_address DESC, h.token_id DESC`,
      params: type ? [h, type] : [h],
      cursor: (row) => ({
        value: row.value,
        id: `${row.token_address}:${row.token_id}`,
        items_count: pageSize,
      }),
    },
  });
}
// 2: the hot address's transactions, every filter × sort × order.
for (const filter of [undefined, "to", "from"] as const) {
  for (const sort of ["block_number", "value", "fee"]) {
    for (const order of ["desc", "asc"]) {
      const query: Record<string, string> = { ...(filter ? { filter } : {}) };
      if (sort !== "block_number" || order !== "desc") Object.assign(query, { sort, order });
      // Ties of a sort by value or fee come newest first, in either order (as Blockscout breaks them).
      const keys = sort === "block_number" ? [`position ${order}`] : [`${sort} ${order}`, "position desc"];
      const position = positionPartsSql("position");
      cases.push({
        endpoint: "2 address transactions",
        variant: `${filter ? `filter=${filter} ` : ""}${sort} ${order}`,
        path: withQuery(`/api/v2/addresses/${hot}/transactions`, query),
        deep: {
          sql: `SELECT ${position.blockNumber} AS block_number, ${position.index} AS transaction_index,
                  value::text AS value, fee::text AS fee
                FROM address_transactions a
                WHERE address_suffix = $1 ${filter ? `AND direction & ${receivedOrCreatedBits(filter)} <> 0` : ""}
                ORDER BY ${keys.map((key) => `a.${key}`).join(", ")}`,
          params: [byteaParam(addressSuffix(hot))],
          cursor: (row) => ({
            block_number: row.block_number,
            index: row.transaction_index,
            value: row.value,
            fee: row.fee,
            items_count: pageSize,
          }),
        },
      });
    }
  }
}
// 3: the hot address's logs, without a topic, with its common one and with the rare one.
for (const [variant, topic] of [
  ["no topic", undefined],
  ["topic=Deposit (common)", topics.deposit],
  ["topic=Rescue (rare)", topics.rescue],
  ["topic=caller in topic1 (one address)", undefined],
] as const) {
  let chosen: string | undefined = topic;
  if (variant.startsWith("topic=caller")) {
    const [row] = await db.query<{ topic: string }>(
      `SELECT ${hex("topic1")} AS topic FROM logs WHERE address = $1 AND topic1 IS NOT NULL ORDER BY block_number DESC LIMIT 1`,
      [h],
    );
    chosen = row?.topic ?? padded(hot);
  }
  cases.push({
    endpoint: "3 address logs",
    variant,
    path: withQuery(`/api/v2/addresses/${hot}/logs`, chosen ? { topic: chosen } : {}),
    deep: {
      sql: `SELECT block_number, log_index FROM logs WHERE address = $1
            ${chosen ? "AND $2 IN (topic0, topic1, topic2, topic3)" : ""} ORDER BY block_number DESC, log_index DESC`,
      params: chosen ? [h, byteaParam(chosen)] : [h],
      cursor: (row) => ({ block_number: row.block_number, index: row.log_index, items_count: pageSize }),
    },
  });
}
// 4: a block's withdrawals (16 per block: one page), of the newest block and of the oldest with any: a plan that
// walked the blocks from the newest to the one asked would cost the second what the chain's length does.
const oldestWithdrawalBlock = (
  await oneRow<{ block: number }>("SELECT min(block_number)::int AS block FROM withdrawals")
).block;
cases.push(
  {
    endpoint: "4 block withdrawals",
    variant: "latest block",
    path: `/api/v2/blocks/${reachedBlock}/withdrawals`,
  },
  {
    endpoint: "4 block withdrawals",
    variant: "oldest block",
    path: `/api/v2/blocks/${oldestWithdrawalBlock}/withdrawals`,
  },
);
// 5: the hot address's withdrawals (one per block).
cases.push({
  endpoint: "5 address withdrawals",
  variant: "hot receiver",
  path: `/api/v2/addresses/${hot}/withdrawals`,
  deep: {
    sql: "SELECT index FROM withdrawals WHERE address = $1 ORDER BY index DESC",
    params: [h],
    cursor: (row) => ({ index: row.index, items_count: pageSize }),
  },
});
// 6: holders of each token type.
for (const [variant, token, rows] of [
  [
    "ERC-20 (1 M holders at 10 M)",
    erc20,
    "SELECT holder, value FROM token_balances WHERE token_address = $1 AND token_id = -1 AND value > 0",
  ],
  [
    "ERC-721",
    erc721,
    "SELECT holder, sum(value) AS value FROM token_balances WHERE token_address = $1 AND token_id >= 0 AND value > 0 GROUP BY holder",
  ],
  [
    "ERC-1155",
    erc1155,
    "SELECT holder, value, token_id FROM token_balances WHERE token_address = $1 AND token_id >= 0 AND value > 0",
  ],
] as const) {
  const byId = variant === "ERC-1155";
  cases.push({
    endpoint: "6 token holders",
    variant,
    path: `/api/v2/tokens/${token}/holders`,
    deep: {
      sql: `SELECT ${hex("holder")} AS holder, value::text AS value${byId ? ", token_id::text AS token_id" : ""} FROM (${rows}) h
            ORDER BY h.value DESC, h.holder DESC${byId ? ", h.token_id DESC" : ""}`,
      params: [byteaParam(token)],
      cursor: (row) => ({
        value: row.value,
        address_hash: row.holder,
        ...(byId ? { token_id: row.token_id } : {}),
        items_count: pageSize,
      }),
    },
  });
}
// 7: summaries.
cases.push({
  endpoint: "7 transaction summary",
  variant: "deposit (ERC-20 payout, inner call)",
  path: `/api/v2/transactions/${summaryOf.deposit}/summary`,
});
cases.push({
  endpoint: "7 transaction summary",
  variant: "ERC-20 transfer",
  path: `/api/v2/transactions/${summaryOf.transfer}/summary`,
});
// 8: all token transfers, by type.
for (const type of [undefined, ...typeNames]) {
  cases.push({
    endpoint: "8 token transfers",
    variant: type ? `type=${type}` : "all types",
    path: withQuery("/api/v2/token-transfers", type ? { type } : {}),
    deep: {
      sql: `SELECT t.block_number, t.log_index FROM token_transfers t ${type ? "JOIN tokens k ON k.address = t.token_address AND k.type = $1" : ""}
            ORDER BY t.block_number DESC, t.log_index DESC`,
      params: type ? [type] : [],
      cursor: (row) => ({ block_number: row.block_number, index: row.log_index }),
    },
  });
}
// 9: holders of the ERC-1155 id with the most holders.
cases.push({
  endpoint: "9 instance holders",
  variant: `ERC-1155 id ${instance?.token_id}`,
  path: `/api/v2/tokens/${erc1155}/instances/${instance?.token_id ?? 0}/holders`,
  deep: {
    sql: `SELECT ${hex("b.holder")} AS holder, b.value::text AS value FROM token_balances b
          WHERE b.token_address = $1 AND b.token_id = $2 AND b.value > 0 ORDER BY b.value DESC, b.holder DESC`,
    params: [byteaParam(erc1155), instance?.token_id ?? "0"],
    cursor: (row) => ({
      value: row.value,
      address_hash: row.holder,
      token_id: instance?.token_id,
      items_count: pageSize,
    }),
  },
});
cases.push({
  endpoint: "10 account abstraction status",
  variant: "",
  path: "/api/v2/proxy/account-abstraction/status",
});
// 11: the hot address's NFT collections.
for (const type of [undefined, "ERC-721", "ERC-1155", "ERC-404"]) {
  cases.push({
    endpoint: "11 address NFT collections",
    variant: type ? `type=${type}` : "all types",
    path: withQuery(`/api/v2/addresses/${hot}/nft/collections`, type ? { type } : {}),
  });
}
// 12: the hot address's internal transactions.
for (const filter of [undefined, "to", "from"] as const) {
  cases.push({
    endpoint: "12 address internal transactions",
    variant: filter ? `filter=${filter}` : "no filter",
    path: withQuery(`/api/v2/addresses/${hot}/internal-transactions`, filter ? { filter } : {}),
    deep: {
      sql: `SELECT block_number, transaction_index, index FROM address_internal_transactions
            WHERE address = $1 ${filter ? `AND direction & ${receivedOrCreatedBits(filter)} <> 0` : ""}
            ORDER BY block_number DESC, transaction_index DESC, index DESC`,
      params: [h],
      cursor: (row) => ({
        block_number: row.block_number,
        transaction_index: row.transaction_index,
        index: row.index,
        items_count: pageSize,
      }),
    },
  });
}
// 13: the hot address's token transfers: each filter, each type, one token.
const transferVariants: Record<string, string>[] = [
  {},
  { filter: "to" },
  { filter: "from" },
  ...typeNames.map((type) => ({ type })),
  { token: erc20 },
];
for (const query of transferVariants) {
  const conditions: string[] = ["a.address = $1"];
  const params: unknown[] = [h];
  if (query.filter) conditions.push(`a.direction & ${Direction[query.filter as "to" | "from"]} <> 0`);
  if (query.type) conditions.push(`k.type = $${params.push(query.type)}`);
  if (query.token) conditions.push(`t.token_address = $${params.push(byteaParam(query.token))}`);
  cases.push({
    endpoint: "13 address token transfers",
    variant:
      Object.entries(query)
        .map(([key, value]) => `${key}=${key === "token" ? "ERC-20" : value}`)
        .join(" ") || "no filter",
    path: withQuery(`/api/v2/addresses/${hot}/token-transfers`, query),
    deep: {
      sql: `SELECT a.block_number, a.log_index FROM address_token_transfers a
            JOIN token_transfers t ON t.block_number = a.block_number AND t.log_index = a.log_index
            JOIN tokens k ON k.address = t.token_address
            WHERE ${conditions.join(" AND ")} ORDER BY a.block_number DESC, a.log_index DESC`,
      params,
      cursor: (row) => ({ block_number: row.block_number, index: row.log_index }),
    },
  });
}

console.log(
  `\n## Pages (PostgreSQL; up to ${maxSamples} sequential keep-alive requests per page, at least ${minSamples}; SQL = the page's recorded statements replayed through the driver)\n`,
);
console.log(`machine load (1/5/15 min) before: ${load()}\n`);
console.log(
  "| endpoint | variant | page | items | KB | stmts | SQL p50 | SQL p99 | slowest stmt | HTTP p50 | HTTP p99 | floor p50 | JSON floor p50 | page floor p50 | page floor p99 | HTTP/SQL | p50 ≤ 5 | p99 ≤ 25 | deep ≤ 1.2× first |",
);
console.log("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|:-:|:-:|:-:|");
const results: Result[] = [];
/** A deep page's p50 over its first page's, both timed in turn. */
const deepToFirst = (r: Result) => (r.firstInTurn ? r.http.p50 / r.firstInTurn.p50 : null);
const print = (r: Result) => {
  if (r.error) {
    console.log(
      `| ${r.endpoint} | ${r.variant} | ${r.page} | | | | | | | | | | | | | | ✗ | ✗ | ${r.error} |`,
    );
    return;
  }
  const deepRatio = deepToFirst(r);
  console.log(
    `| ${r.endpoint} | ${r.variant} | ${r.page} | ${r.items} | ${(r.bytes / 1000).toFixed(1)} | ${r.statements} | ${ms(r.sql.p50)} | ${ms(r.sql.p99)} | ${ms(r.slowest.ms)} | ${ms(r.http.p50)} | ${ms(r.http.p99)} | ${ms(r.floor.p50)} | ${ms(r.jsonFloor.p50)} | ${ms(r.pageFloor.p50)} | ${ms(r.pageFloor.p99)} | ${(r.http.p50 / r.sql.p50).toFixed(2)} | ${mark(r.http.p50 <= targets.p50)} | ${mark(r.http.p99 <= targets.p99)} | ${deepRatio === null ? "" : `${mark(deepRatio <= targets.deepRatio)} ${deepRatio.toFixed(2)}× (first ${ms(r.firstInTurn?.p50 ?? 0)} in turn)`} |`,
  );
};
for (const c of cases.filter((c) => only.test(`${c.endpoint} ${c.variant}`))) {
  const first = await measure(c.endpoint, c.variant, c.path, "1");
  results.push(first);
  print(first);
  if (!c.deep) continue;
  const deep = await deepRow(c.deep);
  if (!deep) continue;
  const result = await measure(
    c.endpoint,
    c.variant,
    withQuery(c.path, c.deep.cursor(deep.row)),
    deep.page.toLocaleString("en"),
    c.path,
  );
  result.first = first;
  results.push(result);
  print(result);
}
const measured = results.filter((r) => !r.error);
const met = (test: (r: Result) => boolean) => `${measured.filter(test).length}/${measured.length}`;
const deeps = measured.filter((r) => r.first && !r.first.error);
const deepsMet = deeps.filter((r) => (deepToFirst(r) ?? Number.POSITIVE_INFINITY) <= targets.deepRatio);
console.log(`\nmachine load after: ${load()}`);
console.log(
  `pages meeting p50 ≤ ${targets.p50} ms: ${met((r) => r.http.p50 <= targets.p50)}; p99 ≤ ${targets.p99} ms: ${met((r) => r.http.p99 <= targets.p99)}; deep pages within ${targets.deepRatio}× their first: ${deepsMet.length}/${deeps.length}; errors: ${results.length - measured.length}`,
);
// A page built per request costs at least its JSON floor plus its slowest statement (the others run beside
// it or before it): where that alone passes the target, no rendering or plumbing could meet it.
for (const r of measured.filter((r) => r.http.p50 > targets.p50)) {
  const bound = r.jsonFloor.p50 + r.slowest.ms;
  console.log(
    `p50 miss: ${r.endpoint}, ${r.variant}, page ${r.page} (${(r.bytes / 1000).toFixed(0)} KB): HTTP ${ms(r.http.p50)} ms; JSON floor ${ms(r.jsonFloor.p50)} + slowest statement ${ms(r.slowest.ms)} = ${ms(bound)} ms, ${bound > targets.p50 ? "above" : "within"} the target; page floor ${ms(r.pageFloor.p50)} ms; statements in turn ${r.statementsMs.map(ms).join(" + ")} ms; ${r.path}`,
  );
}
// Where the page floor's own p99 passes the target, the tail is that of the statements and the JSON alone.
for (const r of measured.filter((r) => r.http.p99 > targets.p99)) {
  console.log(
    `p99 miss: ${r.endpoint}, ${r.variant}, page ${r.page} (${(r.bytes / 1000).toFixed(0)} KB): HTTP p99 ${ms(r.http.p99)} ms (p50 ${ms(r.http.p50)}); page floor p99 ${ms(r.pageFloor.p99)} ms (p50 ${ms(r.pageFloor.p50)}), ${r.pageFloor.p99 > targets.p99 ? "above" : "within"} the target; SQL in turn p99 ${ms(r.sql.p99)} ms`,
  );
}

// ---------------------------------------------------------------------------------------------------
// Throughput

type LoadResult = { rps: number; p50: number; p99: number; errors: number; non2xx: number; total: number };
/** autocannon in a child process (its own CPU time, not the server's event loop), reading paths round-robin. */
function autocannon(target: string, paths: string[], connections: number): Promise<LoadResult> {
  const options = {
    module: createRequire(import.meta.url).resolve("autocannon"),
    base: target,
    connections,
    duration: loadSeconds,
    paths,
  };
  const child = spawn(
    process.execPath,
    [
      "-e",
      `let input = "";
       process.stdin.on("data", (chunk) => { input += chunk; });
       process.stdin.on("end", () => {
       const options = JSON.parse(input);
       const autocannon = require(options.module);
       let next = 0;
       autocannon({
         url: options.base, connections: options.connections, duration: options.duration,
         requests: [{ setupRequest: (request) => ({ ...request, path: options.paths[next++ % options.paths.length] }) }],
       }, (error, result) => process.stdout.write(JSON.stringify(error ? { error: String(error) } : {
         rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99,
         errors: result.errors + result.timeouts, non2xx: result.non2xx, total: result.requests.total,
       })));
       });`,
    ],
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  child.stdin.end(JSON.stringify(options));
  let output = "";
  child.stdout.on("data", (chunk) => {
    output += chunk;
  });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", () => {
      try {
        const answer = JSON.parse(output);
        if (answer.error) reject(new Error(answer.error));
        else resolve(answer as LoadResult);
      } catch (error) {
        reject(error);
      }
    });
  });
}

const coldAddresses = (
  await db.query<{ address: string }>(
    `SELECT ${hex("hash")} AS address FROM addresses TABLESAMPLE BERNOULLI (5) REPEATABLE (7)
     WHERE NOT is_contract AND hash <> $1 LIMIT 2000`,
    [h],
  )
).map((row) => row.address);
const sampleHashes = (
  await db.query<{ hash: string }>(
    `SELECT ${hex("hash")} AS hash FROM transactions TABLESAMPLE SYSTEM (1) REPEATABLE (7) LIMIT 300`,
  )
).map((row) => row.hash);
const mixed: string[] = [];
coldAddresses.forEach((address, i) => {
  const perAddress = [
    "transactions",
    "token-transfers",
    "internal-transactions",
    "tokens",
    "nft/collections",
    "logs",
    "withdrawals",
  ];
  mixed.push(`/api/v2/addresses/${address}/${perAddress[i % perAddress.length]}`);
  if (i % 7 === 0) mixed.push(`/api/v2/transactions/${sampleHashes[i % sampleHashes.length]}/summary`);
  if (i % 11 === 0) mixed.push(`/api/v2/blocks/${1 + ((i * 7919) % reachedBlock)}/withdrawals`);
  if (i % 13 === 0) mixed.push(`/api/v2/tokens/${erc1155}/instances/${(i * 31) % 20_000}/holders`);
  if (i % 29 === 0)
    mixed.push(
      "/api/v2/token-transfers",
      `/api/v2/tokens/${erc20}/holders`,
      "/api/v2/proxy/account-abstraction/status",
    );
});
const hotPath = `/api/v2/addresses/${hot}/transactions`;
console.log(
  `\n## Throughput (autocannon in a child process on the same machine, ${loadSeconds} s per run; mixed: ${mixed.length} paths over ${coldAddresses.length} cold addresses and every endpoint)\n`,
);
console.log("| workload | connections | requests/s | p50 | p99 | errors / non-2xx | target | met |");
console.log("|---|---:|---:|---:|---:|---:|---|:-:|");
// The same server as the pages (no page cache), and one as `sextant serve` starts by default (64 MiB of pages).
const cached = await serve({ config, db, logger: createLogger("fatal") });
const cachedOrigin = `http://127.0.0.1:${(cached.server.address() as AddressInfo).port}`;
const hotTarget = `≥ ${targets.hotRps} req/s`;
const hotMet = (r: LoadResult) => r.rps >= targets.hotRps;
const mixedTarget = `≥ ${targets.mixedRps} req/s, p99 ≤ ${targets.mixedP99} ms`;
const mixedMet = (r: LoadResult) => r.rps >= targets.mixedRps && r.p99 <= targets.mixedP99;
for (const [name, target, paths, goal, ok] of [
  ["hot address, endpoint 2 first page, no page cache", apiOrigin, [hotPath], hotTarget, hotMet],
  ["hot address, endpoint 2 first page, page cache", cachedOrigin, [hotPath], hotTarget, hotMet],
  ["mixed cold, no page cache", apiOrigin, mixed, mixedTarget, mixedMet],
  // Over a run each path comes round several times: the cache answers its repeats.
  ["mixed cold, page cache", cachedOrigin, mixed, mixedTarget, mixedMet],
] as const) {
  for (const connections of [32, 64]) {
    const r = await autocannon(target, [...paths], connections);
    console.log(
      `| ${name} | ${connections} | ${r.rps.toFixed(0)} | ${r.p50} ms | ${r.p99} ms | ${r.errors} / ${r.non2xx} | ${goal} | ${mark(ok(r))} |`,
    );
  }
}
await cached.close();
floorServer.close();
console.log(`\nmachine load after the load runs: ${load()}`);
await app.close();

// ---------------------------------------------------------------------------------------------------
// Storage

const tables = await db.query<{ table: string; rows: string; heap: string; indexes: string; total: string }>(
  `SELECT c.relname AS table, c.reltuples::bigint::text AS rows,
     (pg_total_relation_size(c.oid) - pg_indexes_size(c.oid))::text AS heap,
     pg_indexes_size(c.oid)::text AS indexes, pg_total_relation_size(c.oid)::text AS total
   FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
   WHERE n.nspname = 'public' AND c.relkind = 'r' ORDER BY pg_total_relation_size(c.oid) DESC`,
);
const { size } = await oneRow<{ size: string }>("SELECT pg_database_size(current_database())::text AS size");
const perTx = (bytes: string | number) => (Number(bytes) / storedTransactions).toFixed(0);
const tableTotal = tables.reduce((sum, table) => sum + Number(table.total), 0);
console.log(`\n## Storage (${storedTransactions.toLocaleString("en")} transactions)\n`);
console.log(
  "| table | rows | table + TOAST bytes/tx | index bytes/tx | total bytes/tx |\n|---|---:|---:|---:|---:|",
);
for (const table of tables.filter((table) => Number(table.total) > 100_000)) {
  console.log(
    `| ${table.table} | ${Number(table.rows).toLocaleString("en")} | ${perTx(table.heap)} | ${perTx(table.indexes)} | ${perTx(table.total)} |`,
  );
}
console.log(`| all tables and indexes | | | | ${perTx(tableTotal)} |`);
console.log(
  `\nbytes per transaction: ${perTx(tableTotal)} (tables and indexes), ${perTx(size)} (pg_database_size, ${(Number(size) / 2 ** 30).toFixed(2)} GiB); target ≤ ${targets.bytesPerTx}: ${mark(Number(perTx(tableTotal)) <= targets.bytesPerTx)}`,
);

// ---------------------------------------------------------------------------------------------------
// Why the slowest pages are slow

const worst = [...measured].sort((a, b) => b.http.p50 - a.http.p50).slice(0, 3);
console.log("\n## EXPLAIN (ANALYZE, BUFFERS) of the slowest statement of the 3 slowest pages\n");
for (const r of worst) {
  console.log(
    `### ${r.endpoint}, ${r.variant}, page ${r.page}: HTTP p50 ${ms(r.http.p50)} ms; slowest statement ${ms(r.slowest.ms)} ms\n`,
  );
  const plan = await db.query<{ "QUERY PLAN": string }>(
    `EXPLAIN (ANALYZE, BUFFERS) ${r.slowest.text}`,
    r.slowest.params,
  );
  console.log("```");
  console.log(r.slowest.text.replace(/\s+/g, " ").slice(0, 600));
  for (const line of plan) console.log(line["QUERY PLAN"]);
  console.log("```\n");
}
await db.close();
