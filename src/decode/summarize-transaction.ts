import { formatEther } from "viem";
import { actionSummaries } from "./summaries/action-summaries.ts";
import { approvalSummaries } from "./summaries/approval-summaries.ts";
import { receivedValueSummaries } from "./summaries/received-value-summaries.ts";
import {
  addressVariable,
  currency,
  type Entry,
  type SummarizeTransactionParameters,
  summaries,
  summarizedInnerEffects,
  type TransactionSummary,
  text,
  tokenVariable,
} from "./summaries/summary.ts";
import { transferSummaries } from "./summaries/transfer-summaries.ts";
import { userOperationSummaries } from "./summaries/user-operation-summaries.ts";
import { isWrap, wrapSummaries } from "./summaries/wrap-summaries.ts";

export type {
  SummarizeTransactionParameters,
  SummaryTokenTransfer,
  SummaryVariable,
  TransactionSummary,
} from "./summaries/summary.ts";
export { summarizedInnerEffects } from "./summaries/summary.ts";
export { summarizedTransfers } from "./summaries/transfer-summaries.ts";
export { wrapTopics } from "./summaries/wrap-summaries.ts";

/**
 * The summaries of a successful transaction, by rules over what it did: its protocol actions, ERC-4337
 * bundle, wraps, approvals, token and native transfers, contract creation, and as a fallback the call it
 * made. Movements a protocol action already tells (a swap's token transfers) are not told twice.
 */
export function summarizeTransaction(parameters: SummarizeTransactionParameters): TransactionSummary[] {
  const { transaction, toIsContract, method } = parameters;
  const to = transaction.to_address;
  const created = transaction.created_contract;
  const value = BigInt(transaction.value);
  const result = summaries([
    ...(value > 0n && to !== null && !isWrap(parameters)
      ? [nativeTransfer(parameters, formatEther(value), to)]
      : []),
    ...(created === null ? [] : [creation(parameters, created)]),
  ]);
  result.push(...userOperationSummaries(parameters));
  // Contracts created by the transaction's inner calls (a factory's clone, a pool, a user's account).
  result.push(
    ...summaries(
      parameters.innerEffects
        .flatMap((effect) => (effect.created_contract === null ? [] : [effect.created_contract]))
        .slice(0, summarizedInnerEffects)
        .map((created) => creation(parameters, created)),
    ),
  );
  const told = [
    ...actionSummaries(parameters),
    ...wrapSummaries(parameters),
    ...approvalSummaries(parameters),
  ];
  result.push(...told);
  if (told.length === 0) result.push(...transferSummaries(parameters));
  if (result.length === 0) result.push(...receivedValueSummaries(parameters));
  if (result.length === 0 && to !== null) {
    result.push(
      ...summaries([
        toIsContract
          ? [
              "Called {method} on {to_address}",
              {
                method: { type: "method", value: method ?? "fallback" },
                to_address: addressVariable(to),
              },
            ]
          : nativeTransfer(parameters, "0", to),
      ]),
    );
  }
  return result;
}

function creation(parameters: SummarizeTransactionParameters, created: string): Entry {
  const contract = addressVariable(created);
  return parameters.tokens.has(created)
    ? [
        "{action_type} {token} at {contract_address}",
        {
          action_type: text("Deploy token"),
          token: tokenVariable(parameters, created),
          contract_address: contract,
        },
      ]
    : [
        "{action_type} {contract_address}",
        { action_type: text("Deploy contract"), contract_address: contract },
      ];
}

function nativeTransfer(parameters: SummarizeTransactionParameters, amount: string, to: string): Entry {
  return [
    "{action_type} {amount} {native} to {to_address}",
    {
      action_type: text("Transfer"),
      amount: currency(amount),
      native: text(parameters.nativeSymbol),
      to_address: addressVariable(to),
    },
  ];
}
