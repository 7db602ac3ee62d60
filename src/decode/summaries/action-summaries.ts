import {
  addressVariable,
  currency,
  type Entry,
  type SummarizeTransactionParameters,
  summaries,
  type TransactionSummary,
  text,
  tokenVariable,
} from "./summary.ts";

const protocolNames = { uniswap_v3: "Uniswap V3", aave_v3: "Aave V3" } as const;

/** One summary per protocol action (Uniswap v3 swaps and liquidity, Aave v3 operations). */
export function actionSummaries(parameters: SummarizeTransactionParameters): TransactionSummary[] {
  return summaries(
    parameters.actions.flatMap(({ protocol, type, data }): Entry[] => {
      const dex = text(protocolNames[protocol]);
      const token = (key: string) => tokenVariable(parameters, String(data[key]).toLowerCase());
      const amount = (key: string) => currency(String(data[key]));
      const pair = (action: string, preposition: string): Entry => [
        `{action_type} {amount0} {token0} and {amount1} {token1} ${preposition} {protocol}`,
        {
          action_type: text(action),
          amount0: amount("amount0"),
          token0: token("address0"),
          amount1: amount("amount1"),
          token1: token("address1"),
          protocol: dex,
        },
      ];
      const single = (action: string, preposition: string): Entry => [
        `{action_type} {amount} {token} ${preposition} {protocol}`,
        { action_type: text(action), amount: amount("amount"), token: token("address"), protocol: dex },
      ];
      switch (`${protocol}/${type}`) {
        case "uniswap_v3/swap":
          return [
            [
              "{action_type} {amount_in} {token_in} for {amount_out} {token_out} on {protocol}",
              {
                action_type: text("Swap"),
                amount_in: amount("amount0"),
                token_in: token("address0"),
                amount_out: amount("amount1"),
                token_out: token("address1"),
                protocol: dex,
              },
            ],
          ];
        case "uniswap_v3/mint":
          return [pair("Add liquidity", "to")];
        case "uniswap_v3/burn":
          return [pair("Remove liquidity", "from")];
        case "uniswap_v3/collect":
          return [pair("Collect", "from")];
        case "uniswap_v3/mint_nft":
          return [
            [
              "{action_type} {token} #{token_ids} to {to_address}",
              {
                action_type: text("Mint position"),
                token: token("address"),
                token_ids: text((data.ids as string[]).join(", #")),
                to_address: addressVariable(String(data.to).toLowerCase()),
              },
            ],
          ];
        case "aave_v3/supply":
          return [single("Supply", "to")];
        case "aave_v3/withdraw":
          return [single("Withdraw", "from")];
        case "aave_v3/borrow":
          return [single("Borrow", "from")];
        case "aave_v3/repay":
          return [single("Repay", "to")];
        case "aave_v3/flash_loan":
          return [single("Flash loan", "from")];
        case "aave_v3/enable_collateral":
        case "aave_v3/disable_collateral":
          return [
            [
              "{action_type} {token} as collateral on {protocol}",
              {
                action_type: text(type === "enable_collateral" ? "Enable" : "Disable"),
                token: token("address"),
                protocol: dex,
              },
            ],
          ];
        case "aave_v3/liquidation_call":
          return [
            [
              "{action_type} {debt_amount} {debt_token} of debt for {collateral_amount} {collateral_token} on {protocol}",
              {
                action_type: text("Liquidate"),
                debt_amount: amount("debt_amount"),
                debt_token: token("debt_address"),
                collateral_amount: amount("collateral_amount"),
                collateral_token: token("collateral_address"),
                protocol: dex,
              },
            ],
          ];
        default:
          return [];
      }
    }),
  );
}
