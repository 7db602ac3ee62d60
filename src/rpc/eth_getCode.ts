import type { Address, Hex } from "viem";
import type { RpcClient } from "./client.ts";
import { readState, type StateBlock } from "./read-state.ts";

export type EthGetCodeParameters = { addresses: Address[]; block: StateBlock };
export type EthGetCodeReturnType = Hex[];

/** Fetches the code of each address at one block (at the head where the node keeps no older state), batched. */
export async function eth_getCode(
  client: RpcClient,
  { addresses, block }: EthGetCodeParameters,
): Promise<EthGetCodeReturnType> {
  return (await readState<Hex>(
    client,
    addresses.map((address) => ({ method: "eth_getCode", params: [address], block })),
  )) as Hex[];
}
