import { toEventSelector } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { actionEvents } from "../src/api/transaction-actions.ts";
import { addressSuffix } from "../src/db/address-transaction-keys.ts";
import {
  type Database,
  genericPlanSettings,
  orderedScanSettings,
  type Queryable,
  type QueryOptions,
} from "../src/db/client.ts";
import { listAddressLogs } from "../src/db/queries/address-logs.ts";
import { listAddressTransactions } from "../src/db/queries/address-transactions.ts";
import { findAddresses } from "../src/db/queries/addresses.ts";
import { listAddressTokens, listNftCollections } from "../src/db/queries/token-balances.ts";
import { listTokenTransfers } from "../src/db/queries/token-transfers.ts";
import { listInnerEffects } from "../src/db/queries/transaction.ts";
import { listTransactionLogs, matchesEvents } from "../src/db/queries/transaction-logs.ts";
import { findUniswapV3Pools } from "../src/db/queries/uniswap-v3-pools.ts";
import { listWithdrawals } from "../src/db/queries/withdrawals.ts";
import { deleteAbove } from "../src/db/tables.ts";
import { readUnfetchedInstances } from "../src/db/token-instances.ts";
import { uniswapV3PoolTopics } from "../src/decode/actions/uniswap-v3.ts";
import { summarizedInnerEffects, wrapTopics } from "../src/decode/summarize-transaction.ts";
import { transferTopic } from "../src/decode/token-transfer.ts";
import { required } from "../src/required.ts";
import { writeBatchHeads } from "./support/batch-heads.ts";
import { createTestDatabase, databaseKinds, type TestDatabase } from "./support/databases.ts";
import { seedBlocks } from "./support/seed-blocks.ts";

// A statement that asks for a generic plan keeps one plan for any values; any other is planned with its
// values. Either way the plan must read a page's rows from index ranges that hold nothing else, however few
// and old the matches are. Here the rare address has one log, in the oldest block, under 100,000 newer logs
// of a busy address; a plan that walks the logs from the newest and filters them by address reads all of
// them (0.8 s for the 10 M dataset's logs): the plan a page without a topic keeps for any address does.
const busy = "0x00000000000000000000000000000000000000b0";
const rare = "0x00000000000000000000000000000000000000a1";
const topic = `0x${"ab".repeat(32)}`;
const poolCreatedTopic = toEventSelector("PoolCreated(address,address,uint24,int24,address)");
const blocks = 100_000;
const withdrawalsPerBlock = 4;
const tokens = 100_000;
// The busy address's transfers of one ERC-20, in old blocks, beside as many of an ERC-721 between others.
const tradedTransfers = 20_000;
const traded = `0x${(tokens + 1).toString(16).padStart(8, "0")}`;

type Statement = { text: string; params: unknown[]; options?: QueryOptions };
type PlanNode = {
  "Relation Name"?: string;
  "Index Name"?: string;
  "Actual Rows"?: number;
  "Actual Loops"?: number;
  "Rows Removed by Filter"?: number;
  "Rows Removed by Index Recheck"?: number;
  "Node Type"?: string;
  Alias?: string;
  "Shared Hit Blocks"?: number;
  "Shared Read Blocks"?: number;
  Plans?: PlanNode[];
};

/** `db` with the statements it runs kept in `into`. */
function recording(db: Queryable, into: Statement[]): Queryable {
  return {
    query(text, params = [], options) {
      into.push({ text, params, options });
      return db.query(text, params, options);
    },
    exec: (text) => db.exec(text),
  };
}

/** A parameter as an SQL literal, for EXECUTE. */
function literal(value: unknown): string {
  if (Buffer.isBuffer(value)) return `'\\x${value.toString("hex")}'::bytea`;
  if (typeof value === "number") return String(value);
  // Each element quoted, its backslashes escaped: a bytea's `\x…` text is read as written.
  if (Array.isArray(value))
    return `'{${value.map((element) => `"${String(element).replaceAll("\\", "\\\\")}"`).join(",")}}'`;
  return `'${String(value).replaceAll("'", "''")}'`;
}

/**
 * The rows each scan read (kept and filtered out, over all its loops), by table, in the plan the statement
 * gets on its first execution, under the settings of the connections it runs on: on PostgreSQL the one kept
 * for any values if it asks for that, else its own; on PGlite, which plans every statement with its values,
 * its own.
 */
async function rowsReadByPlan(test: TestDatabase, statement: Statement) {
  return rowsReadIn(await planOf(test, statement));
}

/** The rows each scan of a plan read (kept and filtered out, over all its loops), by table. */
function rowsReadIn(plan: PlanNode) {
  const read: [relation: string, rows: number, index: string | undefined][] = [];
  const walk = (node: PlanNode) => {
    const relation = node["Relation Name"];
    if (relation !== undefined)
      read.push([
        relation,
        ((node["Actual Rows"] ?? 0) +
          (node["Rows Removed by Filter"] ?? 0) +
          (node["Rows Removed by Index Recheck"] ?? 0)) *
          (node["Actual Loops"] ?? 1),
        node["Index Name"],
      ]);
    for (const child of node.Plans ?? []) walk(child);
  };
  walk(plan);
  return read;
}

/** The plan the statement gets on its first execution (see `rowsReadByPlan`), run, with its buffers. */
async function planOf(test: TestDatabase, { text, params, options }: Statement): Promise<PlanNode> {
  // PGlite keeps no plans: it plans such a statement with its values, in index order.
  const settings =
    options?.genericPlan && test.kind === "postgres"
      ? genericPlanSettings
      : options?.genericPlan || options?.orderedScans
        ? orderedScanSettings
        : {};
  const set = Object.entries(settings).map(([name, value]) => `SET LOCAL ${name} = ${value}; `);
  // One connection for the prepared statement and its EXPLAIN: a transaction's.
  const plan = await test.db.transaction(async (tx) => {
    await tx.exec(`${set.join("")}PREPARE page AS ${text}`);
    const [row] = await tx.query(
      `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE page(${params.map(literal).join(", ")})`,
    );
    await tx.exec("DEALLOCATE page");
    return Object.values(required(row, "EXPLAIN's row"))[0];
  });
  const [explained] = (typeof plan === "string" ? JSON.parse(plan) : plan) as { Plan: PlanNode }[];
  return required(explained, "the plan").Plan;
}

describe.each(databaseKinds)("plans of pages on %s", (kind) => {
  let test: TestDatabase;
  let db: Database;
  beforeAll(async () => {
    test = await createTestDatabase(kind);
    db = test.db;
    const hash = (salt: string) => `sha256(convert_to(g::text || '${salt}', 'UTF8'))`;
    await seedBlocks(db, 1, blocks, 1);
    await db.exec(`
      INSERT INTO transactions (hash, block_number, index, from_address, value, nonce, type, gas_limit, input,
        gas_used, log_count)
      SELECT ${hash("t")}, g, 0, '\\x01', 0, g, 2, 21000, '\\x', 21000, 1 FROM generate_series(1, ${blocks}) g;
      INSERT INTO logs (block_number, log_index, transaction_index, address, topic0, topic1, data)
      SELECT g, 0, 0, CASE WHEN g = 1 THEN '\\x${rare.slice(2)}'::bytea ELSE '\\x${busy.slice(2)}'::bytea END,
        '\\x${topic.slice(2)}', '\\x${topic.slice(2)}', '\\x'
      FROM generate_series(1, ${blocks}) g;
      INSERT INTO tokens (address, type, first_seen_block, read_at_block, holders_count)
      SELECT int4send(g), 'ERC-20', 1, 1, 0 FROM generate_series(1, ${tokens}) g;
      INSERT INTO token_transfers (block_number, log_index, transaction_index, token_address,
        from_address, to_address, token_type, token_ids, amounts, token_contract_type, item_count)
      SELECT g, 1, 0, int4send(g % ${tokens} + 1), '\\x01', '\\x02', 'ERC-20', '{}', '{1}', 'ERC-20', 1
      FROM generate_series(1, ${blocks}) g;
      INSERT INTO tokens (address, type, first_seen_block, read_at_block, holders_count)
      VALUES (int4send(${tokens + 1}), 'ERC-20', 1, 1, 0), (int4send(${tokens + 2}), 'ERC-721', 1, 1, 0);
      INSERT INTO token_transfers (block_number, log_index, transaction_index, token_address,
        from_address, to_address, token_type, token_ids, amounts, token_contract_type, item_count)
      SELECT g, 2, 0, int4send(${tokens + 1}), '\\x${busy.slice(2)}', '\\x02', 'ERC-20', '{}', '{1}', 'ERC-20', 1
      FROM generate_series(1, ${tradedTransfers}) g;
      INSERT INTO token_transfers (block_number, log_index, transaction_index, token_address,
        from_address, to_address, token_type, token_ids, amounts, token_contract_type, item_count)
      SELECT g, 3, 0, int4send(${tokens + 2}), '\\x01', '\\x02', 'ERC-721', '{1}', '{1}', 'ERC-721', 1
      FROM generate_series(1, ${tradedTransfers}) g;
      -- The busy address's transfers of another ERC-20 to itself, after one it received from another.
      INSERT INTO tokens (address, type, first_seen_block, read_at_block, holders_count)
      VALUES (int4send(${tokens + 3}), 'ERC-20', 1, 1, 0);
      INSERT INTO token_transfers (block_number, log_index, transaction_index, token_address,
        from_address, to_address, token_type, token_ids, amounts, token_contract_type, item_count)
      SELECT g, 4, 0, int4send(${tokens + 3}), CASE WHEN g = 1 THEN '\\x03'::bytea ELSE '\\x${busy.slice(2)}'::bytea END,
        '\\x${busy.slice(2)}', 'ERC-20', '{}', '{1}', 'ERC-20', 1
      FROM generate_series(1, ${tradedTransfers}) g;
      INSERT INTO withdrawals (index, block_number, validator_index, address, amount)
      SELECT g, (g + ${withdrawalsPerBlock - 1}) / ${withdrawalsPerBlock}, g,
        CASE WHEN g = 1 THEN '\\x${rare.slice(2)}'::bytea ELSE '\\x${busy.slice(2)}'::bytea END, 1
      FROM generate_series(1, ${blocks * withdrawalsPerBlock}) g;
      ANALYZE;
    `);
  });
  afterAll(() => test.drop());

  it.each([
    ["without a topic", undefined],
    ["with a topic", topic],
  ])("an address's logs %s: an index range of its own, however rare the address", async (_, chosen) => {
    const statements: Statement[] = [];
    const page = { topic: chosen, cursor: {}, limit: 51 };
    const rareLogs = await listAddressLogs(recording(db, statements), { address: rare, ...page });
    const busyLogs = await listAddressLogs(recording(db, statements), { address: busy, ...page });
    expect(rareLogs.map((log) => log.block_number)).toEqual([1]);
    expect(busyLogs.map((log) => log.block_number)).toEqual(Array.from({ length: 51 }, (_, i) => blocks - i));
    const [ofRare] = statements;
    expect(ofRare?.options).toEqual({ genericPlan: true, orderedScans: true });
    // One row from each scan: the log's key (from each topic position's index), the log, its block and
    // its transaction.
    const read = await rowsReadByPlan(test, required(ofRare, "SQL"));
    expect(read.map(([relation]) => relation)).toEqual(
      expect.arrayContaining(["logs", "blocks", "transactions"]),
    );
    expect(read.filter(([, rows]) => rows > 1)).toEqual([]);
  });

  it("every token transfer, newest first: one range of the transfers' key, each row's token looked up", async () => {
    const statements: Statement[] = [];
    const rows = await listTokenTransfers(recording(db, statements), { types: [], cursor: {}, limit: 51 });
    expect(rows.map((row) => row.block_number)).toEqual(Array.from({ length: 51 }, (_, i) => blocks - i));
    const [page] = statements;
    expect(page?.options).toEqual({ genericPlan: true, orderedScans: true });
    // The page's transfers and one more, and one lookup of each in the tables it is joined to.
    const read = await rowsReadByPlan(test, required(page, "SQL"));
    expect(read.map(([relation]) => relation)).toEqual(
      expect.arrayContaining(["token_transfers", "tokens", "blocks", "transactions"]),
    );
    expect(read.filter(([, rows]) => rows > 52)).toEqual([]);
  });

  // Every transfer of a token carries its type, so a type the token is not is no transfer of it: read a
  // range per type asked, the page read each of the address's transfers of the token for the wrong one.
  it.each([
    ["its own type", ["ERC-20"], 51],
    ["its own and another", ["ERC-721", "ERC-20"], 51],
    ["another type", ["ERC-721"], 0],
  ] as const)(
    "an address's transfers of one token, asked by %s: only the token's rows for its type",
    async (_, types, shown) => {
      const statements: Statement[] = [];
      const rows = await listTokenTransfers(recording(db, statements), {
        address: busy,
        token: traded,
        types: [...types],
        cursor: {},
        limit: 51,
      });
      expect(rows.map((row) => row.block_number)).toEqual(
        Array.from({ length: shown }, (_, i) => tradedTransfers - i),
      );
      const read = await rowsReadByPlan(test, required(statements[0], "SQL"));
      const transfersRead = read
        .filter(([relation]) => relation === "token_transfers")
        .map(([, rows]) => rows);
      // The sender's range up to the page and one more; the recipient's is empty.
      expect(Math.max(0, ...transfersRead)).toBeLessThanOrEqual(shown === 0 ? 0 : 52);
    },
  );

  it.each([undefined, "to", "from"] as const)(
    "an address's transfers of one token to itself (filter %s): each once, its ranges read to the page",
    async (filter) => {
      const statements: Statement[] = [];
      const rows = await listTokenTransfers(recording(db, statements), {
        address: busy,
        filter,
        token: `0x${(tokens + 3).toString(16).padStart(8, "0")}`,
        types: [],
        cursor: {},
        limit: 51,
      });
      expect(rows.map((row) => row.block_number)).toEqual(
        Array.from({ length: 51 }, (_, i) => tradedTransfers - i),
      );
      // Each range (by sender, by recipient) up to the page and one more. With transfers to oneself left
      // out of the recipient's range row by row, that range read all 19,999 of them to find the one
      // received from another.
      const read = await rowsReadByPlan(test, required(statements[0], "SQL"));
      const transfersRead = read
        .filter(([relation]) => relation === "token_transfers")
        .map(([, rows]) => rows);
      expect(transfersRead.length).toBeGreaterThan(0);
      expect(Math.max(...transfersRead)).toBeLessThanOrEqual(52);
    },
  );

  it.each([
    ["the rare address", { address: rare }, [1]],
    [
      "the busy address",
      { address: busy },
      Array.from({ length: 51 }, (_, i) => blocks * withdrawalsPerBlock - i),
    ],
    ["the oldest block", { blockNumber: 1 }, [4, 3, 2, 1]],
    [
      "the newest block",
      { blockNumber: blocks },
      [4, 3, 2, 1].map((i) => (blocks - 1) * withdrawalsPerBlock + i),
    ],
  ])("withdrawals of %s: one plan for any values, an index range of their own", async (_, where, indexes) => {
    const statements: Statement[] = [];
    const rows = await listWithdrawals(recording(db, statements), { where, cursor: {}, limit: 51 });
    expect(rows.map((row) => row.index)).toEqual(indexes);
    const [page] = statements;
    // Kept for any address, a plan with the address as an equality walked the withdrawals from the newest
    // and filtered them by address where few addresses receive them (400,000 rows for the rare one here).
    // Kept for any block, a plan that joined the blocks merged them from the newest down to the one asked
    // (100,000 for the oldest), where several withdrawals a block make the plan expect many rows.
    expect(page?.options).toEqual({ genericPlan: true, orderedScans: true });
    const read = await rowsReadByPlan(test, required(page, "SQL"));
    expect(read.map(([relation]) => relation)).toEqual(expect.arrayContaining(["withdrawals", "blocks"]));
    expect(read.filter(([, rows]) => rows > indexes.length)).toEqual([]);
  });
});

// Values common in one age of the chain only: an address busy in the newest blocks alone, a token type of the
// oldest, a common token and a common party that never met. Planned with their values, each page walked the
// table's primary key from the newest (or from its cursor) and checked each row, as the statistics call the
// value common: every row older than the busy address's last page, every transfer newer than the old type's.
describe.each(databaseKinds)("plans of pages over values common in one age of the chain, on %s", (kind) => {
  let test: TestDatabase;
  let db: Database;
  const rows = 100_000;
  // The newest 40 % of the rows, three in four of them: 30 % of each table.
  const recent = "0x00000000000000000000000000000000000000c0";
  const firstRecent = rows * 0.6 + 1;
  const recentRow = (g: string) => `${g} > ${rows * 0.6} AND ${g} % 4 <> 0`;
  const other = (g: string) => `int4send(${g} % 5000)`;
  // Each 20 % of the transfers: the party sends one token and receives the other, never the first.
  const party = "0x00000000000000000000000000000000000000d0";
  const sent = "0x000000000000000000000000000000000000e001";
  const received = "0x000000000000000000000000000000000000e002";
  beforeAll(async () => {
    test = await createTestDatabase(kind);
    db = test.db;
    await seedBlocks(db, 1, rows, 1);
    await db.exec(`
      INSERT INTO transactions (hash, block_number, index, from_address, value, nonce, type, gas_limit, input,
        gas_used, log_count)
      SELECT int4send(g), g, 0, '\\x01', 0, g, 2, 21000, '\\x', 21000, 1 FROM generate_series(1, ${rows}) g;
      INSERT INTO logs (block_number, log_index, transaction_index, address, data)
      SELECT g, 0, 0, CASE WHEN ${recentRow("g")} THEN '\\x${recent.slice(2)}'::bytea ELSE ${other("g")} END, '\\x'
      FROM generate_series(1, ${rows}) g;
      INSERT INTO withdrawals (index, block_number, validator_index, address, amount)
      SELECT g, g, g, CASE WHEN ${recentRow("g")} THEN '\\x${recent.slice(2)}'::bytea ELSE ${other("g")} END, 1
      FROM generate_series(1, ${rows}) g;
      INSERT INTO tokens (address, type, first_seen_block, read_at_block, holders_count)
      SELECT ${other("g")}, 'ERC-20', 1, 1, 0 FROM generate_series(0, 4999) g;
      INSERT INTO tokens (address, type, first_seen_block, read_at_block, holders_count)
      VALUES ('\\x${sent.slice(2)}', 'ERC-20', 1, 1, 0), ('\\x${received.slice(2)}', 'ERC-20', 1, 1, 0);
      INSERT INTO token_transfers (block_number, log_index, transaction_index, token_address,
        from_address, to_address, token_type, token_ids, amounts, token_contract_type, item_count)
      SELECT g, 1, 0,
        CASE g % 5 WHEN 0 THEN '\\x${sent.slice(2)}'::bytea WHEN 1 THEN '\\x${received.slice(2)}'::bytea
          ELSE ${other("g")} END,
        CASE WHEN g % 5 = 0 THEN '\\x${party.slice(2)}'::bytea ELSE ${other("g + 1")} END,
        CASE WHEN g % 5 = 1 THEN '\\x${party.slice(2)}'::bytea ELSE ${other("g + 2")} END,
        'ERC-20', '{}', '{1}', CASE WHEN g <= ${rows * 0.2} THEN 'ERC-721' ELSE 'ERC-20' END, 1
      FROM generate_series(1, ${rows}) g;
      ANALYZE;
    `);
  });
  afterAll(() => test.drop());

  /** The most rows any one scan of the statement read. */
  const mostRowsRead = async (statement: Statement | undefined) =>
    Math.max(...(await rowsReadByPlan(test, required(statement, "SQL"))).map(([, read]) => read));

  // Its oldest 11 rows are left after the cursor; each row is in the block (and has the index) of its number.
  const cursorAt = firstRecent + 15;
  it.each([
    [
      "logs",
      async (into: Statement[]) =>
        (
          await listAddressLogs(recording(db, into), {
            address: recent,
            cursor: { block_number: cursorAt, index: 0 },
            limit: 51,
          })
        ).map((log) => log.block_number),
    ],
    [
      "withdrawals",
      async (into: Statement[]) =>
        (
          await listWithdrawals(recording(db, into), {
            where: { address: recent },
            cursor: { index: cursorAt },
            limit: 51,
          })
        ).map((row) => row.index),
    ],
  ])("an address busy only lately, its %s' last page: only its own rows", async (_, lastPage) => {
    const statements: Statement[] = [];
    const page = await lastPage(statements);
    expect(page).toEqual(Array.from({ length: 15 }, (_, i) => cursorAt - 1 - i).filter((n) => n % 4 !== 0));
    expect(await mostRowsRead(statements[0])).toBeLessThanOrEqual(page.length);
  });

  it("every transfer of a type only the oldest blocks hold: that type's range, to the page", async () => {
    const statements: Statement[] = [];
    const page = await listTokenTransfers(recording(db, statements), {
      types: ["ERC-721"],
      cursor: {},
      limit: 51,
    });
    expect(page.map((row) => row.block_number)).toEqual(Array.from({ length: 51 }, (_, i) => rows * 0.2 - i));
    expect(await mostRowsRead(statements[0])).toBeLessThanOrEqual(52);
  });

  it.each([
    ["to", 0],
    [undefined, 51],
  ] as const)(
    "a party's transfers of a token it never received (filter %s): the empty side reads nothing",
    async (filter, shown) => {
      const statements: Statement[] = [];
      const page = await listTokenTransfers(recording(db, statements), {
        address: party,
        filter,
        token: sent,
        types: [],
        cursor: {},
        limit: 51,
      });
      expect(page.map((row) => row.block_number)).toEqual(
        Array.from({ length: shown }, (_, i) => rows - 5 * i),
      );
      expect(await mostRowsRead(statements[0])).toBeLessThanOrEqual(52);
    },
  );
});

describe.each(databaseKinds)("plans of an address's logs by topic where few contracts log, on %s", (kind) => {
  let test: TestDatabase;
  // As in the benchmark's 200 k dataset: five contracts emit every log, and the busy one's logs with the
  // topic (every fifteenth log) are spread over the table. The plan kept for any address and topic then
  // expects a few matches, and a bitmap scan, which reads them all to sort them, looked cheapest.
  const logs = 75_000;
  const perBlock = 40;
  // The busy address's second topics are aligned left, as a padded selector or a bytes32 string is: seven
  // values that end in 28 zero bytes, and one (in its oldest such log) that no other has.
  const rareSelector = 0x7e57ab1e;
  beforeAll(async () => {
    test = await createTestDatabase(kind);
    const blocks = logs / perBlock;
    await seedBlocks(test.db, 0, blocks, 1);
    await test.db.exec(`
      INSERT INTO transactions (hash, block_number, index, from_address, value, nonce, type, gas_limit, input,
        gas_used, log_count)
      SELECT int4send(g), g, 0, '\\x01', 0, g, 2, 21000, '\\x', 21000, ${perBlock} FROM generate_series(0, ${blocks}) g;
      INSERT INTO logs (block_number, log_index, transaction_index, address, topic0, topic1, data)
      SELECT g / ${perBlock}, g % ${perBlock}, 0,
        CASE WHEN g % 15 = 0 THEN '\\x${busy.slice(2)}'::bytea ELSE int4send(g % 4) END,
        CASE WHEN g % 15 = 0 THEN '\\x${topic.slice(2)}'::bytea ELSE sha256(int4send(g % 4)) END,
        CASE WHEN g % 15 = 0 THEN int4send(CASE WHEN g = 15 THEN ${rareSelector} ELSE g % 7 END) || '\\x${"00".repeat(28)}'
          ELSE sha256(int4send(g % 1000)) END,
        '\\x'
      FROM generate_series(1, ${logs}) g;
      ANALYZE;
    `);
  });
  afterAll(() => test.drop());

  it("reads the busy address's newest matches from the topic's index range and stops at the page's end", async () => {
    const statements: Statement[] = [];
    const page = await listAddressLogs(recording(test.db, statements), {
      address: busy,
      topic,
      cursor: {},
      limit: 51,
    });
    const newest = Array.from({ length: 51 }, (_, i) => logs - 15 * i);
    expect(page.map((log) => [log.block_number, log.log_index])).toEqual(
      newest.map((g) => [Math.floor(g / perBlock), g % perBlock]),
    );
    const [statement] = statements;
    expect(statement?.options).toEqual({ genericPlan: true, orderedScans: true });
    // The matches come from the topic positions' index ranges, newest first, no further than the page. With
    // bitmap scans, the kept plan read all 5,000 of the first position's to sort them. (How the page's logs
    // are then joined to their blocks is left to the planner: this table of blocks is small.)
    const read = await rowsReadByPlan(test, required(statement, "SQL"));
    const matches = read.filter(([relation, , index]) => relation === "logs" && index !== "logs_pkey");
    expect(matches.length).toBeGreaterThan(0);
    expect(matches.reduce((sum, [, rows]) => sum + rows, 0)).toBeLessThanOrEqual(page.length);
  });

  it("reads a left-aligned topic's one match from its own range, not every log of the values ending as it does", async () => {
    const statements: Statement[] = [];
    const leftAligned = `0x${rareSelector.toString(16)}${"00".repeat(28)}`;
    const page = await listAddressLogs(recording(test.db, statements), {
      address: busy,
      topic: leftAligned,
      cursor: {},
      limit: 51,
    });
    expect(page.map((log) => [log.block_number, log.log_index, log.topic1])).toEqual([
      [Math.floor(15 / perBlock), 15 % perBlock, leftAligned],
    ]);
    // Keyed by the topic's last 8 bytes, the second position's range held the busy address's 5,000 logs
    // whose second topic ends in zeros, each read and checked.
    const read = await rowsReadByPlan(test, required(statements[0], "SQL"));
    const matches = read.filter(([relation, , index]) => relation === "logs" && index !== "logs_pkey");
    expect(matches.some(([, , index]) => index === "logs_topic1")).toBe(true);
    expect(matches.reduce((sum, [, rows]) => sum + rows, 0)).toBeLessThanOrEqual(page.length);
  });
});

describe.each(databaseKinds)(
  "plans of an address's transactions by value or fee where many tie, on %s",
  (kind) => {
    let test: TestDatabase;
    // The busy address sent every other transaction, all with value 0 and the same fee; everyone else's are
    // distinct. A plan made with the page's values cannot know the tied key (it is read by the statement, or
    // taken from the cursor) and expects the few rows of a distinct value: with bitmap scans allowed, it read
    // all 30,000 ties to sort them for one page.
    const transactions = 60_000;
    const fee = 21_000;
    beforeAll(async () => {
      test = await createTestDatabase(kind);
      const others = "g % 2 = 1";
      await seedBlocks(test.db, 1, transactions, 1);
      await test.db.exec(`
      INSERT INTO transactions (hash, block_number, index, from_address, to_address, value, nonce, type, gas_limit,
        gas_price, input, gas_used, log_count)
      SELECT int4send(g), g, 0, CASE WHEN ${others} THEN int4send(g) ELSE '\\x${busy.slice(2)}'::bytea END,
        int4send(-g), CASE WHEN ${others} THEN 1 + g % 3000 ELSE 0 END, g, 0, 100000, 1, '\\x',
        ${fee} + CASE WHEN ${others} THEN 1 + g % 3000 ELSE 0 END, 0
      FROM generate_series(1, ${transactions}) g;
      -- Each transaction's sender and recipient rows, as the indexer writes them, in no order of the index's.
      INSERT INTO address_transactions (address_suffix, direction, position, value, fee)
      SELECT * FROM (
        SELECT CASE WHEN t.from_address = '\\x${busy.slice(2)}' THEN '\\x${addressSuffix(busy).slice(2)}'::bytea
          ELSE t.from_address END, 1, t.block_number << 24, t.value, t.gas_used * t.gas_price
        FROM transactions t
        UNION ALL
        SELECT t.to_address, 2, t.block_number << 24, t.value, t.gas_used * t.gas_price FROM transactions t
      ) keys (address_suffix, direction, position, value, fee)
      ORDER BY md5(position::text);
      ANALYZE;
    `);
    });
    afterAll(() => test.drop());

    // The newest ties first; the second page resumes within them, after the first page's last.
    const newest = Array.from({ length: 102 }, (_, i) => transactions - 2 * i);
    it.each([
      ["value", "the first page", {}, newest.slice(0, 51)],
      [
        "value",
        "a page within the ties",
        { value: "0", block_number: newest[50], index: 0 },
        newest.slice(51),
      ],
      ["fee", "the first page", {}, newest.slice(0, 51)],
      [
        "fee",
        "a page within the ties",
        { fee: String(fee), block_number: newest[50], index: 0 },
        newest.slice(51),
      ],
    ] as const)(
      "by %s from the smallest, %s: read from the ties' index range, newest first",
      async (sort, _, cursor, blocks) => {
        const statements: Statement[] = [];
        const page = await listAddressTransactions(recording(test.db, statements), {
          address: busy,
          sort,
          order: "asc",
          cursor,
          limit: 51,
        });
        expect(page.map((transaction) => transaction.block_number)).toEqual(blocks);
        expect(statements).toHaveLength(1);
        // Each of the page's ranges stops at the page's end: the keys above the cursor, the last key's ties and the
        // cursor's own key (one page each at most), then the page's transactions.
        const read = await rowsReadByPlan(test, required(statements[0], "SQL"));
        const keys = read.filter(([relation]) => relation === "address_transactions");
        expect(keys.length).toBeGreaterThan(0);
        expect(keys.reduce((sum, [, rows]) => sum + rows, 0)).toBeLessThanOrEqual(3 * 51);
      },
    );
  },
);

describe.each(databaseKinds)(
  "plans of a holder's tokens and collections where it holds many, on %s",
  (kind) => {
    let test: TestDatabase;
    // The holder has one id of each of 30,000 collections (an address airdropped into), every third ERC-1155,
    // the others ERC-721. Read by holder alone, each page joined every holding to its token for the type and
    // sorted them all.
    const collections = 30_000;
    const holder = "0x00000000000000000000000000000000000000c1";
    const typeOf = (g: number) => (g % 3 === 0 ? "ERC-1155" : "ERC-721");
    const tokenAddress = (g: number) => `0x${g.toString(16).padStart(8, "0")}`;
    beforeAll(async () => {
      test = await createTestDatabase(kind);
      const type = "CASE WHEN g % 3 = 0 THEN 'ERC-1155' ELSE 'ERC-721' END";
      await test.db.exec(`
      INSERT INTO tokens (address, type, first_seen_block, read_at_block, holders_count)
      SELECT int4send(g), ${type}, 1, 1, 1 FROM generate_series(1, ${collections}) g;
      INSERT INTO token_balances (token_address, token_id, holder, value, token_contract_type)
      SELECT int4send(g), g, '\\x${holder.slice(2)}', 1, ${type} FROM generate_series(1, ${collections}) g;
      INSERT INTO token_holders (token_address, holder, ids, ids_value, token_contract_type)
      SELECT token_address, holder, 1, 1, token_contract_type FROM token_balances;
      ANALYZE;
    `);
    });
    afterAll(() => test.drop());

    /** The rows each page's statement read from the holdings, and that it read no table whole. */
    const holdingsRead = async (statement: Statement | undefined) => {
      const read = await rowsReadByPlan(test, required(statement, "SQL"));
      expect(read.filter(([, rows]) => rows >= collections / 3)).toEqual([]);
      return read
        .filter(([relation]) => relation === "token_holders")
        .reduce((sum, [, rows]) => sum + rows, 0);
    };
    const noCursor = { value: null, token_address: null, token_id: null };
    const newest = Array.from({ length: 51 }, (_, i) => collections - i);

    it.each([
      ["every type", [], newest],
      [
        "ERC-721",
        ["ERC-721"],
        Array.from({ length: 90 }, (_, i) => collections - i)
          .filter((g) => typeOf(g) === "ERC-721")
          .slice(0, 51),
      ],
    ])(
      "its tokens of %s: the ERC-721 holdings a range of their own, largest first",
      async (_, types, tokens) => {
        const statements: Statement[] = [];
        const page = await listAddressTokens(recording(test.db, statements), {
          address: holder,
          types,
          cursor: noCursor,
          limit: 51,
        });
        expect(page.map((row) => [row.token_address, row.type])).toEqual(
          tokens.map((g) => [tokenAddress(g), typeOf(g)]),
        );
        expect(await holdingsRead(statements[0])).toBeLessThanOrEqual(51);
      },
    );

    const erc721 = Array.from({ length: 200 }, (_, i) => i + 1).filter((g) => typeOf(g) === "ERC-721");
    it.each([
      ["the first page", { token_address: null, token_type: null }, erc721.slice(0, 51)],
      [
        "a page after a token",
        { token_address: tokenAddress(erc721[50] ?? 0), token_type: "ERC-721" },
        erc721.slice(51, 102),
      ],
      [
        "a page after a token without its type",
        { token_address: tokenAddress(erc721[50] ?? 0), token_type: null },
        erc721.slice(51, 102),
      ],
      [
        "a page after the ERC-721s",
        { token_address: null, token_type: "ERC-721" },
        [3, 6, 9].concat(Array.from({ length: 48 }, (_, i) => 12 + 3 * i)),
      ],
    ])(
      "its collections, %s: each type's a range of their own, by token address",
      async (_, cursor, tokens) => {
        const statements: Statement[] = [];
        const page = await listNftCollections(recording(test.db, statements), {
          address: holder,
          types: [],
          cursor,
          limit: 51,
          instances: 9,
        });
        expect(page.map((row) => [row.token_address, row.type, row.token_id])).toEqual(
          tokens.map((g) => [tokenAddress(g), typeOf(g), String(g)]),
        );
        // A page from each type's range (the three types'), and no further.
        expect(await holdingsRead(statements[0])).toBeLessThanOrEqual(3 * 51);
      },
    );
  },
);

describe.each(databaseKinds)("plans of the transfers and logs of given transactions on %s", (kind) => {
  let test: TestDatabase;
  let db: Database;
  // As on a chain: many transfers a block, each transaction its own, of tokens spread over many. One
  // transfer a block, or a few tokens, did not show the walks below.
  const blocks = 3_000;
  const perBlock = 35;
  const tokens = 100_000;
  beforeAll(async () => {
    test = await createTestDatabase(kind);
    db = test.db;
    await db.exec(`
      INSERT INTO tokens (address, type, first_seen_block, read_at_block, holders_count)
      SELECT int4send(g), 'ERC-20', 1, 1, 0 FROM generate_series(1, ${tokens}) g;
      INSERT INTO addresses (hash, is_contract, first_seen_block)
      SELECT int4send(g), true, 1 FROM generate_series(1, ${tokens}) g;
      INSERT INTO token_transfers (block_number, log_index, transaction_index, token_address,
        from_address, to_address, token_type, token_ids, amounts, token_contract_type, item_count)
      SELECT b, i, i, int4send((b * ${perBlock} + i) % ${tokens} + 1),
        int4send((b * ${perBlock} + i + 1) % ${tokens} + 1), int4send((b * ${perBlock} + i + 2) % ${tokens} + 1),
        'ERC-20', '{}', '{1}', 'ERC-20', 1
      FROM generate_series(1, ${blocks}) b, generate_series(0, ${perBlock - 1}) i;
      INSERT INTO logs (block_number, log_index, transaction_index, address, topic0, data)
      SELECT block_number, log_index, transaction_index, token_address, '\\x${topic.slice(2)}', '\\x'
      FROM token_transfers;
      UPDATE logs SET topic0 = '\\x${swapTopic.slice(2)}', address = ${poolAddressSql}
      WHERE block_number IN (${[...swapped, notAPool]}) AND log_index = 5;
      INSERT INTO logs (block_number, log_index, transaction_index, address, topic0, data)
      SELECT 1, 100 + b, 99, '\\x${factory.slice(2)}'::bytea, '\\x${poolCreatedTopic.slice(2)}'::bytea,
        decode(repeat('00', 44), 'hex') || ${poolAddressSql.replaceAll("block_number", "b")}
      FROM unnest(ARRAY[${swapped}]) b
      UNION ALL SELECT 1, 1000 + g, 99, '\\x${factory.slice(2)}', '\\x${poolCreatedTopic.slice(2)}',
        decode(repeat('00', 44) || repeat('bb', 16), 'hex') || int4send(g)
      FROM generate_series(1, 2000) g;
      UPDATE logs SET address = int4send((${minted * perBlock + 7} % ${tokens}) + 1),
        topic0 = '\\x${transferTopic.slice(2)}',
        topic1 = decode(lpad(CASE log_index WHEN 7 THEN '' ELSE to_hex(log_index + 1) END, 64, '0'), 'hex')
      WHERE block_number = ${minted} AND log_index <> 3;
      UPDATE logs SET address = '\\x${wrapper.slice(2)}' WHERE block_number = ${wrapped};
      UPDATE logs SET topic0 = '\\x${depositTopic.slice(2)}' WHERE block_number = ${wrapped} AND log_index = 9;
      ANALYZE;
    `);
  });
  afterAll(() => test.drop());

  const newest = Array.from({ length: 50 }, (_, i) => blocks - i);
  // Among the newest, two pools' swaps and a position's mint: the events of a page's actions. Every log of the
  // mint's transaction but log 3 (which the cases below read) is a transfer of the position manager.
  const swapTopic = required(uniswapV3PoolTopics[3], "Swap");
  const swapped = [blocks - 2, blocks - 1];
  // The pools are the factory's (it announced them, and 2,000 others, in the first block); the Swap of another
  // contract is not.
  const notAPool = blocks - 5;
  const factory = "0x00f1";
  const poolAddressSql = "decode(repeat('aa', 16), 'hex') || int4send(block_number::int4)";
  const minted = blocks - 3;
  // A transaction whose called contract emitted all of its logs, one of them a wrap's deposit.
  const wrapped = blocks - 4;
  const wrapper = "0x0c0ffee0";
  const depositTopic = required(wrapTopics[0], "Deposit");
  const oldest = Array.from({ length: 50 }, (_, i) => 50 - i);
  // Each transaction is the fourth of its block, with one log: its transfer.
  const ofBlocks = (numbers: number[]) =>
    numbers.map((block_number) => ({
      block_number,
      index: 3,
      hash: `0x${"00".repeat(32)}`,
      block_hash: `0x${"00".repeat(32)}`,
      timestamp: 0,
      input: "0x",
      to_address: null,
      first_log_index: 3,
      log_count: 1,
    }));
  const cases = [
    ["the newest transaction's summary", [blocks], { oldestFirst: true, limit: 10 }],
    ["the oldest transaction's summary", [1], { oldestFirst: true, limit: 10 }],
    ["a page of the newest transactions", newest, { perTransaction: 11, limit: 550 }],
    ["a page of the oldest transactions", oldest, { perTransaction: 11, limit: 550 }],
  ] as const;

  // Merged with the transactions' ranges in key order, the transfers were walked from the oldest (a summary)
  // or from the newest (a page) until the transactions' blocks were reached: 105,000 rows for the newest
  // transaction's summary, in the plan kept for any values. Joined to the tokens, a page's transfers hashed
  // all 100,000 of them, in the plan made for its values.
  /** The transfers of `transactions` for a page of them or a summary, and the statement that read them. */
  const transfersOf = async (
    transactions: ReturnType<typeof ofBlocks>,
    page: { perTransaction?: number; limit: number; oldestFirst?: boolean },
  ) => {
    const statements: Statement[] = [];
    const rows = await listTokenTransfers(recording(db, statements), {
      transactions,
      types: [],
      cursor: {},
      ...page,
    });
    return { rows, statement: required(statements[0], "SQL") };
  };

  it.each(cases)("the transfers of %s: a range of their key per transaction", async (_, numbers, page) => {
    const { rows, statement } = await transfersOf(ofBlocks([...numbers]), page);
    expect(
      rows.map((row) => [row.block_number, row.log_index]).sort(([a], [b]) => Number(b) - Number(a)),
    ).toEqual(numbers.map((number) => [number, 3]));
    expect(statement.options).toEqual({ genericPlan: true, orderedScans: true });
    // Each transaction's transfer and its token, looked up once each.
    const read = await rowsReadByPlan(test, statement);
    expect(read.map(([relation]) => relation)).toEqual(expect.arrayContaining(["token_transfers", "tokens"]));
    expect(read.filter(([, rows]) => rows > numbers.length)).toEqual([]);
  });

  it.each(cases)("the logs of %s, by topic: a range of their key per transaction", async (_, numbers) => {
    const statements: Statement[] = [];
    const rows = await listTransactionLogs(recording(db, statements), {
      transactions: ofBlocks([...numbers]),
      events: [{ topic0s: [topic] }],
    });
    expect(rows.map((row) => [row.block_number, row.log_index])).toEqual(
      [...numbers].sort((a, b) => a - b).map((number) => [number, 3]),
    );
    const [logs] = statements;
    expect(logs?.options).toEqual({ genericPlan: true });
    const read = await rowsReadByPlan(test, required(logs, "SQL"));
    expect(read.map(([relation, rows]) => [relation, rows])).toEqual([["logs", numbers.length]]);
  });

  it("the logs of a transaction, by topic and emitter: only that emitter's leave the database", async () => {
    const [transaction] = ofBlocks([blocks]);
    const transactions = [
      { ...required(transaction, "a transaction"), first_log_index: 0, log_count: perBlock },
    ];
    const emitter = `0x${(((blocks * perBlock + 3) % tokens) + 1).toString(16).padStart(8, "0")}`;
    const events = [{ topic0s: [topic], emitter }];
    const rows = await listTransactionLogs(db, { transactions, events });
    expect(rows.map((row) => [row.log_index, row.address])).toEqual([[3, emitter]]);
    // A caller that asked for more events in the same statement splits them as the statement filters.
    const everyEmitter = await listTransactionLogs(db, { transactions, events: [{ topic0s: [topic] }] });
    expect(everyEmitter).toHaveLength(perBlock);
    expect(everyEmitter.filter((log) => matchesEvents(log, events))).toEqual(rows);
  });

  it("the events of a page's actions, among transactions of many logs: only those events are read", async () => {
    const statements: Statement[] = [];
    const positionManager = `0x${(((minted * perBlock + 7) % tokens) + 1).toString(16).padStart(8, "0")}`;
    const protocols = {
      uniswapV3Factory: factory,
      uniswapV3PositionManager: positionManager,
      aaveV3Pool: "0xa1",
    };
    const rows = await listTransactionLogs(recording(db, statements), {
      transactions: wholeBlocks(newest),
      events: actionEvents(protocols),
    });
    expect(rows.map((row) => [row.block_number, row.log_index, row.topics[0]])).toEqual([
      [minted, 7, transferTopic],
      ...swapped.map((number) => [number, 5, swapTopic]),
    ]);
    // The swaps from the index of pools' events, each emitter's announcement by the pool's address (not the
    // factory's 2,002), the mint from the position manager's transfers from zero, and the pool's (none): read
    // whole, the transactions' 1,750 logs; by the position manager's address, its 33 other transfers. (A
    // scan's rows are its loops' mean, rounded.)
    const read = await rowsReadByPlan(test, required(statements[0], "SQL"));
    expect(read.map(([, , index]) => index)).toEqual([
      "logs_uniswap_v3_pool_events",
      "logs_pool_created",
      "logs_topic1",
      "logs_address",
    ]);
    expect(read.reduce((sum, [, rows]) => sum + rows, 0)).toBeLessThanOrEqual(7);
  });

  it("the mint of one transaction, whose position manager made 34 transfers in it: only the mint is read", async () => {
    const statements: Statement[] = [];
    const positionManager = `0x${(((minted * perBlock + 7) % tokens) + 1).toString(16).padStart(8, "0")}`;
    const [transaction] = wholeBlocks([minted]);
    const rows = await listTransactionLogs(recording(db, statements), {
      transactions: [required(transaction, "a transaction")],
      events: actionEvents({
        uniswapV3Factory: null,
        uniswapV3PositionManager: positionManager,
        aaveV3Pool: null,
      }),
    });
    expect(rows.map((row) => [row.log_index, row.address, row.topics[0]])).toEqual([
      [7, positionManager, transferTopic],
    ]);
    // By the emitter's first topic, its 34 transfers in the transaction.
    const read = await rowsReadByPlan(test, required(statements[0], "SQL"));
    expect(read).toEqual([["logs", 1, "logs_topic1"]]);
  });

  it("the wraps of one transaction, whose called contract emitted its every log: only the wraps are read", async () => {
    const statements: Statement[] = [];
    const [transaction] = wholeBlocks([wrapped]);
    const rows = await listTransactionLogs(recording(db, statements), {
      transactions: [required(transaction, "a transaction")],
      events: [{ topic0s: wrapTopics, emitter: wrapper }],
    });
    expect(rows.map((row) => [row.log_index, row.address, row.topics[0]])).toEqual([
      [9, wrapper, depositTopic],
    ]);
    // A range of the emitter's first-topic index for each wrap's topic; by its address, all 35 logs.
    const read = await rowsReadByPlan(test, required(statements[0], "SQL"));
    expect(read).toEqual(wrapTopics.map((_, i) => ["logs", i === 0 ? 1 : 0, "logs_topic0"]));
  });

  // A transaction of many transfers (here each of these blocks is one transaction of 35) shows a few: its
  // preview in a page of transactions, the first of them in its summary. Read whole, a page of airdrops
  // read 50,000 transfers for 550 rows.
  const wholeBlocks = (numbers: number[]) =>
    ofBlocks(numbers).map((transaction) => ({ ...transaction, first_log_index: 0, log_count: perBlock }));
  it.each([
    ["a page's previews", newest, { perTransaction: 11, limit: 550 }, 11],
    ["a summary", [blocks], { oldestFirst: true, limit: 10 }, 10],
  ] as const)(
    "the transfers of transactions of many, for %s: only the first each can show",
    async (_, numbers, page, shown) => {
      const { rows, statement } = await transfersOf(wholeBlocks([...numbers]), page);
      expect(
        rows
          .map((row) => [row.block_number, row.log_index])
          .sort(([a, i], [b, j]) => Number(b) - Number(a) || Number(i) - Number(j)),
      ).toEqual(numbers.flatMap((number) => Array.from({ length: shown }, (_, i) => [number, i])));
      const read = await rowsReadByPlan(test, statement);
      const transfersRead = read.filter(([relation]) => relation === "token_transfers");
      expect(transfersRead.map(([, rows]) => rows)).toEqual([numbers.length * shown]);
    },
  );

  it("the parties of transactions of many transfers: those of the first each previews", async () => {
    const statements: Statement[] = [];
    const found = await findAddresses(recording(db, statements), [], {
      transfersOf: { transactions: wholeBlocks(newest), perTransaction: 11 },
    });
    // A block's transfers run between consecutive addresses: its first 11 name 12 of them.
    expect(found.size).toBe(newest.length * 12);
    const read = await rowsReadByPlan(test, required(statements[0], "SQL"));
    expect(read.filter(([relation]) => relation === "token_transfers").map(([, rows]) => rows)).toEqual([
      newest.length * 11,
    ]);
  });

  it.each(cases)("the addresses of %s and of their transfers: each looked up by key", async (_, numbers) => {
    const statements: Statement[] = [];
    const listed = Array.from({ length: 100 }, (_, i) => `0x${(tokens - i).toString(16).padStart(8, "0")}`);
    const found = await findAddresses(recording(db, statements), listed, {
      transfersOf: { transactions: ofBlocks([...numbers]), perTransaction: 11 },
      withAbis: listed.slice(0, 5),
    });
    // The listed addresses, and each transfer's two parties.
    expect(found.size).toBe(100 + 2 * numbers.length);
    const [addresses] = statements;
    expect(addresses?.options).toEqual({ genericPlan: true });
    const read = await rowsReadByPlan(test, required(addresses, "SQL"));
    expect(read.map(([relation]) => relation)).toEqual(
      expect.arrayContaining(["token_transfers", "addresses", "tokens"]),
    );
    expect(read.filter(([, rows]) => rows > found.size)).toEqual([]);
  });
});

describe.each(databaseKinds)("the plan of a metadata round on %s", (kind) => {
  it("reads the instances it takes, however many deferred ones wait before them", async () => {
    const test = await createTestDatabase(kind);
    try {
      // A gateway down for a whole collection: its 20,000 oldest instances are left to an hour from now.
      await test.db.exec(`
        INSERT INTO tokens (address, type, first_seen_block, read_at_block, holders_count)
        VALUES ('\\x01', 'ERC-721', 1, 1, 0);
        INSERT INTO token_instances (token_address, token_id, first_seen_block, metadata_attempts, metadata_retry_at)
        SELECT '\\x01', g, g, 1, now() + interval '1 hour' FROM generate_series(1, 20000) g;
        INSERT INTO token_instances (token_address, token_id, first_seen_block)
        SELECT '\\x01', g, g FROM generate_series(20001, 20100) g;
        ANALYZE;
      `);
      const statements: Statement[] = [];
      const taken = await readUnfetchedInstances(recording(test.db, statements), 50);
      expect(taken.map((instance) => instance.tokenId)).toEqual(
        Array.from({ length: 50 }, (_, i) => BigInt(20_001 + i)),
      );
      const read = await rowsReadByPlan(test, required(statements[0], "SQL"));
      const instancesRead = read
        .filter(([relation]) => relation === "token_instances")
        .reduce((sum, [, rows]) => sum + rows, 0);
      expect(instancesRead).toBeLessThanOrEqual(51);
    } finally {
      await test.drop();
    }
  });
});

describe.each(databaseKinds)("the plan of a page's Uniswap v3 pools on %s", (kind) => {
  it("reads each candidate's creation, however many pools the factory created", async () => {
    const test = await createTestDatabase(kind);
    try {
      const factory = `0x${"f1".repeat(20)}`;
      const impostor = `0x${"f2".repeat(20)}`;
      // The factory's 20,000 pools (0xaa…, one a block) and one "pool" another contract announced the same way.
      const word = (hex: string) => `decode(lpad(${hex}, 64, '0'), 'hex')`;
      const createdBy = (emitter: string, from: number, to: number) => `
        INSERT INTO logs (block_number, log_index, transaction_index, address, topic0, topic1, topic2, topic3, data)
        SELECT g, 0, 0, '\\x${emitter.slice(2)}', '\\x${poolCreatedTopic.slice(2)}', ${word("to_hex(g)")},
          ${word("to_hex(g + 1000000)")}, ${word("'bb8'")},
          ${word("'3c'")} || decode(repeat('00', 12) || 'aa' || lpad(to_hex(g), 38, '0'), 'hex')
        FROM generate_series(${from}, ${to}) g;`;
      await test.db.exec(`${createdBy(factory, 1, 20_000)}${createdBy(impostor, 20_001, 20_001)} ANALYZE;`);
      const pool = (n: number) => `0xaa${n.toString(16).padStart(38, "0")}`;
      const token = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;
      const statements: Statement[] = [];
      const found = await findUniswapV3Pools(recording(test.db, statements), {
        factory,
        pools: [pool(7), pool(20_000), pool(20_001), pool(30_000)],
      });
      expect([...found]).toEqual([
        [pool(7), { token0: token(7), token1: token(1_000_007) }],
        [pool(20_000), { token0: token(20_000), token1: token(1_020_000) }],
      ]);
      // Each candidate's announcements, found by the pool's address: the impostor's is read and left out.
      const read = await rowsReadByPlan(test, required(statements[0], "SQL"));
      expect(read).toEqual([["logs", 3, "logs_pool_created"]]);
    } finally {
      await test.drop();
    }
  });
});

describe.each(databaseKinds)("the plan of a summary's inner calls on %s", (kind) => {
  const bytes = (hex: string) => `'\\x${hex.slice(2)}'::bytea`;
  const insertFrames = `INSERT INTO internal_transactions (block_number, transaction_index, index, block_index, type,
    from_address, to_address, created_contract, value, gas, gas_used, input, output, error, trace_address)`;
  /** A successful call frame of the transaction at block 7, index 0, from `from`, as a SELECT of SQL values. */
  const frame = (from: string, index: string, to: string, createdContract: string, value: string | number) =>
    `SELECT 7, 0, ${index}, ${index}, 'call', ${bytes(from)}, ${to}, ${createdContract}, ${value}, 0, 0,
       '\\x'::bytea, '\\x'::bytea, NULL, ARRAY[0]`;
  it("reads the payments to the sender and the creations, however many other calls the transaction made", async () => {
    const test = await createTestDatabase(kind);
    try {
      // A disperse: 5,000 calls paying others, 5,000 calling the sender back without value, one paying the
      // sender back, one creating a contract.
      const [payer, sender, created] = ["0x0a70", "0x005e", "0x0c4ea7"];
      await test.db.exec(`
        ${insertFrames}
        ${frame(payer, "g", "int4send(g)", "NULL::bytea", 1)} FROM generate_series(1, 5000) g
        UNION ALL ${frame(payer, "g", bytes(sender), "NULL::bytea", 0)} FROM generate_series(5001, 10000) g
        UNION ALL ${frame(payer, "10001", bytes(sender), "NULL::bytea", 5)}
        UNION ALL ${frame(payer, "10002", "NULL::bytea", bytes(created), 0)};
        ANALYZE;`);
      const statements: Statement[] = [];
      const effects = await listInnerEffects(
        recording(test.db, statements),
        {
          block_number: 7,
          index: 0,
          from_address: sender,
        },
        summarizedInnerEffects,
      );
      expect(
        effects.map(({ to_address, created_contract, value }) => [to_address, created_contract, value]),
      ).toEqual([
        [sender, null, "5"],
        [null, created, "0"],
      ]);
      // The payment and the creation: not the 10,000 calls before them.
      const read = await rowsReadByPlan(test, required(statements[0], "SQL"));
      expect(read).toEqual([
        ["internal_transactions", 1, "internal_transactions_effects"],
        ["internal_transactions", 1, "internal_transactions_effects"],
      ]);
    } finally {
      await test.drop();
    }
  });

  it("reads the first creations and payments back it tells, however many the transaction made", async () => {
    const test = await createTestDatabase(kind);
    try {
      // A factory's transaction: 10,000 calls creating contracts, then 10,000 paying the sender back.
      const [factory, sender] = ["0x0fac", "0x005e"];
      const calls = 20_000;
      await test.db.exec(`
        ${insertFrames}
        ${frame(factory, "g", "NULL::bytea", "int4send(g)", 0)} FROM generate_series(1, ${calls / 2}) g
        UNION ALL ${frame(factory, `${calls / 2} + g`, bytes(sender), "NULL::bytea", "g")} FROM generate_series(1, ${calls / 2}) g;
        ANALYZE;`);
      const statements: Statement[] = [];
      const effects = await listInnerEffects(
        recording(test.db, statements),
        { block_number: 7, index: 0, from_address: sender },
        summarizedInnerEffects,
      );
      const first = Array.from({ length: summarizedInnerEffects }, (_, i) => i + 1);
      expect(
        effects.map(({ created_contract }) => created_contract).filter((created) => created !== null),
      ).toEqual(first.map((g) => `0x${g.toString(16).padStart(8, "0")}`));
      expect(effects.filter(({ to_address }) => to_address === sender).map(({ value }) => value)).toEqual(
        first.map(String),
      );
      // Each kind's first rows: not the thousands after them.
      const read = await rowsReadByPlan(test, required(statements[0], "SQL"));
      expect(read.reduce((sum, [, rows]) => sum + rows, 0)).toBe(2 * summarizedInnerEffects);
    } finally {
      await test.drop();
    }
  });
});

describe.each(databaseKinds)("the plan of a reorganization's take-back on %s", (kind) => {
  it("reads the tokens and instances of the orphaned block, however many the chain has; links by key", async () => {
    const test = await createTestDatabase(kind);
    try {
      const head = 100;
      const many = 100_000;
      await seedBlocks(test.db, 1, head);
      // All but one of each from the first block; that one from the orphaned head.
      await test.db.exec(`
        INSERT INTO tokens (address, type, first_seen_block, read_at_block, holders_count)
        SELECT int4send(g), 'ERC-721', CASE WHEN g = ${many} THEN ${head} ELSE 1 END,
          CASE WHEN g = ${many} THEN ${head} ELSE 1 END, 0
        FROM generate_series(1, ${many}) g;
        INSERT INTO token_instances (token_address, token_id, first_seen_block)
        SELECT int4send(1), g, CASE WHEN g = ${many} THEN ${head} ELSE 1 END FROM generate_series(1, ${many}) g;
        ANALYZE;
      `);
      const plans: [text: string, plan: PlanNode][] = [];
      const joins: [deleted: string, hashJoin: unknown, mergeJoin: unknown][] = [];
      const joinSettings = async (tx: Queryable) =>
        Object.values(
          required(
            (
              await tx.query(
                "SELECT current_setting('enable_hashjoin') AS h, current_setting('enable_mergejoin') AS m",
              )
            )[0],
            "the settings",
          ),
        );
      // Each statement on these tables runs under EXPLAIN ANALYZE in its place; the transaction is undone.
      const explaining = (tx: Queryable): Queryable => ({
        async query(text, params = [], options) {
          const deleted = /^DELETE FROM (address\w*)/.exec(text)?.[1];
          if (deleted !== undefined)
            joins.push([deleted, ...(await joinSettings(tx))] as (typeof joins)[number]);
          if (!/^(DELETE FROM|UPDATE) tokens?(_instances)? /.test(text))
            return tx.query(text, params, options);
          const [row] = await tx.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${text}`, params);
          const plan = Object.values(required(row, "EXPLAIN's row"))[0];
          const [explained] = (typeof plan === "string" ? JSON.parse(plan) : plan) as { Plan: PlanNode }[];
          plans.push([text, required(explained, "the plan").Plan]);
          return [];
        },
        exec: (text) => tx.exec(text),
      });
      const undone = new Error("undone");
      await expect(
        test.db.transaction(async (tx) => {
          await deleteAbove(explaining(tx), BigInt(head - 1));
          // Found by key, the address links and addresses are deleted without hash or merge joins (at 10 M
          // transactions the planner read all 20 M links by hash from 64 orphaned blocks); the caller's
          // statements after the take-back are planned as usual.
          expect(joins.sort()).toEqual(
            [
              "address_internal_transactions",
              "address_token_transfers",
              "address_transactions",
              "addresses",
            ].map((table) => [table, "off", "off"]),
          );
          expect(await joinSettings(tx)).toEqual(["on", "on"]);
          throw undone;
        }),
      ).rejects.toBe(undone);
      // The instances' delete, the tokens' delete and supplies, the promotions' take-back: each read at most
      // the one row of the orphaned block (a scan of the table read all 100,000).
      expect(plans.map(([text]) => text.split(/ WHERE|,/)[0])).toEqual([
        "DELETE FROM token_instances",
        "DELETE FROM tokens",
        "UPDATE tokens SET total_supply = NULL",
        "UPDATE tokens SET type = type_before_promotion",
      ]);
      for (const [text, plan] of plans)
        expect(Math.max(...rowsReadIn(plan).map(([, rows]) => rows)), text).toBeLessThanOrEqual(1);
    } finally {
      await test.drop();
    }
  });
});

describe.each(databaseKinds)("plans of pages over batches of thousands of ids on %s", (kind) => {
  let test: TestDatabase;
  let db: Database;
  // Each transaction sends three ERC-1155 batches of 2,000 ids, whose arrays PostgreSQL keeps compressed
  // out of line: reading one means reading its whole arrays, whatever slice of them is asked for.
  const blocks = 60;
  const batchSize = 2_000;
  const token = "0x00001155";
  beforeAll(async () => {
    test = await createTestDatabase(kind);
    db = test.db;
    await seedBlocks(db, 1, blocks, 1);
    await db.exec(`
      INSERT INTO transactions (hash, block_number, index, from_address, to_address, value, nonce, type,
        gas_limit, input, gas_used, first_log_index, log_count)
      SELECT sha256(int4send(g)), g, 0, '\\x01', '\\x${token.slice(2)}', 0, g, 2, 1000000, '\\x', 900000, 0, 3
      FROM generate_series(1, ${blocks}) g;
      INSERT INTO tokens (address, type, first_seen_block, read_at_block)
      VALUES ('\\x${token.slice(2)}', 'ERC-1155', 1, 1);
      INSERT INTO token_transfers (block_number, log_index, transaction_index, token_address, from_address,
        to_address, token_type, token_ids, amounts, token_contract_type, item_count)
      SELECT g, l, 0, '\\x${token.slice(2)}', '\\x01', '\\x02', 'ERC-1155',
        ARRAY(SELECT (g * 1000000 + l * 10000 + i)::numeric FROM generate_series(1, ${batchSize}) i),
        ARRAY(SELECT (i * 7919 % 1000 + 1)::numeric FROM generate_series(1, ${batchSize}) i), 'ERC-1155', ${batchSize}
      FROM generate_series(1, ${blocks}) g, generate_series(0, 2) l;
    `);
    await writeBatchHeads(db);
    await db.exec("ANALYZE");
  });
  afterAll(() => test.drop());

  /**
   * The transfers whose arrays the statement spread, and the blocks read by the join of the transfers with
   * their spread ids (the arrays' included, wherever the join's rows read them), lookups of other tables
   * aside.
   */
  async function readsOf(statement: Statement | undefined) {
    const plan = await planOf(test, required(statement, "SQL"));
    let spread = 0;
    let blocks = 0;
    // Whether the node's subtree holds the spread and the transfers' scan; the deepest that holds both
    // gives its blocks.
    const walk = (node: PlanNode): { spreads: boolean; scans: boolean } => {
      const isSpread = node["Node Type"] === "Function Scan" && node.Alias === "spread";
      if (isSpread) spread += node["Actual Loops"] ?? 1;
      const below = (node.Plans ?? []).map(walk);
      const spreads = isSpread || below.some((child) => child.spreads);
      const scans = node["Relation Name"] === "token_transfers" || below.some((child) => child.scans);
      if (spreads && scans && !below.some((child) => child.spreads && child.scans))
        blocks = (node["Shared Hit Blocks"] ?? 0) + (node["Shared Read Blocks"] ?? 0);
      return { spreads, scans };
    };
    walk(plan);
    return { spread, blocks };
  }
  const ids = (
    rows: { block_number: number; log_index: number; position: number; token_id: string | null }[],
  ) => rows.map((row) => [row.block_number, row.log_index, row.position, row.token_id]);
  const id = (block: number, log: number, position: number) => [
    block,
    log,
    position,
    String(block * 1_000_000 + log * 10_000 + position),
  ];

  it.each([
    ["the newest", {}, Array.from({ length: 51 }, (_, i) => id(blocks, 2, i + 1)), 1],
    [
      "one inside a batch, near its end",
      { block_number: blocks, index: 2, index_in_batch: batchSize - 10 },
      [
        ...Array.from({ length: 10 }, (_, i) => id(blocks, 2, batchSize - 9 + i)),
        ...Array.from({ length: 41 }, (_, i) => id(blocks, 1, i + 1)),
      ],
      2,
    ],
  ])(
    "a page of the chain's transfers, %s: only the batches it shows are read",
    async (_, cursor, shown, read) => {
      const statements: Statement[] = [];
      const rows = await listTokenTransfers(recording(db, statements), { types: [], cursor, limit: 51 });
      expect(ids(rows)).toEqual(shown);
      const reads = await readsOf(statements[0]);
      expect(reads.spread).toBe(read);
      // The transfers' keys and rows, and the ids shown from a batch's head or, past it, its arrays: 55–63
      // blocks here (59–65 from the arrays alone). Counted from the arrays, each spread row read them again:
      // 171–8,198 blocks.
      expect(reads.blocks).toBeLessThan(120);
    },
  );

  it("a transaction list's previews: each transaction's first batch only, from its head", async () => {
    const newest = Array.from({ length: 50 }, (_, i) => blocks - i);
    const statements: Statement[] = [];
    const rows = await listTokenTransfers(recording(db, statements), {
      transactions: newest.map((block) => ({
        block_number: block,
        index: 0,
        hash: "0x",
        block_hash: "0x",
        timestamp: 0,
        input: "0x",
        to_address: token,
        first_log_index: 0,
        log_count: 3,
      })),
      perTransaction: 11,
      types: [],
      cursor: {},
      limit: newest.length * 11,
    });
    expect(ids(rows)).toEqual(
      newest.flatMap((block) => Array.from({ length: 11 }, (_, i) => id(block, 0, i + 1))),
    );
    const reads = await readsOf(statements[0]);
    expect(reads.spread).toBe(newest.length);
    // The transfers' keys and rows and each batch's head: 250 blocks here. Sliced from the whole arrays, each
    // batch's were read out of line as well: 450.
    expect(reads.blocks).toBeLessThan(350);
  });
});
