import { type Abi, decodeErrorResult, type Hex, toFunctionSelector } from "viem";
import { type AbiError, builtinAbiIndex, indexAbi } from "./builtin-abis.ts";
import { parameterName, type RenderedValue, renderValue } from "./render-values.ts";

export type DecodeRevertReasonParameters = {
  /** What the reverted top-level call returned (`transactions.revert_output`); null when unknown. */
  output: string | null | undefined;
  /** The called contract's own ABI, or its proxy implementation's; tried before the built-in ABIs. */
  abi?: Abi | null;
};

/** What each `Panic(uint256)` code means, after the Solidity documentation's list. */
const panicReasons = new Map<bigint, string>([
  [0x00n, "generic compiler panic"],
  [0x01n, "assertion failed"],
  [0x11n, "arithmetic underflow or overflow"],
  [0x12n, "division or modulo by zero"],
  [0x21n, "invalid enum value"],
  [0x22n, "invalid storage byte array encoding"],
  [0x31n, "pop on empty array"],
  [0x32n, "array index out of bounds"],
  [0x41n, "out of memory"],
  [0x51n, "call to a zero-initialized internal function"],
]);

const panicSelector = toFunctionSelector("Panic(uint256)");

/**
 * A transaction's `revert_reason` text, decoded from what its top-level call reverted with:
 * - `Error(string)` (`require`/`revert` with a message): the message;
 * - `Panic(uint256)`: `panic: <meaning> (0x<code>)`, e.g. `panic: arithmetic underflow or overflow (0x11)`;
 * - a custom error of the contract's own ABI or a built-in one: its name and each argument as
 *   `name: value`, e.g. `ERC20InsufficientBalance(sender: 0xf39F…2266, balance: 0, needed: 1000)`; values
 *   are rendered as in `decoded_input` (checksummed addresses, decimal integers, lowercase hex bytes),
 *   strings quoted as JSON, arrays and tuples in brackets, unnamed arguments as `arg0`…;
 * - other non-empty data: the raw `0x` hex, lowercase;
 * - no data (`0x`, or nothing known): null.
 *
 * @example
 * decodeRevertReason({ output: "0x08c379a0…" }); // "Playground: requested failure"
 */
export function decodeRevertReason({ output, abi }: DecodeRevertReasonParameters): string | null {
  if (!output || output === "0x") return null;
  const data = output.toLowerCase() as Hex;
  const selector = data.slice(0, 10) as Hex;
  const errors = [
    ...(abi ? (indexAbi(abi).errors.get(selector) ?? []) : []),
    ...(builtinAbiIndex.errors.get(selector) ?? []),
  ];
  // null stands for Solidity's own Error(string) and Panic(uint256), which viem always knows.
  for (const error of [null, ...errors]) {
    let args: readonly unknown[];
    try {
      ({ args = [] } = decodeErrorResult({ abi: error ? [error] : [], data }));
    } catch {
      // Another selector, or the selector without the layout: the next candidate may fit.
      continue;
    }
    if (error) return customErrorText(error, args);
    return selector === panicSelector ? panicText(args[0] as bigint) : (args[0] as string);
  }
  return data;
}

function panicText(code: bigint): string {
  const hex = `0x${code.toString(16).padStart(2, "0")}`;
  return `panic: ${panicReasons.get(code) ?? "unknown panic code"} (${hex})`;
}

function customErrorText(error: AbiError, args: readonly unknown[]): string {
  const text = error.inputs.map((input, i) => {
    const value = renderValue(input, args[i]);
    return `${parameterName(input, i)}: ${inline(value, input.type.startsWith("string"))}`;
  });
  return `${error.name}(${text.join(", ")})`;
}

/** A rendered value on one line: arrays in brackets; `string` values quoted, so commas in them read right. */
function inline(value: RenderedValue, quote: boolean): string {
  if (Array.isArray(value)) return `[${value.map((item) => inline(item, quote)).join(", ")}]`;
  return quote ? JSON.stringify(value) : value;
}
