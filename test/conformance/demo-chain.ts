import type { FastifyInstance } from "fastify";
import { inject } from "vitest";
import { actionProtocols } from "../../src/api/transaction-actions.ts";
import type { Database } from "../../src/db/client.ts";
import { createRpcClient } from "../../src/rpc/client.ts";
import type { DatabaseKind } from "../support/databases.ts";
import { type IndexedChain, indexIntoNewDatabase } from "../support/indexed-chain.ts";

/** Withdrawals added to the indexed demo chain (anvil makes none): enough for several pages of each list. */
export const addedWithdrawals = 130;

/** A response as the suite sees it: status, headers, the raw text and the parsed body. */
export type Fetched = {
  url: string;
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  text: string;
  body: unknown;
};

/**
 * The demo chain indexed into a new database of `kind`, served by a fresh app, with `addedWithdrawals`
 * withdrawals written into its head block so that endpoints 4 and 5 have rows to show.
 */
export async function indexDemoChain(kind: DatabaseKind): Promise<IndexedChain> {
  const client = createRpcClient({ url: inject("demoRpcUrl") });
  const { contracts } = JSON.parse(inject("demoScenario"));
  // The demo's protocol contracts, so that actions and their summaries are part of what is checked.
  const chain = await indexIntoNewDatabase(kind, client, {
    api: {
      protocols: actionProtocols({
        uniswapV3Factory: contracts.uniswapV3Factory,
        uniswapV3PositionManager: contracts.uniswapV3PositionManager,
        aaveV3Pool: contracts.aavePool,
      }),
    },
  });
  // anvil produces no withdrawals; the rows go to the head block and alternate between two real
  // accounts, so each address list spans pages while the block list spans more.
  await chain.test.db.query(
    `INSERT INTO withdrawals (index, block_number, validator_index, address, amount)
     SELECT i, (SELECT max(number) FROM blocks), 5000 + i,
       (SELECT a.from_address FROM transactions a GROUP BY a.from_address ORDER BY count(*) DESC, a.from_address
        OFFSET (i % 2) LIMIT 1),
       (i + 1)::numeric * 1000000000
     FROM generate_series(0, $1::int - 1) AS i`,
    [addedWithdrawals],
  );
  return chain;
}

/** GETs `url` from `app`, keeping the raw text so that exact cursor numbers can be read from it. */
export async function fetchJson(app: FastifyInstance, url: string, method: "GET" | "OPTIONS" = "GET") {
  const response = await app.inject({ method, url, headers: { origin: "https://example.org" } });
  let body: unknown = null;
  try {
    body = response.body === "" ? null : JSON.parse(response.body);
  } catch {
    body = undefined;
  }
  return {
    url,
    status: response.statusCode,
    headers: response.headers,
    text: response.body,
    body,
  } satisfies Fetched;
}

/**
 * `next_page_params` of a list response with every number as its exact digits: the holders cursors carry
 * a `value` that may exceed 2^53, which `JSON.parse` would round.
 */
export function exactCursor(text: string): Record<string, unknown> | null {
  const at = text.lastIndexOf('"next_page_params":');
  if (at < 0) throw new Error("no next_page_params in the response");
  const tail = text.slice(at + '"next_page_params":'.length, text.length - 1);
  return JSON.parse(tail.replace(/([:,[]\s*)(-?[0-9]+)(?=\s*[,}\]])/g, '$1"$2"'));
}

/** Lowercase 0x hex of a bytea column, for the suite's own SQL. */
export const hex = (column: string) => `'0x' || encode(${column}, 'hex')`;

/** The text parameter `$n` (0x hex) as bytea, for the suite's own SQL. */
export const bytea = (placeholder: string) => `decode(substr(${placeholder}, 3), 'hex')`;

/** Runs one of the suite's SQL listings. */
export function sql<Row>(db: Database, text: string, params: unknown[] = []): Promise<Row[]> {
  return db.query<Row>(text, params);
}

/** The hashes of the indexed chain's successful transactions, in chain order. */
export async function successfulTransactions(db: Database): Promise<string[]> {
  const rows = await sql<{ hash: string }>(
    db,
    `SELECT ${hex("hash")} AS hash FROM transactions WHERE status = 1 ORDER BY block_number, index`,
  );
  return rows.map((row) => row.hash);
}
