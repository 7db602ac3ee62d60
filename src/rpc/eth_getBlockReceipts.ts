import type { Hash } from "viem";
import type { RpcClient } from "./client.ts";
import { type RpcReceipt, toHexQuantity } from "./types.ts";

export type EthGetBlockReceiptsParameters = {
  /** Block numbers or hashes. */
  blocks: (bigint | Hash)[];
};

/** Each block's receipts in transaction order; `null` where the node had no answer for the block. */
export type EthGetBlockReceiptsReturnType = (RpcReceipt[] | null)[];

/**
 * Fetches all receipts of each block, batched.
 * @throws {RpcResponseError} "method not found" on nodes without it (see isMethodNotSupported).
 */
export async function eth_getBlockReceipts(
  client: RpcClient,
  { blocks }: EthGetBlockReceiptsParameters,
): Promise<EthGetBlockReceiptsReturnType> {
  return client.batch<RpcReceipt[] | null>(
    blocks.map((block) => ({
      method: "eth_getBlockReceipts",
      params: [typeof block === "bigint" ? toHexQuantity(block) : block],
    })),
  );
}
