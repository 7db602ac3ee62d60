import { type Abi, decodeAbiParameters, type Hex, parseAbi, toFunctionSelector } from "viem";
import { formatAbiItem } from "viem/utils";
import { type AbiError, builtinAbiIndex, indexAbi } from "./builtin-abis.ts";
import type { DecodedInput } from "./decode-input.ts";
import { asBytes, canonicalType, formatMethodCall, parameterName, renderValue } from "./render-values.ts";

export type DecodeRevertReasonParameters = {
  /** What the reverted top-level call returned (`transactions.revert_output`); null when unknown. */
  output: string | null | undefined;
  /** The called contract's own ABI, or its proxy implementation's; tried before the built-in ABIs. */
  abi?: Abi | null;
};

/**
 * Solidity's own errors with the parameter names Blockscout gives them (`Explorer.Chain.Transaction`'s
 * default error ABI), tried before any other: viem's built-in ones name them `message` and `reason`.
 */
const solidityErrors = new Map(
  parseAbi(["error Error(string reason)", "error Panic(uint256 errorCode)"]).map(
    (error) => [toFunctionSelector(formatAbiItem(error)), error] as const,
  ),
);

/** A transaction's `revert_reason` as Blockscout's API v2 writes it: the decoded error, or the raw data. */
export type RevertReason = DecodedInput | { raw: string };

/**
 * A transaction's `revert_reason`, from what its top-level call reverted with, in Blockscout's shape:
 * - an error that decodes — Solidity's `Error(string)` (`require`/`revert` with a message) and
 *   `Panic(uint256)`, a custom error of the contract's own ABI or of a built-in one — as a decoded input
 *   (`method_id`, `method_call`, `parameters`), values rendered as in `decoded_input`;
 * - other non-empty data: `{"raw": "0x…"}`, lowercase;
 * - no data (`0x`, or nothing known): null.
 *
 * @example
 * decodeRevertReason({ output: "0x08c379a0…" });
 * // { method_id: "08c379a0", method_call: "Error(string reason)",
 * //   parameters: [{ name: "reason", type: "string", value: "Playground: requested failure" }] }
 */
export function decodeRevertReason({ output, abi }: DecodeRevertReasonParameters): RevertReason | null {
  if (!output || output === "0x") return null;
  const data = output.toLowerCase() as Hex;
  const selector = data.slice(0, 10) as Hex;
  const errors = [
    ...[solidityErrors.get(selector)].filter((error) => error !== undefined),
    ...(abi ? (indexAbi(abi).errors.get(selector) ?? []) : []),
    ...(builtinAbiIndex.errors.get(selector) ?? []),
  ];
  for (const error of errors as AbiError[]) {
    let args: readonly unknown[];
    try {
      // Strings are decoded as their bytes (see `asBytes`).
      args = decodeAbiParameters(error.inputs.map(asBytes), `0x${data.slice(10)}`);
    } catch {
      // The selector without the layout: the next candidate may fit.
      continue;
    }
    const parameters = error.inputs.map((input, i) => ({
      name: parameterName(input, i),
      type: canonicalType(input),
      value: renderValue(input, args[i]),
    }));
    return {
      method_id: data.slice(2, 10),
      method_call: formatMethodCall(error.name, parameters),
      parameters,
    };
  }
  return { raw: data };
}
