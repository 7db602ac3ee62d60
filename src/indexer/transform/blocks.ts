import type { RangeRows } from "../../db/tables.ts";
import type { RpcFullBlock } from "../../rpc/types.ts";
import type { Participation } from "./participation.ts";

const gweiInWei = 1_000_000_000n;

/** Adds a block's row and its withdrawals' rows. */
export function transformBlock(
  rows: RangeRows,
  participation: Participation,
  block: RpcFullBlock,
  { traced }: { traced: boolean },
): void {
  const number = Number(block.number);
  rows.blocks.push({
    number,
    hash: block.hash,
    parent_hash: block.parentHash,
    timestamp: block.timestamp,
    miner: block.miner,
    gas_limit: block.gasLimit,
    gas_used: block.gasUsed,
    base_fee_per_gas: block.baseFeePerGas,
    difficulty: block.difficulty,
    total_difficulty: block.totalDifficulty,
    size: block.size,
    nonce: block.nonce,
    extra_data: block.extraData,
    mix_hash: block.mixHash,
    sha3_uncles: block.sha3Uncles,
    state_root: block.stateRoot,
    transactions_root: block.transactionsRoot,
    receipts_root: block.receiptsRoot,
    logs_bloom: block.logsBloom,
    blob_gas_used: block.blobGasUsed,
    excess_blob_gas: block.excessBlobGas,
    parent_beacon_block_root: block.parentBeaconBlockRoot,
    withdrawals_root: block.withdrawalsRoot,
    transaction_count: block.transactions.length,
    traced,
  });
  participation.see(block.miner, number);
  for (const withdrawal of block.withdrawals ?? []) {
    rows.withdrawals.push({
      index: withdrawal.index,
      block_number: number,
      validator_index: withdrawal.validatorIndex,
      address: withdrawal.address,
      amount: BigInt(withdrawal.amount) * gweiInWei,
    });
    participation.see(withdrawal.address, number);
  }
}
