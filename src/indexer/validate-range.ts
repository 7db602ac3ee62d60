import type { Hex } from "viem";
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
 * with matching hashes and indexes, log indexes contiguous across each block, logs behind every bloom
 * that has bits set, and withdrawal indexes increasing.
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
  let lastWithdrawal: bigint | null = null;
  const validReceipts: RpcReceipt[][] = [];
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
    validReceipts.push(blockReceipts);
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
      if (receipt.logs.length === 0 && bloomHasBits(receipt.logsBloom))
        throw invalid(`block ${number}: receipt ${t} has a logs bloom but no logs`);
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
    // An answer that lost a receipt's logs, or all of a block's, shows in the blooms, which then still
    // have bits set. (Checking each bit against the logs would catch a lost log among others too, but
    // hashing every address and topic cost 4–6 ms for a mainnet block of 291 logs.)
    if (bloomHasBits(block.logsBloom) && logIndex === 0)
      throw invalid(`block ${number}: its logs bloom is not empty but its receipts have no logs`);
    for (const withdrawal of block.withdrawals ?? []) {
      const index = BigInt(withdrawal.index);
      if (lastWithdrawal !== null && index <= lastWithdrawal)
        throw invalid(`block ${number}: withdrawal ${index} does not follow withdrawal ${lastWithdrawal}`);
      lastWithdrawal = index;
    }
  }
  return { blocks: blocks as RpcFullBlock[], receipts: validReceipts };
}

/** Whether a logs bloom has a bit set: some log must then stand behind it. */
function bloomHasBits(logsBloom: Hex | null | undefined): boolean {
  return logsBloom != null && !/^0x0*$/.test(logsBloom);
}

function invalid(message: string): RpcInvalidAnswerError {
  return new RpcInvalidAnswerError(message);
}
