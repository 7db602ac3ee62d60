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
 * The endpoints of the API contract: the server registers them, the OpenAPI document describes them and
 * the tests enumerate them. The order is the OpenAPI document's, which the docs page shows (its first
 * operation is the transactions of an address); each endpoint's `number` is the interface document's.
 */
export const endpoints: readonly Endpoint[] = [
  addressTransactions,
  addressLogs,
  blockWithdrawals,
  addressWithdrawals,
  tokenTransfers,
  addressTokenTransfers,
  addressInternalTransactions,
  addressTokens,
  tokenHolders,
  tokenInstanceHolders,
  addressNftCollections,
  transactionSummary,
  accountAbstractionStatus,
];
