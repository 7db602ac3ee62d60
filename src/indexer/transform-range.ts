import { createRangeRows, type RangeRows } from "../db/tables.ts";
import type { FetchedRange } from "./fetch-range.ts";
import { rangeBlocks } from "./range-blocks.ts";
import { transferKey } from "./token-candidates.ts";
import { transformBlock } from "./transform/blocks.ts";
import { transformFrames } from "./transform/internal-transactions.ts";
import { transformLog, transformTokenTransfer } from "./transform/logs.ts";
import { createParticipation } from "./transform/participation.ts";
import { transformTransaction } from "./transform/transactions.ts";
import {
  bundleTransactionsOf,
  type EntryPoints,
  extractUserOperations,
  pushUserOperationRows,
} from "./user-operations.ts";

export type TransformRangeOptions = {
  /** ERC-4337 entry points whose user operations become rows; none when omitted. */
  entryPoints?: EntryPoints;
};

export type TransformedRange = {
  from: bigint;
  /** The range's last block, where its tokens' state is read (see attachTokens). */
  to: bigint;
  /** The parent hash of block `from`, which the stored block below must have. */
  parentHash: FetchedRange["parentHash"];
  toHash: FetchedRange["toHash"];
  /** The rows of each table, handed to the database's writer. */
  rows: RangeRows;
  tokenCandidates: FetchedRange["tokenCandidates"];
  tokenReadings: FetchedRange["tokenReadings"];
  /** Logs that looked like token transfers but did not fit any transfer layout; skipped. */
  malformedTokenTransfers: number;
};

export type TransformRangeReturnType = TransformedRange;

/**
 * Turns a validated range into the column-wise rows of each table, one module per kind of data
 * (`transform/`). Nothing here talks to the node or the database; the tokens' rows are filled once
 * their state is read (attachTokens).
 */
export function transformRange(
  range: FetchedRange,
  { entryPoints }: TransformRangeOptions = {},
): TransformRangeReturnType {
  const traced = range.internalTransactions !== null;
  const rows = createRangeRows();
  const participation = createParticipation(rows, range.contracts);
  const instancesSeen = new Set<string>();
  let malformedTokenTransfers = 0;
  for (const proxy of range.proxies) {
    rows.proxies.push({
      address: proxy.address,
      block_number: proxy.blockNumber,
      proxy_type: proxy.proxyType,
      implementation: proxy.implementation,
      beacon: proxy.beacon,
    });
  }
  for (const { block, transactions } of rangeBlocks(range)) {
    const blockNumber = Number(block.number);
    transformBlock(rows, participation, block, { traced });
    let firstBlockIndex = 0;
    for (const { transaction, index: t, receipt, frames } of transactions) {
      transformTransaction(rows, participation, {
        blockNumber,
        index: t,
        transaction,
        receipt,
        frames,
      });
      if (frames) {
        transformFrames(rows, participation, {
          blockNumber,
          transactionIndex: t,
          frames,
          firstBlockIndex,
        });
        firstBlockIndex += frames.length;
      }
      for (const log of receipt.logs) {
        transformLog(rows, participation, { blockNumber, transactionIndex: t, log });
        const logIndex = Number(log.logIndex);
        const transfer = range.tokenTransfers.get(transferKey(blockNumber, logIndex)) ?? null;
        if (transfer === "malformed") malformedTokenTransfers++;
        if (transfer === null || transfer === "malformed") continue;
        transformTokenTransfer(rows, participation, {
          blockNumber,
          transactionIndex: t,
          logIndex,
          transfer,
          instancesSeen,
        });
      }
    }
  }
  if (entryPoints) {
    pushUserOperationRows(rows, extractUserOperations(bundleTransactionsOf(range, entryPoints), entryPoints));
  }
  return {
    from: range.from,
    to: range.to,
    parentHash: range.parentHash,
    toHash: range.toHash,
    rows,
    tokenCandidates: range.tokenCandidates,
    tokenReadings: range.tokenReadings,
    malformedTokenTransfers,
  };
}
