import type { Address, Hex } from "viem";
import type { RpcClient } from "./client.ts";
import { toHexQuantity } from "./types.ts";

export type EthGetCodeParameters = { addresses: Address[]; blockNumber: bigint };
export type EthGetCodeReturnType = Hex[];

/** Fetches the code of each address at one block, batched. */
export async function eth_getCode(
  client: RpcClient,
  { addresses, blockNumber }: EthGetCodeParameters,
): Promise<EthGetCodeReturnType> {
  return client.batch<Hex>(
    addresses.map((address) => ({ method: "eth_getCode", params: [address, toHexQuantity(blockNumber)] })),
  );
}
