import type { RpcClient } from "./client.ts";

export type EthBlockNumberReturnType = bigint;

/** Returns the number of the node's latest block. */
export async function eth_blockNumber(client: RpcClient): Promise<EthBlockNumberReturnType> {
  return BigInt(await client.request<string>("eth_blockNumber"));
}
