import { type MissingValueError, required } from "../required.ts";
import type { RpcFullBlock, RpcReceipt } from "../rpc/types.ts";
import type { InternalTransaction } from "./map-traces.ts";

/** A transaction of a fetched range with what was fetched for it. */
export type RangeTransaction = {
  transaction: RpcFullBlock["transactions"][number];
  /** Its position in the block. */
  index: number;
  receipt: RpcReceipt;
  /** Its frames; null when the range was fetched without a tracer. */
  frames: InternalTransaction[] | null;
};

/** A block of a fetched range with its transactions, each paired with its receipt and frames. */
export type RangeBlock = { block: RpcFullBlock; transactions: RangeTransaction[] };

export type RangeBlocksParameters = {
  blocks: RpcFullBlock[];
  /** `receipts[b][t]`: the receipt of transaction t of block b. */
  receipts: RpcReceipt[][];
  /** `internalTransactions[b][t]`: the frames of transaction t of block b; null or absent without a tracer. */
  internalTransactions?: InternalTransaction[][][] | null;
};

export type RangeBlocksReturnType = RangeBlock[];

export type RangeBlocksErrorType = MissingValueError;

/**
 * Pairs a range's parallel arrays up, block by block and transaction by transaction, so that no reader
 * indexes one array by another's position. validateRange proved a receipt for every transaction and
 * mapTraces a frame list for each, so a missing one is a bug of whoever built the range.
 * @throws {MissingValueError} naming the transaction whose receipt or frames are missing.
 */
export function rangeBlocks({
  blocks,
  receipts,
  internalTransactions = null,
}: RangeBlocksParameters): RangeBlocksReturnType {
  return blocks.map((block, b) => {
    const blockReceipts = required(receipts[b], `the receipts of block ${block.number}`);
    const blockFrames =
      internalTransactions && required(internalTransactions[b], `the traces of block ${block.number}`);
    return {
      block,
      transactions: block.transactions.map((transaction, index) => ({
        transaction,
        index,
        receipt: required(blockReceipts[index], `the receipt of transaction ${transaction.hash}`),
        frames: blockFrames && required(blockFrames[index], `the traces of transaction ${transaction.hash}`),
      })),
    };
  });
}
