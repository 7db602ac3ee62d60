import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiServer } from "../src/api/server.ts";
import { createIndexer } from "../src/indexer/create-indexer.ts";
import { createLogger } from "../src/logger.ts";
import { createRpcClient } from "../src/rpc/client.ts";
import type { RpcFullBlock, RpcReceipt } from "../src/rpc/types.ts";
import { expectBlocksMatch, expectLogsMatch, expectTransactionsMatch } from "./support/compare-with-node.ts";
import {
  createTestDatabase,
  type DatabaseKind,
  databaseKinds,
  fingerprint,
  type TestDatabase,
} from "./support/databases.ts";
import { type ReplayNode, readRecording, startReplayNode } from "./support/replay-node.ts";

const mainnetGenesis = "0xd4e56740f876aef8c010b86a40d5f56745a118d0906a34e69aec8c0db1cb8fa3";
const blockRecording = readRecording("erigon-mainnet/eth_getBlockByNumber__test_08.json");
const receiptsRecording = readRecording("erigon-mainnet/eth_getBlockReceipts__test_02.json");
const block = blockRecording[0].response.result as RpcFullBlock;
const receipts = receiptsRecording[0].response.result as RpcReceipt[];

/** Serves the recorded block from a replay node and indexes it into a new database of `kind`. */
async function replayIntoNewDatabase(kind: DatabaseKind, { withoutBlockReceipts = false } = {}) {
  const node = await startReplayNode({
    chainId: 1,
    genesisHash: mainnetGenesis,
    recordings: [...blockRecording, ...receiptsRecording],
    withoutBlockReceipts,
  });
  const test = await createTestDatabase(kind);
  const indexer = createIndexer({
    client: createRpcClient({ url: node.url }),
    db: test.db,
    logger: createLogger("silent"),
    firstBlock: 18_000_000n,
  });
  await indexer.prepare();
  expect(await indexer.catchUp(18_000_000n)).toBe(18_000_000n);
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

  it("serves every transaction's status and fees as derived from the receipt", async () => {
    const app = await createApiServer({ db: test.db });
    const baseFee = BigInt(block.baseFeePerGas as string);
    for (const [i, transaction] of block.transactions.entries()) {
      const receipt = receipts[i];
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
