import type { Endpoint } from "../define-endpoint.ts";
import { accountAbstractionStatus } from "./account-abstraction-status.ts";
import { addressInternalTransactions } from "./address-internal-transactions.ts";
import { addressLogs } from "./address-logs.ts";
import { addressNftCollections } from "./address-nft-collections.ts";
import { addressTokenTransfers } from "./address-token-transfers.ts";
import { addressTokens } from "./address-tokens.ts";
import { addressTransactions } from "./address-transactions.ts";
import { addressWithdrawals } from "./address-withdrawals.ts";
import { blockWithdrawals } from "./block-withdrawals.ts";
import { tokenHolders } from "./token-holders.ts";
import { tokenInstanceHolders } from "./token-instance-holders.ts";
import { tokenTransfers } from "./token-transfers.ts";
import { transactionSummary } from "./transaction-summary.ts";

/**
 * The endpoints of the API contract, in the interface document's order: the server registers them, the
 * OpenAPI document describes them, and the tests enumerate them.
 */
export const endpoints: readonly Endpoint[] = [
  addressTokens,
  addressTransactions,
  addressLogs,
  blockWithdrawals,
  addressWithdrawals,
  tokenHolders,
  transactionSummary,
  tokenTransfers,
  tokenInstanceHolders,
  accountAbstractionStatus,
  addressNftCollections,
  addressInternalTransactions,
  addressTokenTransfers,
];
