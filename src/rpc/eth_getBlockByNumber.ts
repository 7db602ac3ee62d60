import type { RpcClient } from "./client.ts";
import { type RpcFullBlock, toHexQuantity } from "./types.ts";

export type EthGetBlockByNumberParameters = {
  /** Block numbers, or tags such as `latest` and `finalized`. */
  blocks: (bigint | "latest" | "finalized" | "safe" | "earliest")[];
  /** Full transaction objects (default) or, when false, only their hashes (the block's `transactions` is then empty). */
  includeTransactions?: boolean;
};

/** One block per requested number, `null` where the node does not have it. */
export type EthGetBlockByNumberReturnType = (RpcFullBlock | null)[];

/** Fetches blocks with their full transaction objects, batched. */
export async function eth_getBlockByNumber(
  client: RpcClient,
  { blocks, includeTransactions = true }: EthGetBlockByNumberParameters,
): Promise<EthGetBlockByNumberReturnType> {
  const answers = await client.batch<RpcFullBlock | null>(
    blocks.map((block) => ({
      method: "eth_getBlockByNumber",
      params: [typeof block === "bigint" ? toHexQuantity(block) : block, includeTransactions],
    })),
  );
  // Hashes-only answers must never pass for full blocks.
  if (!includeTransactions) for (const block of answers) if (block) block.transactions = [];
  return answers;
}
