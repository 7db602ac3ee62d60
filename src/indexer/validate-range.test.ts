import { describe, expect, it } from "vitest";
import { at } from "../../test/support/elements.ts";
import { recordedResult } from "../../test/support/rpc-recordings.ts";
import { RpcInvalidAnswerError } from "../rpc/errors.ts";
import type { RpcFullBlock, RpcReceipt } from "../rpc/types.ts";
import { validateRange } from "./validate-range.ts";

const fresh = () => ({
  block: recordedResult<RpcFullBlock>("erigon-mainnet/eth_getBlockByNumber__test_08.json"),
  receipts: recordedResult<RpcReceipt[]>("erigon-mainnet/eth_getBlockReceipts__test_02.json"),
});
const from = 18_000_000n;

function rejects(blocks: (RpcFullBlock | null)[], receipts: (RpcReceipt[] | null)[], to = from): string {
  try {
    validateRange({ from, to, blocks, receipts });
  } catch (error) {
    expect(error).toBeInstanceOf(RpcInvalidAnswerError);
    return (error as Error).message;
  }
  throw new Error("validateRange accepted an inconsistent answer");
}

describe("validateRange on mainnet block 18,000,000", () => {
  it("accepts the recorded block and receipts", () => {
    const { block, receipts } = fresh();
    expect(validateRange({ from, to: from, blocks: [block], receipts: [receipts] }).receipts[0]).toHaveLength(
      94,
    );
  });

  it("rejects a missing block and missing receipts", () => {
    const { block } = fresh();
    expect(rejects([null], [[]])).toContain("has no block");
    expect(rejects([block], [null])).toContain("no receipts");
  });

  it("rejects a block answered for another number", () => {
    const { block, receipts } = fresh();
    block.number = "0x112a881";
    expect(rejects([block], [receipts])).toContain("answer is for block");
  });

  it("rejects one receipt too few", () => {
    const { block, receipts } = fresh();
    expect(rejects([block], [receipts.slice(0, -1)])).toContain("94 transactions but 93 receipts");
  });

  it("rejects receipts out of order", () => {
    const { block, receipts } = fresh();
    [receipts[3], receipts[4]] = [at(receipts, 4), at(receipts, 3)];
    expect(rejects([block], [receipts])).toContain("does not match transaction");
  });

  it("rejects a receipt from another block", () => {
    const { block, receipts } = fresh();
    at(receipts, 10).blockHash = `0x${"11".repeat(32)}`;
    expect(rejects([block], [receipts])).toContain("receipt 10");
  });

  it("rejects a gap in the block's log indexes", () => {
    const { block, receipts } = fresh();
    const withLogs = receipts.find((receipt) => receipt.logs.length > 1) as RpcReceipt;
    withLogs.logs.splice(0, 1);
    expect(rejects([block], [receipts])).toContain("breaks the block's log sequence");
  });

  it("rejects a transaction that names another block", () => {
    const { block, receipts } = fresh();
    at(block.transactions, 5).blockHash = `0x${"22".repeat(32)}`;
    expect(rejects([block], [receipts])).toContain("is not at index 5");
  });

  it("rejects a next block whose parent is not the previous block", () => {
    const { block, receipts } = fresh();
    const next = {
      ...block,
      number: "0x112a881",
      hash: `0x${"33".repeat(32)}`,
      parentHash: `0x${"44".repeat(32)}`,
      transactions: [],
    } as RpcFullBlock;
    expect(rejects([block, next], [receipts, []], from + 1n)).toContain("parent hash");
    next.parentHash = block.hash as `0x${string}`;
    expect(
      validateRange({ from, to: from + 1n, blocks: [block, next], receipts: [receipts, []] }).blocks,
    ).toHaveLength(2);
  });
});
