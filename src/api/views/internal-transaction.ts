import type { InternalTransactionRow } from "../../db/queries/address-internal-transactions.ts";
import type { FindAddressesReturnType } from "../../db/queries/addresses.ts";
import { timestamp } from "../format.ts";
import { renderAddress } from "./address.ts";

/** The addresses of an internal transaction that its rendering needs looked up. */
export function internalTransactionAddresses(row: InternalTransactionRow): string[] {
  return [row.from_address, row.to_address, row.created_contract].filter(
    (hash): hash is string => hash !== null,
  );
}

/** Renders an internal transaction as Blockscout's internal transaction view. */
export function renderInternalTransaction(row: InternalTransactionRow, addresses: FindAddressesReturnType) {
  return {
    block_number: row.block_number,
    block_index: row.block_index,
    transaction_hash: row.transaction_hash,
    transaction_index: row.transaction_index,
    index: row.index,
    timestamp: timestamp(row.timestamp),
    type: row.type,
    from: renderAddress(row.from_address, addresses),
    to: renderAddress(row.to_address, addresses),
    created_contract: renderAddress(row.created_contract, addresses),
    value: row.value,
    // A selfdestruct frame is given no gas; Blockscout renders its gas limit as 0, never null.
    gas_limit: row.gas ?? "0",
    success: row.error === null,
    error: row.error,
  };
}
