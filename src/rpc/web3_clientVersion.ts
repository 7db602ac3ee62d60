import type { RpcClient } from "./client.ts";

export type Web3ClientVersionReturnType = string;

/** The node software's name and version, e.g. `anvil/v1.7.1`. */
export async function web3_clientVersion(client: RpcClient): Promise<Web3ClientVersionReturnType> {
  return client.request<string>("web3_clientVersion");
}
