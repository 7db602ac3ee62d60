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

  it("rejects receipts that lost their logs, by the logs blooms", () => {
    const { block, receipts } = fresh();
    // The block's last receipt with logs: emptying it keeps the log indexes contiguous.
    const index =
      receipts.length - 1 - [...receipts].reverse().findIndex((receipt) => receipt.logs.length > 0);
    at(receipts, index).logs = [];
    expect(rejects([block], [receipts])).toContain(`receipt ${index} has a logs bloom but no logs`);
    for (const receipt of receipts) {
      receipt.logs = [];
      receipt.logsBloom = `0x${"00".repeat(256)}`;
    }
    expect(rejects([block], [receipts])).toContain(
      "its logs bloom is not empty but its receipts have no logs",
    );
    // A chain that leaves its blooms empty is not held to them.
    block.logsBloom = `0x${"00".repeat(256)}`;
    expect(validateRange({ from, to: from, blocks: [block], receipts: [receipts] }).blocks).toHaveLength(1);
  });

  it("rejects withdrawal indexes that do not increase", () => {
    const { block, receipts } = fresh();
    const withdrawal = { index: "0x10", validatorIndex: "0x1", address: block.miner, amount: "0x1" } as const;
    block.withdrawals = [withdrawal, { ...withdrawal, index: "0x11" }];
    expect(validateRange({ from, to: from, blocks: [block], receipts: [receipts] }).blocks).toHaveLength(1);
    block.withdrawals = [withdrawal, withdrawal];
    expect(rejects([block], [receipts])).toContain("withdrawal 16 does not follow withdrawal 16");
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
      // No transactions, no logs: an empty bloom; and withdrawals of its own (none).
      logsBloom: `0x${"00".repeat(256)}`,
      withdrawals: [],
    } as RpcFullBlock;
    expect(rejects([block, next], [receipts, []], from + 1n)).toContain("parent hash");
    next.parentHash = block.hash as `0x${string}`;
    expect(
      validateRange({ from, to: from + 1n, blocks: [block, next], receipts: [receipts, []] }).blocks,
    ).toHaveLength(2);
    // Some nodes answer null for the receipts of a block without transactions: its list is empty.
    const valid = validateRange({ from, to: from + 1n, blocks: [block, next], receipts: [receipts, null] });
    expect(valid.receipts[1]).toEqual([]);
  });
});
