import type { Abi } from "viem";
import type { TransactionRow } from "../../db/queries/address-transactions.ts";
import type { FindAddressesReturnType } from "../../db/queries/addresses.ts";
import type { ChainHead } from "../../db/queries/chain-head.ts";
import type { TransactionAction } from "../../decode/actions/transaction-action.ts";
import { describeCall } from "../../decode/describe-call.ts";
import { decodeRevertReason } from "../../decode/revert-reason.ts";
import { timestamp } from "../format.ts";
import { renderAction } from "../transaction-actions.ts";
import { renderAddress } from "./address.ts";

/** The addresses of a transaction that its rendering needs looked up. */
export function transactionAddresses(row: TransactionRow): string[] {
  return [row.from_address, row.to_address, row.created_contract].filter(
    (hash): hash is string => hash !== null,
  );
}

/** What a listed transaction needs besides its row. */
export type RenderTransactionParameters = {
  /** The transaction's first token transfers, rendered; one more than shown tells of an overflow. */
  tokenTransfers: unknown[];
  actions: TransactionAction[];
  /** The imported ABIs of `to` (its own, then its implementation's), tried before the built-in ones. */
  importedAbi: Abi | null;
};

/**
 * Renders a transaction in the list form of Blockscout's transaction view, with the interface
 * document's types (`gas_limit` a number, `token_transfers` an array), its input and revert reason
 * decoded with the called contract's ABI or the built-in ones.
 */
export function renderTransaction(
  row: TransactionRow,
  addresses: FindAddressesReturnType,
  head: ChainHead,
  { tokenTransfers, actions, importedAbi }: RenderTransactionParameters,
) {
  const to = row.to_address === null ? undefined : addresses.get(row.to_address);
  const toIsContract = to?.is_contract ?? false;
  const { abi, decodedInput, method } = describeCall({
    input: row.input,
    toIsContract,
    imported: importedAbi,
    tokenType: to?.token_type,
  });
  const gasUsed = BigInt(row.gas_used);
  const baseFee = row.base_fee_per_gas === null ? null : BigInt(row.base_fee_per_gas);
  const priorityFee =
    row.max_priority_fee_per_gas !== null && row.max_fee_per_gas !== null && baseFee !== null
      ? min(BigInt(row.max_priority_fee_per_gas), BigInt(row.max_fee_per_gas) - baseFee) * gasUsed
      : null;
  const types: string[] = [];
  if (BigInt(row.value) > 0n) types.push("coin_transfer");
  if (toIsContract) types.push("contract_call");
  if (row.to_address === null) types.push("contract_creation");
  if (row.created_token) types.push("token_creation");
  if (tokenTransfers.length > 0) types.push("token_transfer");
  return {
    hash: row.hash,
    block_number: row.block_number,
    block_hash: row.block_hash,
    position: row.index,
    timestamp: timestamp(row.timestamp),
    confirmations: head.blockNumber === null ? 0 : Math.max(head.blockNumber - row.block_number + 1, 1),
    confirmation_duration: [0, head.averageBlockTimeMs ?? 0],
    status: row.status === null ? null : row.status === 1 ? "ok" : "error",
    // Why a transaction failed (reverted, out of gas, ...) is known from its trace; without one, Blockscout's
    // word for "not known yet". So is whether it failed at all, for a receipt from before Byzantium (no
    // status) of a block not traced.
    result: transactionResult(row.status, row.error),
    revert_reason: row.status === 0 ? decodeRevertReason({ output: row.revert_output, abi }) : null,
    from: renderAddress(row.from_address, addresses),
    to: renderAddress(row.to_address, addresses),
    created_contract: renderAddress(row.created_contract, addresses),
    value: row.value,
    fee: { type: "actual", value: row.fee },
    nonce: row.nonce,
    type: row.type,
    gas_limit: Number(row.gas_limit),
    gas_used: row.gas_used,
    gas_price: row.effective_gas_price ?? row.gas_price,
    base_fee_per_gas: row.base_fee_per_gas,
    max_fee_per_gas: row.max_fee_per_gas,
    max_priority_fee_per_gas: row.max_priority_fee_per_gas,
    priority_fee: priorityFee === null ? null : priorityFee.toString(),
    transaction_burnt_fee: baseFee === null ? null : (baseFee * gasUsed).toString(),
    raw_input: row.input,
    method,
    decoded_input: decodedInput,
    token_transfers: tokenTransfers.slice(0, transferPreview),
    token_transfers_overflow: tokenTransfers.length > transferPreview,
    transaction_types: types,
    has_error_in_internal_transactions: row.has_error_in_internal_transactions,
    actions: actions.map(renderAction),
    authorization_list: [],
    exchange_rate: null,
    historic_exchange_rate: null,
    transaction_tag: null,
    is_pending_update: false,
    // Blockscout counts FHE operations on chains that have them; an EVM chain without FHE has none.
    fhe_operations_count: 0,
  };
}

/**
 * Blockscout's `result`: `success`, a reverted transaction `Reverted`, other failures as the trace says
 * (`out of gas`, ...), and `awaiting_internal_transactions` while the status or the failure's reason waits
 * for a trace.
 */
function transactionResult(status: number | null, error: string | null): string {
  if (status === 1) return "success";
  if (status === null || error === null) return "awaiting_internal_transactions";
  return error === "reverted" ? "Reverted" : error;
}

/** Token transfers shown inside a listed transaction (Blockscout's). */
export const transferPreview = 10;

function min(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}
