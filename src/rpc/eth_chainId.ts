import type { RpcClient } from "./client.ts";

export type EthChainIdReturnType = number;

/** Returns the chain id the node serves. */
export async function eth_chainId(client: RpcClient): Promise<EthChainIdReturnType> {
  return Number(BigInt(await client.request<string>("eth_chainId")));
}
