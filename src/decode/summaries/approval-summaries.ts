import { decodeFunctionData, erc20Abi, erc721Abi, type Hex, maxUint256, zeroAddress } from "viem";
import {
  addressVariable,
  currency,
  type SummarizeTransactionParameters,
  summaries,
  type TransactionSummary,
  text,
  tokenAmount,
} from "./summary.ts";

/**
 * The approval a call to a token grants or revokes (`approve`, `setApprovalForAll`), read from the
 * call itself: an approval moves nothing, so no transfer tells it.
 */
export function approvalSummaries(parameters: SummarizeTransactionParameters): TransactionSummary[] {
  const { transaction } = parameters;
  if (transaction.to_address === null) return [];
  const token = parameters.tokens.get(transaction.to_address);
  if (token === undefined) return [];
  const tokenValue = { type: "token" as const, value: transaction.to_address };
  let call: ReturnType<typeof decodeFunctionData<typeof erc20Abi | typeof erc721Abi>>;
  try {
    call = decodeFunctionData({ abi: [...erc20Abi, ...erc721Abi], data: transaction.input as Hex });
  } catch {
    return [];
  }
  const [first, second] = call.args as [string, bigint | boolean];
  const who = addressVariable(String(first).toLowerCase());
  if (call.functionName === "setApprovalForAll") {
    return summaries([
      second
        ? [
            "{action_type} {operator} to move all of your {token}",
            { action_type: text("Approve"), operator: who, token: tokenValue },
          ]
        : [
            "{action_type} approval of {operator} for {token}",
            { action_type: text("Revoke"), operator: who, token: tokenValue },
          ],
    ]);
  }
  if (call.functionName !== "approve") return [];
  const value = second as bigint;
  const nonFungible = token.type === "ERC-721";
  if (nonFungible && (first as string).toLowerCase() === zeroAddress) {
    return summaries([
      [
        "{action_type} approval for {token} #{token_id}",
        { action_type: text("Revoke"), token: tokenValue, token_id: text(value.toString()) },
      ],
    ]);
  }
  if (nonFungible) {
    return summaries([
      [
        "{action_type} {spender} to move {token} #{token_id}",
        { action_type: text("Approve"), spender: who, token: tokenValue, token_id: text(value.toString()) },
      ],
    ]);
  }
  if (value === 0n) {
    return summaries([
      [
        "{action_type} approval of {spender} for {token}",
        { action_type: text("Revoke"), spender: who, token: tokenValue },
      ],
    ]);
  }
  return summaries([
    [
      "{action_type} {spender} to spend {amount} {token}",
      {
        action_type: text("Approve"),
        spender: who,
        amount:
          value === maxUint256 ? text("unlimited") : currency(tokenAmount(value.toString(), token.decimals)),
        token: tokenValue,
      },
    ],
  ]);
}
