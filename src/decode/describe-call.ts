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
  const abi = callAbi(imported, tokenType);
  const decodedInput = toIsContract ? decodeInput({ input, abi }) : null;
  return { abi, decodedInput, method: transactionMethod({ input, decodedInput, toIsContract }) };
}

/** Imported ABIs joined with a token standard, per imported ABI object: ABIs are indexed once per object. */
const joined = new WeakMap<Abi, Map<string, Abi>>();

/**
 * The imported ABI followed by the token's standard, the same object each time for the same pair, so that
 * the rows of a page that call one contract reuse its index instead of rebuilding it per row.
 */
function callAbi(imported: Abi | null | undefined, tokenType: string | null | undefined): Abi | null {
  const standard = tokenType ? tokenStandardAbis[tokenType] : undefined;
  if (!imported || !standard) return imported ?? standard ?? null;
  const byType = joined.get(imported) ?? new Map<string, Abi>();
  joined.set(imported, byType);
  const abi = byType.get(tokenType as string) ?? [...imported, ...standard];
  byType.set(tokenType as string, abi);
  return abi;
}
