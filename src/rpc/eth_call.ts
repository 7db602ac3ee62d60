import type { Address, Hex } from "viem";
import type { RpcClient } from "./client.ts";
import { isMethodNotSupported, type RpcResponseError } from "./errors.ts";
import { readState, type StateBlock } from "./read-state.ts";

export type EthCallParameters = { calls: { to: Address; data: Hex }[]; block: StateBlock };

/** Each call's return data, or the error of a call the contract itself failed (reverted, bad opcode, ...). */
export type EthCallReturnType = (Hex | RpcResponseError)[];

/** Whether an eth_call error is the contract's own failure rather than the node's. */
export function isContractFailure(error: RpcResponseError): boolean {
  return (
    error.code === 3 ||
    /revert|invalid opcode|out ?of ?gas|execution|stack|invalid jump/i.test(error.nodeMessage)
  );
}

/**
 * Calls contracts read-only at one block, batched; a failing contract does not fail the batch, and
 * neither does a node that offers no eth_call (every answer is then its error). A node that no longer
 * keeps that block's state is asked at its head instead (see readState).
 */
export async function eth_call(
  client: RpcClient,
  { calls, block }: EthCallParameters,
): Promise<EthCallReturnType> {
  return readState<Hex>(
    client,
    calls.map((call) => ({ method: "eth_call", params: [call], block })),
    (error) => isContractFailure(error) || isMethodNotSupported(error),
  );
}
