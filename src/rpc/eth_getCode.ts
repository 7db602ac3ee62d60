import type { Address, Hex } from "viem";
import type { RpcClient } from "./client.ts";
import { readState } from "./read-state.ts";
import { toHexQuantity } from "./types.ts";

export type EthGetCodeParameters = { addresses: Address[]; blockNumber: bigint };
export type EthGetCodeReturnType = Hex[];

/** Fetches the code of each address at one block (at the head where the node keeps no older state), batched. */
export async function eth_getCode(
  client: RpcClient,
  { addresses, blockNumber }: EthGetCodeParameters,
): Promise<EthGetCodeReturnType> {
  return (await readState<Hex>(
    client,
    addresses.map((address) => ({ method: "eth_getCode", params: [address, toHexQuantity(blockNumber)] })),
  )) as Hex[];
}
