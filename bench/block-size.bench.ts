/**
 * `npm run bench:blocks`: what the logs and token transfers of a page of transactions cost to read as
 * blocks grow. A busy address has a transaction in each of 50 blocks; its page (endpoint 2, and each
 * summary, endpoint 7) reads those transactions' logs and transfers, and that should cost the same in
 * blocks of 20 transactions as in blocks of 2,000.
 *
 * In a scratch database on the PostgreSQL server of DATABASE_URL (created, then dropped), with Sextant's
 * schema: for each size in BENCH_BLOCK_SIZES (transactions a block, default 20,200,2000), 60 blocks whose
 * every transaction has two logs, the first of them an ERC-20 transfer. The page: the middle transaction of
 * 50 blocks. Then, in turn, BENCH_SAMPLES times (default 300):
 * - raw SQL (the baseline): the page's logs, then its transfers, each read by its known key (block
 *   number, log index) in one statement;
 * - Sextant: `listTransactionLogs`, then `listTokenTransfers` with the transactions (the preview of the
 *   transaction list, token and instance included).
 * Prints the p50 of each and the ratio Sextant / raw SQL per block size: flat when the cost follows the
 * page.
 */
import { openDatabase } from "../src/db/client.ts";
import { migrate } from "../src/db/migrate.ts";
import { listTokenTransfers } from "../src/db/queries/token-transfers.ts";
import { listTransactionLogs } from "../src/db/queries/transaction-logs.ts";
import { load, median } from "./figures.ts";
import { createScratchDatabase } from "./scratch-database.ts";

const serverUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const sizes = (process.env.BENCH_BLOCK_SIZES ?? "20,200,2000").split(",").map(Number);
const samples = Number(process.env.BENCH_SAMPLES ?? 300);
const blocksPerSize = 60;
const pageSize = 50;
const logsPerTransaction = 2;
const token = "0x7e57000000000000000000000000000000000001";
// Each transaction's two logs: an ERC-20 Transfer, then a pair's Sync; a page asks for both events.
const logTopics = [
  "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef",
  "0x1c411e9a96e071241c2f21f7726b17ae89e3cab4c78be50e062b03a9fffbbad1",
];
const database = "sextant_bench_block_size";

const scratch = await createScratchDatabase(serverUrl, database);
const db = await openDatabase({ databaseUrl: scratch.url });
try {
  await migrate(db);
  const tokenBytes = `'\\x${token.slice(2)}'::bytea`;
  await db.exec(
    `INSERT INTO tokens (address, type, first_seen_block, read_at_block) VALUES (${tokenBytes}, 'ERC-20', 0, 0)`,
  );
  // Each size's blocks after the previous size's.
  const firstBlocks = sizes.map((_, i) => 1 + i * blocksPerSize);
  for (const [i, size] of sizes.entries()) {
    const first = firstBlocks[i] as number;
    await db.exec(`INSERT INTO logs (block_number, log_index, transaction_index, address, topic0, topic1, topic2, data)
      SELECT b, t * ${logsPerTransaction} + k, t, ${tokenBytes},
        CASE k WHEN 0 THEN '\\x${logTopics[0]?.slice(2)}'::bytea ELSE '\\x${logTopics[1]?.slice(2)}'::bytea END,
        ${tokenBytes}, ${tokenBytes}, '\\x01'::bytea
      FROM generate_series(${first}, ${first + blocksPerSize - 1}) b, generate_series(0, ${size - 1}) t,
        generate_series(0, ${logsPerTransaction - 1}) k`);
    await db.exec(`INSERT INTO token_transfers (block_number, log_index, transaction_index,
        token_address, from_address, to_address, token_type, token_ids, amounts, token_contract_type, item_count)
      SELECT block_number, log_index, transaction_index,
        address, address, address, 'ERC-20', '{}', '{1}', 'ERC-20', 1
      FROM logs WHERE block_number BETWEEN ${first} AND ${first + blocksPerSize - 1} AND log_index % ${logsPerTransaction} = 0`);
  }
  await db.exec("VACUUM ANALYZE logs");
  await db.exec("VACUUM ANALYZE token_transfers");

  console.log(
    `\n## Logs and transfers of a page of ${pageSize} transactions in ${pageSize} blocks (PostgreSQL, ${samples} samples each, load ${load()})\n`,
  );
  console.log(
    "| transactions a block | logs a block | rows read by the page | raw SQL p50 (ms) | Sextant p50 (ms) | Sextant / raw SQL |",
  );
  console.log("| ---: | ---: | ---: | ---: | ---: | ---: |");
  for (const [i, size] of sizes.entries()) {
    const first = firstBlocks[i] as number;
    const index = Math.floor(size / 2);
    const page = Array.from({ length: pageSize }, (_, n) => ({
      block_number: first + n,
      index,
      first_log_index: index * logsPerTransaction,
      log_count: logsPerTransaction,
      hash: `0x${"00".repeat(32)}`,
      block_hash: `0x${"00".repeat(32)}`,
      timestamp: 0,
      input: "0x",
      to_address: null,
    }));
    const logKeys = page.flatMap((transaction) =>
      Array.from({ length: logsPerTransaction }, (_, k) => [
        transaction.block_number,
        transaction.first_log_index + k,
      ]),
    );
    const transferKeys = page.map((transaction) => [transaction.block_number, transaction.first_log_index]);
    const byKeys = (table: string, keys: number[][]) =>
      db.query(
        `SELECT x.* FROM unnest($1::int8[], $2::int4[]) AS k(block_number, log_index)
         JOIN ${table} x ON x.block_number = k.block_number AND x.log_index = k.log_index`,
        [keys.map((key) => key[0]), keys.map((key) => key[1])],
      );
    const raw = async () => [
      ...(await byKeys("logs", logKeys)),
      ...(await byKeys("token_transfers", transferKeys)),
    ];
    const sextant = async () => [
      ...(await listTransactionLogs(db, { transactions: page, events: [{ topic0s: logTopics }] })),
      ...(await listTokenTransfers(db, {
        transactions: page,
        perTransaction: 11,
        types: [],
        cursor: {},
        limit: page.length * 11,
      })),
    ];
    const rows = [(await raw()).length, (await sextant()).length];
    if (rows[0] !== rows[1]) throw new Error(`raw SQL read ${rows[0]} rows, Sextant ${rows[1]}`);
    const times = { raw: [] as number[], sextant: [] as number[] };
    for (let n = 0; n < samples + 20; n++) {
      for (const side of ["raw", "sextant"] as const) {
        const started = performance.now();
        await (side === "raw" ? raw() : sextant());
        if (n >= 20) times[side].push(performance.now() - started);
      }
    }
    const [rawMs, sextantMs] = [median(times.raw), median(times.sextant)];
    console.log(
      `| ${size.toLocaleString("en-US")} | ${(size * logsPerTransaction).toLocaleString("en-US")} | ${rows[0]} | ${rawMs.toFixed(2)} | ${sextantMs.toFixed(2)} | ${(sextantMs / rawMs).toFixed(2)} |`,
    );
  }
} finally {
  await db.close();
  await scratch.drop();
}
