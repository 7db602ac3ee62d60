import { type Abi, type AbiFunction, type AbiParameter, decodeAbiParameters, type Hex } from "viem";
import { type AbiIndex, builtinAbiIndex, indexAbi } from "./builtin-abis.ts";
import {
  asBytes,
  canonicalType,
  formatMethodCall,
  parameterName,
  type RenderedParameter,
  renderValue,
} from "./render-values.ts";

/** A transaction's `decoded_input` as Blockscout's API v2 writes it. */
export type DecodedInput = {
  /** The 4-byte selector, lowercase hex without `0x`, e.g. `a9059cbb`. */
  method_id: string;
  /** E.g. `transfer(address to, uint256 amount)`. */
  method_call: string;
  parameters: RenderedParameter[];
};

export type DecodeInputParameters = {
  /** The transaction's (or call's) input, `0x` hex. */
  input: string;
  /** The called contract's own ABI, or its proxy implementation's; tried before the built-in ABIs. */
  abi?: Abi | null;
};

/**
 * Decodes call data with the contract's own ABI first, then with the built-in ABIs (token standards,
 * proxies, Multicall3, EntryPoints, Uniswap v3, Aave v3). Null when the input has no selector, no ABI
 * knows the selector, or the data does not fit any function that has it.
 *
 * It does not check that the callee is a contract; {@link transactionMethod} does for `method`.
 *
 * @example
 * decodeInput({ input: "0xa9059cbb000…0001" });
 * // { method_id: "a9059cbb", method_call: "transfer(address to, uint256 amount)",
 * //   parameters: [{ name: "to", type: "address", value: "0x…" }, { name: "amount", type: "uint256", value: "1" }] }
 */
export function decodeInput({ input, abi }: DecodeInputParameters): DecodedInput | null {
  if (input.length < 10) return null;
  const data = input.toLowerCase() as Hex;
  const selector = data.slice(0, 10) as Hex;
  const indexes: AbiIndex[] = abi ? [indexAbi(abi), builtinAbiIndex] : [builtinAbiIndex];
  for (const index of indexes) {
    for (const item of index.functions.get(selector) ?? []) {
      const decoded = decodeWith(item, data);
      if (decoded) return decoded;
    }
  }
  return null;
}

/** Bytes a value of the type takes in its encoding's head: its own for a static type, a word for an offset. */
function headBytes(parameter: AbiParameter): number {
  const array = parameter.type.match(/^(.*)\[(\d*)\]$/);
  if (array) {
    const [, element, length] = array as unknown as [string, string, string];
    const elementHead = headBytes({ ...parameter, type: element });
    return length === "" || isDynamic({ ...parameter, type: element }) ? 32 : Number(length) * elementHead;
  }
  if (parameter.type === "tuple") {
    if (isDynamic(parameter)) return 32;
    return componentsOf(parameter).reduce((sum, component) => sum + headBytes(component), 0);
  }
  return 32;
}

function isDynamic(parameter: AbiParameter): boolean {
  const array = parameter.type.match(/^(.*)\[(\d*)\]$/);
  if (array) return array[2] === "" || isDynamic({ ...parameter, type: array[1] as string });
  if (parameter.type === "tuple") return componentsOf(parameter).some(isDynamic);
  return parameter.type === "bytes" || parameter.type === "string";
}

function componentsOf(parameter: AbiParameter): readonly AbiParameter[] {
  return "components" in parameter ? parameter.components : [];
}

const minimumInputLengths = new WeakMap<AbiFunction, number>();

/** The fewest bytes of call data (selector included) that can hold the function's arguments. */
function minimumInputLength(item: AbiFunction): number {
  let length = minimumInputLengths.get(item);
  if (length === undefined) {
    length = 4 + item.inputs.reduce((sum, input) => sum + headBytes(input), 0);
    minimumInputLengths.set(item, length);
  }
  return length;
}

function decodeWith(item: AbiFunction, data: Hex): DecodedInput | null {
  // Too short to hold the arguments: decoding would fail, and a failure costs a thrown error (about 25 µs,
  // most of a page's decoding when its transactions carry truncated call data).
  if ((data.length - 2) / 2 < minimumInputLength(item)) return null;
  let args: readonly unknown[];
  try {
    // The selector was matched by the index; strings are decoded as their bytes (see `asBytes`).
    args = decodeAbiParameters(item.inputs.map(asBytes), `0x${data.slice(10)}`);
  } catch {
    // Data too short or malformed for this function: another candidate may fit.
    return null;
  }
  const parameters = item.inputs.map((input, i) => ({
    name: parameterName(input, i),
    type: canonicalType(input),
    value: renderValue(input, args[i]),
  }));
  return {
    method_id: data.slice(2, 10),
    method_call: formatMethodCall(item.name, parameters),
    parameters,
  };
}

export type TransactionMethodParameters = {
  input: string;
  /** What {@link decodeInput} made of the input. */
  decodedInput: DecodedInput | null;
  /** The transaction's `to` has code; false for a contract creation. */
  toIsContract: boolean;
};

/**
 * A transaction's `method` as Blockscout names it: the decoded function's name as declared
 * (`transfer`), else the `0x` selector when the input has at least 4 bytes and goes to a contract,
 * else null.
 *
 * @example
 * transactionMethod({ input: "0x12345678", decodedInput: null, toIsContract: true }); // "0x12345678"
 */
export function transactionMethod({
  input,
  decodedInput,
  toIsContract,
}: TransactionMethodParameters): string | null {
  if (decodedInput) return decodedInput.method_call.slice(0, decodedInput.method_call.indexOf("("));
  return toIsContract && input.length >= 10 ? input.slice(0, 10).toLowerCase() : null;
}

/**
 * The name of the function a 4-byte selector calls, where only the selector is at hand (a token
 * transfer's `method`): the first function with that selector in `abi` (the called contract's imported
 * ABIs), else in the built-in ABIs, else the selector itself.
 */
export function selectorMethod(selector: string, abi?: Abi | null): string {
  const key = selector.toLowerCase() as Hex;
  const [known] = (abi && indexAbi(abi).functions.get(key)) || builtinAbiIndex.functions.get(key) || [];
  return known?.name ?? selector;
}
