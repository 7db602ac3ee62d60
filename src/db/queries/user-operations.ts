import type { Queryable } from "../client.ts";
import { byteaParam } from "../table-rows.ts";
import { hexColumn } from "./keyset.ts";

/** A stored user operation: hashes and addresses as lowercase hex, uint256 values as decimal strings. */
export type UserOperationRow = {
  hash: string;
  transaction_hash: string;
  transaction_index: number;
  block_number: number;
  block_hash: string;
  log_index: number;
  entry_point: string;
  /** `0.6`, `0.7` or `0.8`. */
  entry_point_version: string;
  sender: string;
  paymaster: string | null;
  nonce: string;
  success: boolean;
  actual_gas_cost: string;
  actual_gas_used: string;
  factory: string | null;
  bundler: string;
  aggregator: string | null;
  revert_reason: string | null;
  init_code: string | null;
  call_data: string | null;
  call_gas_limit: string | null;
  verification_gas_limit: string | null;
  pre_verification_gas: string | null;
  max_fee_per_gas: string | null;
  max_priority_fee_per_gas: string | null;
  paymaster_and_data: string | null;
  paymaster_verification_gas_limit: string | null;
  paymaster_post_op_gas_limit: string | null;
  signature: string | null;
};

const byteaColumns = [
  "hash",
  "transaction_hash",
  "block_hash",
  "entry_point",
  "sender",
  "paymaster",
  "factory",
  "bundler",
  "aggregator",
  "revert_reason",
  "init_code",
  "call_data",
  "paymaster_and_data",
  "signature",
];
const numericColumns = [
  "nonce",
  "actual_gas_cost",
  "actual_gas_used",
  "call_gas_limit",
  "verification_gas_limit",
  "pre_verification_gas",
  "max_fee_per_gas",
  "max_priority_fee_per_gas",
  "paymaster_verification_gas_limit",
  "paymaster_post_op_gas_limit",
];

/** The select list of a user operation row; `numeric` goes out as text so both drivers agree. */
const columns = [
  ...byteaColumns.map((column) => hexColumn(column, column)),
  ...numericColumns.map((column) => `${column}::text AS ${column}`),
  "transaction_index",
  "block_number",
  "log_index",
  "entry_point_version",
  "success",
].join(", ");

/**
 * The user operations a transaction bundled, in the order the EntryPoint executed them (log index); an
 * empty list for a transaction that is not an ERC-4337 bundle of a configured entry point.
 */
export async function findUserOperations(
  db: Queryable,
  transactionHash: string,
): Promise<UserOperationRow[]> {
  return db.query<UserOperationRow>(
    `SELECT ${columns} FROM user_operations WHERE transaction_hash = $1 ORDER BY log_index`,
    [byteaParam(transactionHash.toLowerCase())],
  );
}
