import type { Address, Hex } from "viem";
import type { RpcClient } from "./client.ts";
import { readState, type StateBlock } from "./read-state.ts";

export type EthGetStorageAtParameters = { reads: { address: Address; slot: Hex; block: StateBlock }[] };
export type EthGetStorageAtReturnType = Hex[];

/** Reads one 32-byte storage slot per entry, each at its own block (or the head, see readState), batched. */
export async function eth_getStorageAt(
  client: RpcClient,
  { reads }: EthGetStorageAtParameters,
): Promise<EthGetStorageAtReturnType> {
  return (await readState<Hex>(
    client,
    reads.map(({ address, slot, block }) => ({ method: "eth_getStorageAt", params: [address, slot], block })),
  )) as Hex[];
}
