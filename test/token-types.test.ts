import { describe, expect, it } from "vitest";
import type { Database } from "../src/db/client.ts";
import { Direction } from "../src/db/direction.ts";
import { createRangeRows, deleteAbove, insertTable } from "../src/db/tables.ts";
import { applyTokenBalanceChanges } from "../src/db/token-balances.ts";
import { storeTokensAndTypes } from "../src/db/token-types.ts";
import { readKnownTokens } from "../src/db/tokens.ts";
import { createTestDatabase, databaseKinds } from "./support/databases.ts";

const token = "0x00000000000000000000000000000000000000aa";
const alice = "0x00000000000000000000000000000000000000a1";
const bob = "0x00000000000000000000000000000000000000b0";

/** The range rows storeTokensAndTypes reads: one transfer of `token` at `block` and the token's row. */
function rangeOf(block: number, form: string, type: string) {
  const rows = createRangeRows();
  rows.tokenTransfers.push({
    block_number: block,
    log_index: 0,
    transaction_index: 0,
    token_address: token,
    from_address: alice,
    to_address: bob,
    token_type: form,
    token_ids: form === "ERC-20" ? [] : [7n],
    amounts: form === "ERC-721" ? [] : [5n],
    token_contract_type: null,
    item_count: 1,
  });
  for (const [address, direction] of [
    [alice, Direction.from],
    [bob, Direction.to],
  ] as const) {
    rows.addressTokenTransfers.push({
      address,
      block_number: block,
      log_index: 0,
      direction,
      token_contract_type: null,
    });
  }
  rows.tokens.push({
    address: token,
    type,
    name: null,
    symbol: null,
    decimals: null,
    total_supply: null,
    first_seen_block: block,
    read_at_block: -1,
    promoted_at_block: null,
    type_before_promotion: null,
  });
  return rows;
}

/** Writes `rangeOf`'s rows as the writer does: types first, then the transfers, then the balances. */
async function writeRangeOf(db: Database, block: number, form: string, type: string) {
  await db.transaction(async (tx) => {
    const rows = rangeOf(block, form, type);
    await storeTokensAndTypes(tx, rows);
    await insertTable(tx, "tokenTransfers", rows.tokenTransfers);
    await insertTable(tx, "addressTokenTransfers", rows.addressTokenTransfers);
    await applyTokenBalanceChanges(tx, BigInt(block), BigInt(block), 1);
  });
}

// Endpoints 8 and 13 filter on the type stamped on each transfer row (endpoint 1 on each balance's): it must follow tokens.type, also
// when a later range turns an ERC-20 into an ERC-404, and when a reorganization takes that back.
describe.each(databaseKinds)("token types on transfer rows on %s", (kind) => {
  it("stamps new rows with the stored type and restamps a token's rows when its type changes, and back", async () => {
    const test = await createTestDatabase(kind);
    try {
      const types = async () =>
        test.db.query<{ table: string; type: string; rows: number }>(
          `SELECT 'transfers' AS table, token_contract_type AS type, count(*)::int AS rows FROM token_transfers GROUP BY 2
           UNION ALL
           SELECT 'links', token_contract_type, count(*)::int FROM address_token_transfers GROUP BY 2
           UNION ALL
           SELECT 'balances', token_contract_type, count(*)::int FROM token_balances GROUP BY 2 ORDER BY 1, 2`,
        );
      for (const [block, form, type] of [
        [1, "ERC-20", "ERC-20"],
        [2, "ERC-20", "ERC-20"],
      ] as const) {
        await writeRangeOf(test.db, block, form, type);
      }
      expect(await types()).toEqual([
        { table: "balances", type: "ERC-20", rows: 2 },
        { table: "links", type: "ERC-20", rows: 4 },
        { table: "transfers", type: "ERC-20", rows: 2 },
      ]);
      // An ERC-721 Transfer from the same contract: it is an ERC-404, and so are its earlier transfers.
      await writeRangeOf(test.db, 3, "ERC-721", "ERC-721");
      // Alice's and Bob's fungible balances and now id 7's (-1 and +1).
      expect(await types()).toEqual([
        { table: "balances", type: "ERC-404", rows: 4 },
        { table: "links", type: "ERC-404", rows: 6 },
        { table: "transfers", type: "ERC-404", rows: 3 },
      ]);
      const token = async () =>
        test.db.query("SELECT type, promoted_at_block::int, type_before_promotion FROM tokens");
      expect(await token()).toEqual([
        { type: "ERC-404", promoted_at_block: 3, type_before_promotion: "ERC-20" },
      ]);

      // A reorganization that orphans block 2 keeps the promotion; one that orphans block 3 takes it back.
      await test.db.transaction((tx) => deleteAbove(tx, 3n));
      expect(await token()).toEqual([
        { type: "ERC-404", promoted_at_block: 3, type_before_promotion: "ERC-20" },
      ]);
      await test.db.transaction((tx) => deleteAbove(tx, 2n));
      expect(await token()).toEqual([
        { type: "ERC-20", promoted_at_block: null, type_before_promotion: null },
      ]);
      expect(await types()).toEqual([
        { table: "balances", type: "ERC-20", rows: 2 },
        { table: "links", type: "ERC-20", rows: 4 },
        { table: "transfers", type: "ERC-20", rows: 2 },
      ]);
    } finally {
      await test.drop();
    }
  });

  it("makes a token ERC-1155 when a later range has its ERC-1155 events, as one range with all would", async () => {
    const test = await createTestDatabase(kind);
    try {
      const stamps = async () =>
        test.db.query<{ type: string }>(
          `SELECT DISTINCT token_contract_type AS type FROM token_transfers
           UNION SELECT DISTINCT token_contract_type FROM address_token_transfers
           UNION SELECT DISTINCT token_contract_type FROM token_balances
           UNION SELECT DISTINCT token_contract_type FROM token_holders ORDER BY 1`,
        );
      const holdings = async () => (await test.db.query("SELECT 1 FROM token_holders")).length;
      const stored = async () =>
        test.db.query("SELECT type, promoted_at_block::int, type_before_promotion FROM tokens");
      for (const [block, form, type] of [
        [1, "ERC-20", "ERC-20"],
        [2, "ERC-721", "ERC-721"],
        [3, "ERC-1155", "ERC-1155"],
        [4, "ERC-20", "ERC-20"],
      ] as const) {
        await writeRangeOf(test.db, block, form, type);
      }
      // ERC-404 at block 2, ERC-1155 at block 3; an ERC-20 Transfer after it changes nothing.
      expect(await stored()).toEqual([
        { type: "ERC-1155", promoted_at_block: 3, type_before_promotion: "ERC-404" },
      ]);
      expect(await stamps()).toEqual([{ type: "ERC-1155" }]);
      expect(await holdings()).toBeGreaterThan(0);
      // What a range that replaces the blocks above 2 is judged against: the type the token had at 2.
      expect(await readKnownTokens(test.db, [token])).toEqual(new Map([[token, "ERC-1155"]]));
      expect(await readKnownTokens(test.db, [token], 2n)).toEqual(new Map([[token, "ERC-404"]]));
      // A reorganization that orphans block 3 gives the token its type before it back.
      await test.db.transaction((tx) => deleteAbove(tx, 2n));
      expect(await stored()).toEqual([
        { type: "ERC-404", promoted_at_block: null, type_before_promotion: null },
      ]);
      expect(await stamps()).toEqual([{ type: "ERC-404" }]);
      expect(await holdings()).toBeGreaterThan(0);
    } finally {
      await test.drop();
    }
  });
});
