import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiServer } from "../src/api/server.ts";
import type { RpcFullBlock, RpcReceipt } from "../src/rpc/types.ts";
import { expectBlocksMatch, expectLogsMatch, expectTransactionsMatch } from "./support/compare-with-node.ts";
import { type DatabaseKind, databaseKinds, fingerprint, type TestDatabase } from "./support/databases.ts";
import { at } from "./support/elements.ts";
import { indexNode } from "./support/index-node.ts";
import { type ReplayNode, startReplayNode } from "./support/replay-node.ts";
import { readRecording } from "./support/rpc-recordings.ts";

const mainnetGenesis = "0xd4e56740f876aef8c010b86a40d5f56745a118d0906a34e69aec8c0db1cb8fa3";
const blockRecording = readRecording("erigon-mainnet/eth_getBlockByNumber__test_08.json");
const receiptsRecording = readRecording("erigon-mainnet/eth_getBlockReceipts__test_02.json");
const block = at(blockRecording, 0).response.result as RpcFullBlock;
const receipts = at(receiptsRecording, 0).response.result as RpcReceipt[];

/** Serves the recorded block from a replay node and indexes it into a new database of `kind`. */
async function replayIntoNewDatabase(kind: DatabaseKind, { withoutBlockReceipts = false } = {}) {
  const node = await startReplayNode({
    chainId: 1,
    genesisHash: mainnetGenesis,
    recordings: [...blockRecording, ...receiptsRecording],
    withoutBlockReceipts,
  });
  const { test, head } = await indexNode(kind, node.url, { firstBlock: 18_000_000n, head: 18_000_000n });
  expect(head).toBe(18_000_000n);
  return { node, test };
}

describe.each(databaseKinds)("mainnet block 18,000,000 replayed into %s", (kind) => {
  let node: ReplayNode;
  let test: TestDatabase;

  beforeAll(async () => {
    ({ node, test } = await replayIntoNewDatabase(kind));
  });
  afterAll(async () => {
    await test?.drop();
    await node?.close();
  });

  it("stores the block, its 94 transactions with receipts, and every log as recorded", async () => {
    expect(block.transactions).toHaveLength(94);
    await expectBlocksMatch(test.db, [block]);
    const rows = await expectTransactionsMatch(test.db, [block], [receipts]);
    expect(rows).toHaveLength(94);
    const logs = await expectLogsMatch(test.db, [receipts]);
    expect(logs.length).toBe(receipts.reduce((sum, receipt) => sum + receipt.logs.length, 0));
  });

  it("indexes the same rows from a node without eth_getBlockReceipts", async () => {
    const { node: bare, test: other } = await replayIntoNewDatabase(kind, { withoutBlockReceipts: true });
    expect(bare.calls.filter((method) => method === "eth_getTransactionReceipt")).toHaveLength(94);
    expect(await fingerprint(other.db)).toEqual(await fingerprint(test.db));
    await other.drop();
    await bare.close();
  });

  it("stores the block's 16 withdrawals with amounts in wei", async () => {
    const rows = await test.db.query<{
      index: number;
      validator_index: number;
      address: string;
      amount: string;
    }>(
      "SELECT index, validator_index, '0x' || encode(address, 'hex') AS address, amount::text AS amount FROM withdrawals ORDER BY index",
    );
    expect(rows).toEqual(
      (block.withdrawals ?? []).map((withdrawal) => ({
        index: Number(withdrawal.index),
        validator_index: Number(withdrawal.validatorIndex),
        address: withdrawal.address.toLowerCase(),
        amount: (BigInt(withdrawal.amount) * 10n ** 9n).toString(),
      })),
    );
    expect(rows).toHaveLength(16);
  });

  it("serves the withdrawals by block number and by hash, highest index first", async () => {
    const app = await createApiServer({ db: test.db });
    const byNumber = await app.inject("/api/v2/blocks/18000000/withdrawals");
    const byHash = await app.inject(
      `/api/v2/blocks/${block.hash?.toUpperCase().replace("0X", "0x")}/withdrawals`,
    );
    expect(byNumber.statusCode).toBe(200);
    expect(byHash.json()).toEqual(byNumber.json());
    const { items, next_page_params } = byNumber.json();
    expect(next_page_params).toBeNull();
    const withdrawals = [...(block.withdrawals ?? [])].reverse();
    expect(items).toHaveLength(16);
    items.forEach((item: Record<string, unknown> & { receiver: { hash: string } }, i: number) => {
      const withdrawal = at(withdrawals, i);
      expect(item).toMatchObject({
        index: Number(withdrawal.index),
        validator_index: Number(withdrawal.validatorIndex),
        amount: (BigInt(withdrawal.amount) * 10n ** 9n).toString(),
        block_number: 18_000_000,
        timestamp: new Date(Number(block.timestamp) * 1000).toISOString().replace(".000Z", ".000000Z"),
      });
      expect(item.receiver.hash.toLowerCase()).toBe(withdrawal.address.toLowerCase());
      expect(item.receiver.hash).not.toBe(item.receiver.hash.toLowerCase());
    });
    const receiver = at(withdrawals, 0).address;
    const byAddress = (await app.inject(`/api/v2/addresses/${receiver}/withdrawals`)).json();
    expect(byAddress.items.map((item: { index: number }) => item.index)).toEqual(
      withdrawals.filter((w) => w.address === receiver).map((w) => Number(w.index)),
    );
    const afterCursor = (
      await app.inject(`/api/v2/blocks/18000000/withdrawals?index=${items[9].index}&items_count=50`)
    ).json();
    expect(afterCursor.items).toEqual(items.slice(10));
    await app.close();
  });

  it("answers 404 for a block that is not indexed and 422 for a malformed one", async () => {
    const app = await createApiServer({ db: test.db });
    for (const missing of ["18000001", "17999999", `0x${"ab".repeat(32)}`, "99999999999999999999999"]) {
      const response = await app.inject(`/api/v2/blocks/${missing}/withdrawals`);
      expect(response.statusCode, missing).toBe(404);
      expect(response.json()).toEqual({ message: "Not found" });
    }
    for (const malformed of ["0x123123", "123qwe"]) {
      const response = await app.inject(`/api/v2/blocks/${malformed}/withdrawals`);
      expect(response.statusCode).toBe(422);
      const pointer = { pointer: "/block_hash_or_number_param" };
      expect(response.json()).toEqual({
        errors: [
          {
            title: "Invalid value",
            source: pointer,
            detail:
              'Failed to cast value using any of: Schema(title: "FullHash", type: :string), Schema(type: :integer)',
          },
          { title: "Invalid value", source: pointer, detail: "Invalid integer. Got: string" },
          {
            title: "Invalid value",
            source: pointer,
            detail: "Invalid format. Expected ~r/^0x([A-Fa-f0-9]{64})$/",
          },
        ],
      });
    }
    const unknownAddress = await app.inject(
      "/api/v2/addresses/0x000000000000000000000000000000000000dEaD/withdrawals",
    );
    expect(unknownAddress.json()).toEqual({ items: [], next_page_params: null });
    await app.close();
  });

  it("serves every transaction's status and fees as derived from the receipt", async () => {
    const app = await createApiServer({ db: test.db });
    const baseFee = BigInt(block.baseFeePerGas as string);
    for (const [i, transaction] of block.transactions.entries()) {
      const receipt = at(receipts, i);
      const response = await app.inject(`/api/v2/addresses/${transaction.from}/transactions`);
      expect(response.statusCode).toBe(200);
      const item = response
        .json()
        .items.find((candidate: { hash: string }) => candidate.hash === transaction.hash);
      expect(item, transaction.hash).toBeDefined();
      const gasUsed = BigInt(receipt.gasUsed);
      const price = BigInt(receipt.effectiveGasPrice as string);
      expect(item.status).toBe(receipt.status === "0x1" ? "ok" : "error");
      expect(item.fee).toEqual({ type: "actual", value: (gasUsed * price).toString() });
      expect(item.gas_price).toBe(price.toString());
      expect(item.gas_used).toBe(gasUsed.toString());
      expect(item.gas_limit).toBe(Number(transaction.gas));
      expect(item.transaction_burnt_fee).toBe((baseFee * gasUsed).toString());
      const tx = transaction as typeof transaction & { maxFeePerGas?: string; maxPriorityFeePerGas?: string };
      if (tx.maxPriorityFeePerGas && tx.maxFeePerGas) {
        const tip = BigInt(tx.maxPriorityFeePerGas);
        const room = BigInt(tx.maxFeePerGas) - baseFee;
        expect(item.priority_fee).toBe(((tip < room ? tip : room) * gasUsed).toString());
        // What the sender paid per gas is the base fee plus the tip it got.
        expect(price).toBe(baseFee + (tip < room ? tip : room));
      } else {
        expect(item.priority_fee).toBeNull();
      }
      expect(item.block_number).toBe(18_000_000);
      expect(item.timestamp).toBe(
        new Date(Number(block.timestamp) * 1000).toISOString().replace(".000Z", ".000000Z"),
      );
    }
    await app.close();
  });
});
