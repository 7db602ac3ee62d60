import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSyntheticChain, type SyntheticChain } from "../bench/dataset/synthetic-chain.ts";
import { createSyntheticNode } from "../bench/dataset/synthetic-node.ts";
import { byteaParam } from "../src/db/table-rows.ts";
import { createIndexer } from "../src/indexer/create-indexer.ts";
import { createLogger } from "../src/logger.ts";
import { RpcResponseError } from "../src/rpc/errors.ts";
import { addressLinkMismatches, chainMismatches } from "./support/compare-with-node.ts";
import { createTestDatabase, databaseKinds, type TestDatabase } from "./support/databases.ts";
import { only } from "./support/elements.ts";
import { tokenCounterMismatches } from "./support/token-ledger.ts";

// The API benchmark's 10 M dataset takes an hour to build: a change to what the indexer asks a node must
// not be found to break the synthetic node only then. A small chain of the same generator goes through
// the same indexer here, and what is stored must be the shape the generator promises.
describe.each(databaseKinds)("the benchmark's synthetic chain indexed on %s", (kind) => {
  let chain: SyntheticChain;
  let test: TestDatabase;

  beforeAll(async () => {
    chain = createSyntheticChain({ transactions: 3_000 });
    test = await createTestDatabase(kind);
    const indexer = createIndexer({
      client: createSyntheticNode(chain),
      db: test.db,
      logger: createLogger("warn"),
      rangeSize: 10,
      tracer: "parity",
    });
    await indexer.prepare();
    await indexer.catchUp(BigInt(chain.head));
  });

  afterAll(async () => {
    await test?.drop();
  });

  const count = async (sql: string, params: unknown[] = []) =>
    only(await test.db.query<{ count: number }>(`SELECT count(*)::int AS count FROM ${sql}`, params)).count;

  it("stores every block and transaction, the hot address in its share of them", async () => {
    expect(await count("blocks")).toBe(chain.shape.blocks);
    expect(await count("transactions")).toBe(chain.shape.transactions);
    const hot = chain.addresses.hot.toLowerCase();
    let served = 0;
    for (let n = 0; n <= chain.head; n++) {
      for (const { from, to } of chain.block(n).block.transactions)
        if (from.toLowerCase() === hot || to?.toLowerCase() === hot) served++;
    }
    // The shape's figure leaves out the few ERC-721 ids the hot address mints itself.
    expect(served).toBeGreaterThanOrEqual(chain.shape.hotAddressTransactions);
    expect(await count("transactions WHERE $1 IN (from_address, to_address)", [byteaParam(hot)])).toBe(
      served,
    );
  });

  it("keeps the tokens' transfers, holders, ids and supplies read at their block", async () => {
    const token = async (address: string) =>
      only(
        await test.db.query<{ holders_count: string; total_supply: string | null; type: string }>(
          "SELECT holders_count::text, total_supply::text, type FROM tokens WHERE address = $1",
          [byteaParam(address)],
        ),
      );
    const erc20 = await token(chain.addresses.erc20);
    expect(erc20.type).toBe("ERC-20");
    // The shape counts the claims and the holders' transfers; the hot address's payouts come on top.
    expect(Number(erc20.holders_count)).toBe(
      await count("token_balances WHERE token_address = $1 AND value > 0", [
        byteaParam(chain.addresses.erc20),
      ]),
    );
    expect(Number(erc20.holders_count)).toBeGreaterThan(chain.shape.erc20Holders);
    expect(
      await count("token_transfers WHERE token_address = $1", [byteaParam(chain.addresses.erc20)]),
    ).toBeGreaterThan(chain.shape.erc20Transfers);
    const erc721 = await token(chain.addresses.erc721);
    expect(erc721.type).toBe("ERC-721");
    // The supply is an eth_call the node answers at the block the indexer names (by its hash).
    expect(erc721.total_supply).toBe(String(chain.shape.erc721Ids));
    expect(
      await count("token_instances WHERE token_address = $1", [byteaParam(chain.addresses.erc721)]),
    ).toBe(chain.shape.erc721Ids);
    expect(
      await count("token_instances WHERE token_address = $1", [byteaParam(chain.addresses.erc1155)]),
    ).toBe(chain.shape.erc1155Ids);
    expect((await token(chain.addresses.erc404)).type).toBe("ERC-404");
  });

  it("keeps every holder counter equal to the balances it counts", async () => {
    expect(await count("token_balances WHERE token_id >= 0")).toBeGreaterThan(0);
    expect(await tokenCounterMismatches(test.db)).toEqual({ tokens: [], holdings: [], instances: [] });
  });

  it("stores every block, transaction, receipt, log, frame and token transfer as the node answers it, and each address link", async () => {
    const { compared, mismatches } = await chainMismatches(
      test.db,
      createSyntheticNode(chain),
      BigInt(chain.head),
    );
    expect(mismatches).toEqual([]);
    expect(compared.transactions).toBe(chain.shape.transactions);
    expect(compared.logs).toBeGreaterThan(0);
    expect(compared.withdrawals).toBeGreaterThan(0);
    expect(compared.frames).toBe(await count("internal_transactions"));
    expect(compared.frames).toBeGreaterThan(0);
    expect(compared.tokenTransfers).toBe(await count("token_transfers"));
    expect(compared.tokenTransfers).toBeGreaterThan(0);
    // The hot address's mint batches of 100 ids: each with its head, compared above.
    expect(await count("token_transfer_heads")).toBe(await count("token_transfers WHERE item_count > 64"));
    expect(await count("token_transfer_heads")).toBeGreaterThan(0);
    expect(await count("address_internal_transactions")).toBeGreaterThan(0);
    expect(await addressLinkMismatches(test.db)).toEqual([]);
    // A changed and a lost withdrawal, in a transaction rolled back.
    const rolledBack = new Error("rolled back");
    const changed = test.db.transaction(async (tx) => {
      await tx.query("UPDATE withdrawals SET amount = amount + 1 WHERE index = 0");
      await tx.query("DELETE FROM withdrawals WHERE index = 1");
      // A batch's head changed, and a head left over from a transfer that is gone.
      const [head] = await tx.query<{ key: string }>(
        `UPDATE token_transfer_heads SET amounts[1] = amounts[1] + 1
         WHERE (block_number, log_index) = (SELECT block_number, log_index FROM token_transfer_heads
           ORDER BY block_number, log_index LIMIT 1)
         RETURNING block_number || ':' || log_index AS key`,
      );
      await tx.query(
        `INSERT INTO token_transfer_heads (block_number, log_index, token_ids, amounts)
         VALUES (1, 9999, '{1}', '{1}')`,
      );
      const { mismatches: found } = await chainMismatches(tx, createSyntheticNode(chain), BigInt(chain.head));
      expect(found.map(({ where, field }) => `${where} ${field}`).sort()).toEqual([
        `token transfer head ${head?.key} amounts`,
        "token transfer head 1:9999 row",
        "withdrawal 0 amount",
        "withdrawal 1 row",
      ]);
      throw rolledBack;
    });
    await expect(changed).rejects.toBe(rolledBack);
  });

  it("refuses a state read at a block hash it does not have", async () => {
    const node = createSyntheticNode(chain);
    const known = chain.blockHash(1);
    const unknown = `${known.slice(0, -9)}${known.at(-9) === "0" ? "1" : "0"}${known.slice(-8)}`;
    const call = (blockHash: string) =>
      node.request("eth_call", [{ to: chain.addresses.erc721, data: "0x18160ddd" }, { blockHash }]);
    await expect(call(known)).resolves.toMatch(/^0x/);
    await expect(call(unknown)).rejects.toBeInstanceOf(RpcResponseError);
  });
});
