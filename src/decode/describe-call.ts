import type { Abi } from "viem";
import { tokenStandardAbis } from "./builtin-abis.ts";
import { type DecodedInput, decodeInput, transactionMethod } from "./decode-input.ts";

export type DescribeCallParameters = {
  input: string;
  /** The called address has code; a call to an account is not decoded. */
  toIsContract: boolean;
  /** The imported ABIs of the called contract (its own, then its implementation's), if any. */
  imported: Abi | null | undefined;
  /** The token standard of the called contract, when it is a token. */
  tokenType: string | null | undefined;
};

export type DescribeCallReturnType = {
  /** The ABI to decode the call's input, revert data and logs with, ahead of the built-in table. */
  abi: Abi | null;
  decodedInput: DecodedInput | null;
  method: string | null;
};

/**
 * What a call is, as a transaction view and a summary show it: its ABI (the contract's imported ABIs,
 * then its token standard's), its decoded input and its `method`.
 */
export function describeCall({
  input,
  toIsContract,
  imported,
  tokenType,
}: DescribeCallParameters): DescribeCallReturnType {
  const standard = tokenType ? tokenStandardAbis[tokenType] : undefined;
  const abi = imported || standard ? [...(imported ?? []), ...(standard ?? [])] : null;
  const decodedInput = toIsContract ? decodeInput({ input, abi }) : null;
  return { abi, decodedInput, method: transactionMethod({ input, decodedInput, toIsContract }) };
}
