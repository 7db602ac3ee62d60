import type { RpcTransaction } from "viem";
import { addressSuffix, transactionPosition } from "../../db/address-transaction-keys.ts";
import { Direction } from "../../db/direction.ts";
import type { RangeRows } from "../../db/tables.ts";
import type { RpcReceipt } from "../../rpc/types.ts";
import type { InternalTransaction } from "../map-traces.ts";
import type { Participation } from "./participation.ts";

export type TransformTransactionParameters = {
  blockNumber: number;
  index: number;
  transaction: RpcTransaction;
  receipt: RpcReceipt;
  /** The transaction's frames, top-level call first; null without a trace. */
  frames: InternalTransaction[] | null;
};

/** Adds a transaction's row and one `address_transactions` row per party (sender, recipient, creation). */
export function transformTransaction(
  rows: RangeRows,
  participation: Participation,
  { blockNumber, index, transaction, receipt, frames }: TransformTransactionParameters,
): void {
  const fields = transaction as RpcTransaction & Record<string, string | undefined>;
  const created = transaction.to ? null : (receipt.contractAddress ?? null);
  const effectiveGasPrice = receipt.effectiveGasPrice ?? transaction.gasPrice;
  const fee = effectiveGasPrice ? BigInt(receipt.gasUsed) * BigInt(effectiveGasPrice) : 0n;
  const blobHashes = fields.blobVersionedHashes as readonly string[] | undefined;
  rows.transactions.push({
    hash: transaction.hash,
    block_number: blockNumber,
    index,
    from_address: transaction.from,
    to_address: transaction.to,
    created_contract: created,
    value: transaction.value,
    nonce: transaction.nonce,
    type: Number(transaction.type ?? "0x0"),
    gas_limit: transaction.gas,
    gas_price: transaction.gasPrice,
    max_fee_per_gas: fields.maxFeePerGas,
    max_priority_fee_per_gas: fields.maxPriorityFeePerGas,
    max_fee_per_blob_gas: fields.maxFeePerBlobGas,
    blob_versioned_hashes: blobHashes?.length
      ? `0x${blobHashes.map((hash) => hash.slice(2)).join("")}`
      : null,
    input: transaction.input,
    status: statusOf(receipt, frames),
    gas_used: receipt.gasUsed,
    effective_gas_price: receipt.effectiveGasPrice,
    blob_gas_used: receipt.blobGasUsed,
    blob_gas_price: (receipt as { blobGasPrice?: string }).blobGasPrice,
    root: receipt.root,
    error: frames?.[0]?.error ?? null,
    // Unknown (null) without a trace.
    has_error_in_internal_transactions:
      frames?.some((frame) => frame.index > 0 && frame.error !== null) ?? null,
    revert_output: frames?.[0]?.revertOutput,
    first_log_index: receipt.logs.length === 0 ? null : Number(receipt.logs[0]?.logIndex),
    log_count: receipt.logs.length,
  });
  const parties = participation.parties(
    [
      [transaction.from, Direction.from],
      [transaction.to, Direction.to],
      [created, Direction.created],
    ],
    blockNumber,
  );
  for (const [address, direction] of parties) {
    rows.addressTransactions.push({
      address_suffix: addressSuffix(address),
      direction,
      position: transactionPosition(blockNumber, index),
      value: transaction.value,
      fee,
    });
  }
}

/**
 * The receipt's status; a receipt from before Byzantium has none, and then the trace tells, as Blockscout
 * takes it from the top frame's error (unknown, null, without a trace).
 */
function statusOf(receipt: RpcReceipt, frames: InternalTransaction[] | null): number | null {
  if (receipt.status != null) return Number(receipt.status);
  const top = frames?.[0];
  return top === undefined ? null : top.error === null ? 1 : 0;
}
