import type { RpcLog } from "viem";
import { Direction } from "../../db/direction.ts";
import { batchHeadItems, type RangeRows } from "../../db/tables.ts";
import type { TokenTransfer } from "../../decode/token-transfer.ts";
import type { Participation } from "./participation.ts";

export type TransformLogParameters = {
  blockNumber: number;
  transactionIndex: number;
  log: RpcLog;
};

/** Adds a log's row; its block and transaction hashes are those of the rows its position names. */
export function transformLog(
  rows: RangeRows,
  participation: Participation,
  { blockNumber, transactionIndex, log }: TransformLogParameters,
): void {
  const topics = log.topics as readonly (string | undefined)[];
  rows.logs.push({
    block_number: blockNumber,
    log_index: Number(log.logIndex),
    transaction_index: transactionIndex,
    address: log.address,
    topic0: topics[0],
    topic1: topics[1],
    topic2: topics[2],
    topic3: topics[3],
    data: log.data,
  });
  participation.see(log.address, blockNumber);
}

export type TransformTokenTransferParameters = {
  blockNumber: number;
  logIndex: number;
  transactionIndex: number;
  transfer: TokenTransfer;
  /** Token ids already given a `token_instances` row in this range (`token/id`); grows. */
  instancesSeen: Set<string>;
};

/**
 * Adds a token transfer's row (and its batch's head, for a batch of more than `batchHeadItems` ids), a
 * `token_instances` row for each NFT id the range has not seen yet, and one `address_token_transfers` row
 * per party (one row with both bits for a transfer to oneself). The token's type on these rows is settled
 * when the range's tokens are stored.
 */
export function transformTokenTransfer(
  rows: RangeRows,
  participation: Participation,
  { blockNumber, logIndex, transactionIndex, transfer, instancesSeen }: TransformTokenTransferParameters,
): void {
  const itemCount = Math.max(transfer.tokenIds.length, transfer.amounts.length);
  rows.tokenTransfers.push({
    block_number: blockNumber,
    log_index: logIndex,
    transaction_index: transactionIndex,
    token_address: transfer.token,
    from_address: transfer.from,
    to_address: transfer.to,
    token_type: transfer.type,
    token_ids: transfer.tokenIds,
    amounts: transfer.amounts,
    token_contract_type: null,
    item_count: itemCount,
  });
  if (itemCount > batchHeadItems) {
    rows.tokenTransferHeads.push({
      block_number: blockNumber,
      log_index: logIndex,
      token_ids: transfer.tokenIds.slice(0, batchHeadItems),
      amounts: transfer.amounts.slice(0, batchHeadItems),
    });
  }
  if (transfer.type !== "ERC-20") {
    for (const id of transfer.tokenIds) {
      const key = `${transfer.token}/${id}`;
      if (instancesSeen.has(key)) continue;
      instancesSeen.add(key);
      rows.tokenInstances.push({
        token_address: transfer.token,
        token_id: id,
        first_seen_block: blockNumber,
      });
    }
  }
  const parties = participation.parties(
    [
      [transfer.from, Direction.from],
      [transfer.to, Direction.to],
    ],
    blockNumber,
  );
  for (const [address, direction] of parties) {
    rows.addressTokenTransfers.push({
      address,
      block_number: blockNumber,
      log_index: logIndex,
      direction,
      token_contract_type: null,
    });
  }
}
