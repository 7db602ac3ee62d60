import { zeroAddress } from "viem";
import {
  addressVariable,
  currency,
  type Entry,
  type SummarizeTransactionParameters,
  summaries,
  type TransactionSummary,
  text,
  tokenAmount,
  tokenVariable,
} from "./summary.ts";

/** Token transfers told one by one; a transaction that moved more is told by its first ones. */
export const summarizedTransfers = 10;

/** The first token transfers one by one: mints, burns and transfers, fungible or by id. */
export function transferSummaries(parameters: SummarizeTransactionParameters): TransactionSummary[] {
  return summaries(
    parameters.tokenTransfers.slice(0, summarizedTransfers).map((transfer): Entry => {
      const token = tokenVariable(parameters, transfer.token_address);
      const decimals = parameters.tokens.get(transfer.token_address)?.decimals ?? null;
      const minted = transfer.from_address === zeroAddress;
      const burnt = transfer.to_address === zeroAddress;
      const action = text(minted ? "Mint" : burnt ? "Burn" : "Transfer");
      const direction = minted
        ? "to {to_address}"
        : burnt
          ? "from {from_address}"
          : "from {from_address} to {to_address}";
      const parties = {
        ...(minted ? {} : { from_address: addressVariable(transfer.from_address) }),
        ...(burnt ? {} : { to_address: addressVariable(transfer.to_address) }),
      };
      if (transfer.token_id === null) {
        return [
          `{action_type} {amount} {token} ${direction}`,
          {
            action_type: action,
            amount: currency(tokenAmount(transfer.amount ?? "0", decimals)),
            token,
            ...parties,
          },
        ];
      }
      if (transfer.token_type === "ERC-721") {
        return [
          `{action_type} {token} #{token_id} ${direction}`,
          { action_type: action, token, token_id: text(transfer.token_id), ...parties },
        ];
      }
      return [
        `{action_type} {amount} {token} #{token_id} ${direction}`,
        {
          action_type: action,
          amount: currency(transfer.amount ?? "1"),
          token,
          token_id: text(transfer.token_id),
          ...parties,
        },
      ];
    }),
  );
}
