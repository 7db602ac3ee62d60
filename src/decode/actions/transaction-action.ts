import { formatUnits } from "viem";

/**
 * A protocol action of a transaction in Blockscout's form (`{protocol, type, data}`), with the log it
 * came from so that a transaction's actions keep the order of its logs.
 */
export type TransactionAction = {
  protocol: "uniswap_v3" | "aave_v3";
  type: string;
  data: Record<string, string | number | string[]>;
  log_index: number;
};

/** A log as the action decoders read it: lowercase hex emitter, topics and data. */
export type ActionLog = {
  block_number: number;
  log_index: number;
  address: string;
  topics: string[];
  data: string;
};

/** What an action needs to know of a token to scale and name its amounts. */
export type ActionToken = { symbol: string | null; decimals: number | null };

/**
 * An amount in whole tokens, as Blockscout writes it (`1500000` with 6 decimals → `"1.5"`), or null when
 * the token's decimals are unknown: Blockscout leaves such an action out rather than guess.
 */
export function scaledAmount(amount: bigint, token: ActionToken | undefined): string | null {
  if (token?.decimals == null || token.symbol === null) return null;
  return formatUnits(amount, token.decimals);
}
