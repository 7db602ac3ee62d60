import { RpcInvalidAnswerError } from "../rpc/errors.ts";
import type { RpcFullBlock, RpcReceipt } from "../rpc/types.ts";

export type ValidateRangeParameters = {
  from: bigint;
  to: bigint;
  blocks: (RpcFullBlock | null)[];
  receipts: (RpcReceipt[] | null)[];
};

export type ValidateRangeReturnType = { blocks: RpcFullBlock[]; receipts: RpcReceipt[][] };

/**
 * Checks that the node's answers for a range describe one consistent chain segment before anything is
 * stored: every block present with the asked number, each block's parent hash equal to the previous
 * block's hash, transactions belonging to their block in order, exactly one receipt per transaction
 * with matching hashes and indexes, and log indexes contiguous across each block.
 * @throws {RpcInvalidAnswerError} naming the first inconsistency; the caller refetches.
 */
export function validateRange({
  from,
  to,
  blocks,
  receipts,
}: ValidateRangeParameters): ValidateRangeReturnType {
  const expected = Number(to - from) + 1;
  if (blocks.length !== expected || receipts.length !== expected) {
    throw invalid(
      `asked for ${expected} blocks, got ${blocks.length} blocks and ${receipts.length} receipt lists`,
    );
  }
  for (let i = 0; i < expected; i++) {
    const number = from + BigInt(i);
    const block = blocks[i];
    if (!block) throw invalid(`node has no block ${number} yet`);
    if (!block.hash || BigInt(block.number ?? -1) !== number)
      throw invalid(`block ${number}: answer is for block ${block.number}`);
    const previous = blocks[i - 1];
    if (previous && block.parentHash !== previous.hash) {
      throw invalid(
        `block ${number}: parent hash ${block.parentHash} is not block ${number - 1n}'s hash ${previous.hash}`,
      );
    }
    block.transactions.forEach((transaction, t) => {
      if (transaction.blockHash !== block.hash || Number(transaction.transactionIndex) !== t) {
        throw invalid(`block ${number}: transaction ${transaction.hash} is not at index ${t} of this block`);
      }
    });
    // Some nodes answer null rather than [] for a block without transactions.
    const blockReceipts = block.transactions.length === 0 ? (receipts[i] ?? []) : receipts[i];
    if (!blockReceipts) throw invalid(`block ${number}: node has no receipts for ${block.hash}`);
    if (blockReceipts.length !== block.transactions.length) {
      throw invalid(
        `block ${number}: ${block.transactions.length} transactions but ${blockReceipts.length} receipts`,
      );
    }
    let logIndex = 0;
    blockReceipts.forEach((receipt, t) => {
      const transaction = block.transactions[t];
      if (
        transaction === undefined ||
        receipt.transactionHash !== transaction.hash ||
        receipt.blockHash !== block.hash ||
        Number(receipt.transactionIndex) !== t
      ) {
        throw invalid(
          `block ${number}: receipt ${t} (${receipt.transactionHash}) does not match transaction ${transaction?.hash}`,
        );
      }
      for (const log of receipt.logs) {
        if (
          Number(log.logIndex) !== logIndex ||
          log.transactionHash !== transaction.hash ||
          log.blockHash !== block.hash
        ) {
          throw invalid(
            `block ${number}: log ${log.logIndex} of ${receipt.transactionHash} breaks the block's log sequence at ${logIndex}`,
          );
        }
        logIndex++;
      }
    });
  }
  return { blocks: blocks as RpcFullBlock[], receipts: receipts as RpcReceipt[][] };
}

function invalid(message: string): RpcInvalidAnswerError {
  return new RpcInvalidAnswerError(message);
}
