import { formatEther } from "viem";
import {
  addressVariable,
  currency,
  type Entry,
  type SummarizeTransactionParameters,
  summaries,
  summarizedInnerEffects,
  type TransactionSummary,
  text,
} from "./summary.ts";

/** Native currency the sender got back from the contracts it called. */
export function receivedValueSummaries(parameters: SummarizeTransactionParameters): TransactionSummary[] {
  const { transaction, innerEffects, nativeSymbol } = parameters;
  return summaries(
    innerEffects
      .filter((effect) => effect.to_address === transaction.from_address && BigInt(effect.value) > 0n)
      .slice(0, summarizedInnerEffects)
      .map(
        (effect): Entry => [
          "{action_type} {amount} {native} from {from_address}",
          {
            action_type: text("Receive"),
            amount: currency(formatEther(BigInt(effect.value))),
            native: text(nativeSymbol),
            from_address: addressVariable(effect.from_address),
          },
        ],
      ),
  );
}
