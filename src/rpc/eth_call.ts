import type { Address, Hex } from "viem";
import type { RpcClient } from "./client.ts";
import { isMethodNotSupported, type RpcResponseError } from "./errors.ts";
import { readState, type StateBlock } from "./read-state.ts";

export type EthCallParameters = { calls: { to: Address; data: Hex }[]; block: StateBlock };

/** Each call's return data, or the error of a call the contract itself failed (reverted, bad opcode, ...). */
export type EthCallReturnType = (Hex | RpcResponseError)[];

/**
 * How nodes say the contract itself failed: a revert, an invalid or undefined opcode, gas run out, the
 * stack or a jump gone wrong. geth and Erigon say it in words ("invalid opcode: opcode 0xfe not defined",
 * "stack underflow (0 <=> 1)"), anvil and reth name revm's halt ("EVM error InvalidFEOpcode", "EVM error
 * StackUnderflow"), Nethermind answers "VM execution error.". A bare "execution" is not one of them: geth
 * and Erigon answer "execution aborted (timeout = 5s)" for a call that ran past their limit, which a
 * later call may finish.
 */
const contractFailureWording =
  /revert|invalid ?(opcode|jump)|opcode ?not ?found|invalid ?fe ?opcode|not ?activated|bad (instruction|jump)|out ?of ?gas|stack ?(underflow|overflow|limit)|out of stack|write protection|static ?call|call ?too ?deep|max call depth|out ?of ?(bounds|offset|funds)|insufficient balance for transfer|precompile|VM execution error/i;

/**
 * Whether an eth_call error is the contract's own failure rather than the node's: asking again gets the
 * same answer. Anything else (a timeout, a call the node aborted or cancelled) is the node's, to ask again.
 */
export function isContractFailure(error: RpcResponseError): boolean {
  return error.code === 3 || contractFailureWording.test(error.nodeMessage);
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
