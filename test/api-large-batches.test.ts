import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiServer } from "../src/api/server.ts";
import { transferPreview } from "../src/api/views/transaction.ts";
import { addressSuffix, transactionPositionSql } from "../src/db/address-transaction-keys.ts";
import { migrate } from "../src/db/migrate.ts";
import { batchHeadItems, deleteAbove } from "../src/db/tables.ts";
import { writeBatchHeads } from "./support/batch-heads.ts";
import { createTestDatabase, databaseKinds, type TestDatabase } from "./support/databases.ts";
import { seedBlocks } from "./support/seed-blocks.ts";

// anvil's demo has no batch larger than a page, so the rows are written directly: one ERC-1155 batch of
// 130 ids between two single transfers, all to one receiver.
const token = "1155000000000000000000000000000000000001";
const sender = "5e00000000000000000000000000000000000001";
const receiver = "4675c7e5baafbffbca748158becba61ef3b0a263";
const batchSize = 130;

type Item = { block_number: number; log_index: number; total: { token_id: string; value: string } };

describe.each(databaseKinds)("a batch larger than a page on %s", (kind) => {
  let test: TestDatabase;
  let app: FastifyInstance;

  beforeAll(async () => {
    test = await createTestDatabase(kind);
    const { db } = test;
    await seedBlocks(db, 1, 3, 1);
    await db.query(
      `INSERT INTO transactions (hash, block_number, index, from_address, to_address, value, nonce, type, gas_limit,
         input, status, gas_used, effective_gas_price, first_log_index, log_count)
       SELECT decode(lpad(to_hex(100 + n), 64, '0'), 'hex'), n, 0, decode($1, 'hex'), decode($2, 'hex'), 0, n, 2,
         100000, '\\x2eb2c2d6', 1, 50000, 1, 0, 1
       FROM generate_series(1, 3) AS n`,
      [sender, token],
    );
    await db.query(
      `INSERT INTO tokens (address, type, first_seen_block, read_at_block) VALUES (decode($1, 'hex'), 'ERC-1155', 1, 1)`,
      [token],
    );
    // Block 1 and block 3: one id each; block 2: ids 1..130 with amounts 1001..1130, in one log.
    await db.query(
      `INSERT INTO token_transfers (block_number, log_index, transaction_index, token_address,
         from_address, to_address, token_type, token_ids, amounts, token_contract_type, item_count)
       SELECT n, 0, 0, decode($1, 'hex'), decode($2, 'hex'),
         decode($3, 'hex'), 'ERC-1155',
         CASE n WHEN 2 THEN ARRAY(SELECT i::numeric FROM generate_series(1, $4::int) AS i) ELSE ARRAY[(1000 + n)::numeric] END,
         CASE n WHEN 2 THEN ARRAY(SELECT (1000 + i)::numeric FROM generate_series(1, $4::int) AS i) ELSE ARRAY[1::numeric] END,
         'ERC-1155', CASE n WHEN 2 THEN $4::int ELSE 1 END
       FROM generate_series(1, 3) AS n`,
      [token, sender, receiver, batchSize],
    );
    // Its first ids and amounts as the writer keeps them: the first page reads them, the next one, past them,
    // the whole arrays.
    await writeBatchHeads(db);
    await db.query(
      `INSERT INTO address_token_transfers (address, block_number, log_index, direction, token_contract_type)
       SELECT side.address, n, 0, side.direction, 'ERC-1155'
       FROM generate_series(1, 3) AS n, (VALUES (decode($1, 'hex'), 1), (decode($2, 'hex'), 2)) AS side(address, direction)`,
      [sender, receiver],
    );
    await db.query(
      `INSERT INTO address_transactions (address_suffix, direction, position, value, fee)
       SELECT decode($1, 'hex'), 1, ${transactionPositionSql("n::bigint", "0")}, 0, 50000 FROM generate_series(1, 3) AS n`,
      [addressSuffix(`0x${sender}`).slice(2)],
    );
    await db.query("INSERT INTO checkpoints (name, block_number) VALUES ('blocks', 3)");
    app = await createApiServer({ db, pageCacheBytes: 0 });
  });
  afterAll(async () => {
    await app?.close();
    await test?.drop();
  });

  /** Every item of a list, following next_page_params as a client would (JSON.parse, then String). */
  async function walk(path: string): Promise<{ items: Item[]; sizes: number[] }> {
    const items: Item[] = [];
    const sizes: number[] = [];
    let params: Record<string, unknown> | null = {};
    while (params) {
      const query = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]));
      const response = await app.inject(`${path}?${query}`);
      expect(response.statusCode).toBe(200);
      const body: { items: Item[]; next_page_params: Record<string, unknown> | null } = JSON.parse(
        response.body,
      );
      items.push(...body.items);
      sizes.push(body.items.length);
      params = body.next_page_params;
    }
    return { items, sizes };
  }

  const expected = [
    { block: 3, id: "1003", value: "1" },
    ...Array.from({ length: batchSize }, (_, i) => ({
      block: 2,
      id: String(i + 1),
      value: String(1001 + i),
    })),
    { block: 1, id: "1001", value: "1" },
  ];

  it.each(["/api/v2/token-transfers", `/api/v2/addresses/0x${receiver}/token-transfers`])(
    "%s lists every id once, in order, resuming inside the batch at each page boundary",
    async (path) => {
      const { items, sizes } = await walk(path);
      expect(sizes).toEqual([50, 50, 32]);
      expect(
        items.map((item) => ({ block: item.block_number, id: item.total.token_id, value: item.total.value })),
      ).toEqual(expected);
    },
  );

  it("previews the first ids of the batch in the transaction list, and says there are more", async () => {
    const body = JSON.parse((await app.inject(`/api/v2/addresses/0x${sender}/transactions`)).body) as {
      items: { block_number: number; token_transfers: Item[]; token_transfers_overflow: boolean }[];
    };
    const batch = body.items.find((item) => item.block_number === 2);
    expect(batch?.token_transfers.map((transfer) => transfer.total.token_id)).toEqual(
      Array.from({ length: transferPreview }, (_, i) => String(i + 1)),
    );
    expect(batch?.token_transfers_overflow).toBe(true);
    const single = body.items.find((item) => item.block_number === 1);
    expect(single?.token_transfers.map((transfer) => transfer.total.token_id)).toEqual(["1001"]);
    expect(single?.token_transfers_overflow).toBe(false);
  });

  it("gives a batch stored before migration 043 its first 64 ids and amounts as its head", async () => {
    await test.db.exec("DROP TABLE token_transfer_heads");
    await test.db.query("DELETE FROM schema_migrations WHERE name = '043_token_transfer_heads.sql'");
    expect((await migrate(test.db)).applied).toEqual(["043_token_transfer_heads.sql"]);
    const first = Array.from({ length: batchHeadItems }, (_, i) => i + 1);
    expect(
      await test.db.query(
        "SELECT block_number, log_index, token_ids::text, amounts::text FROM token_transfer_heads",
      ),
    ).toEqual([
      {
        block_number: 2,
        log_index: 0,
        token_ids: `{${first.join(",")}}`,
        amounts: `{${first.map((i) => 1000 + i).join(",")}}`,
      },
    ]);
  });

  it("lists a batch the same without its head, and takes the head back with its transfer in a reorganization", async () => {
    const paths = ["/api/v2/token-transfers", `/api/v2/addresses/0x${sender}/transactions`];
    const bodies = () => Promise.all(paths.map(async (path) => (await app.inject(path)).body));
    const withHead = await bodies();
    const [head] = await test.db.query<{ token_ids: string; amounts: string }>(
      "DELETE FROM token_transfer_heads RETURNING token_ids::text, amounts::text",
    );
    try {
      expect(await bodies()).toEqual(withHead);
    } finally {
      await test.db.query(
        "INSERT INTO token_transfer_heads (block_number, log_index, token_ids, amounts) VALUES (2, 0, $1, $2)",
        [head?.token_ids, head?.amounts],
      );
    }
    const rolledBack = new Error("rolled back");
    await expect(
      test.db.transaction(async (tx) => {
        await deleteAbove(tx, 1n);
        const [left] = await tx.query<{ heads: number; transfers: number }>(
          `SELECT (SELECT count(*)::int FROM token_transfer_heads) AS heads,
             (SELECT count(*)::int FROM token_transfers WHERE block_number > 1) AS transfers`,
        );
        expect(left).toEqual({ heads: 0, transfers: 0 });
        throw rolledBack;
      }),
    ).rejects.toBe(rolledBack);
  });

  it("refuses a transfer written without its item count, which every list would show as its first id alone", async () => {
    const insert = (columns: string, values: string) =>
      test.db.query(
        `INSERT INTO token_transfers (block_number, log_index, transaction_index, token_address, from_address,
           to_address, token_type, token_ids, amounts, token_contract_type${columns})
         VALUES (3, 1, 0, decode($1, 'hex'), decode($2, 'hex'), decode($3, 'hex'), 'ERC-1155', '{1,2}', '{1,1}',
           'ERC-1155'${values})`,
        [token, sender, receiver],
      );
    await expect(insert("", "")).rejects.toThrow(/item_count/);
    await insert(", item_count", ", 2");
    await test.db.query("DELETE FROM token_transfers WHERE block_number = 3 AND log_index = 1");
  });
});
