import type { FindAddressesReturnType } from "../../db/queries/addresses.ts";
import type { WithdrawalRow } from "../../db/queries/withdrawals.ts";
import { timestamp } from "../format.ts";
import { renderAddress } from "./address.ts";

/**
 * Renders a withdrawal in the interface document's one shape, which is the union of Blockscout's block
 * view (`receiver`) and address view (`block_number`, `timestamp`).
 */
export function renderWithdrawal(row: WithdrawalRow, addresses: FindAddressesReturnType) {
  return {
    index: row.index,
    validator_index: row.validator_index,
    receiver: renderAddress(row.address, addresses),
    amount: row.amount,
    block_number: row.block_number,
    timestamp: timestamp(row.timestamp),
  };
}
