import { type AbiParameter, getAddress, type Hex, hexToBytes } from "viem";

/**
 * A decoded value as Blockscout's API writes it (`Explorer.Chain.DecodingHelper.value_json`): scalars as
 * strings, arrays and tuples as JSON arrays of their elements, nested as deep as the type.
 */
export type RenderedValue = string | RenderedValue[];

/** One decoded parameter of `decoded_input` or of a log's `decoded` (which adds `indexed`). */
export type RenderedParameter = { name: string; type: string; value: RenderedValue };

/**
 * Renders a value viem decoded for an ABI parameter the way Blockscout does:
 * - integers of any size and sign: decimal digits (`"-887270"`), as Elixir's `to_string`;
 * - `address`: EIP-55 checksummed;
 * - `bool`: `"true"` or `"false"`;
 * - `bytes` and `bytesN`: lowercase `0x` hex, as `Base.encode16(case: :lower)`;
 * - `string`: decoded as its bytes ({@link asBytes}), the text, or lowercase `0x` hex when it is not UTF-8;
 * - arrays (fixed or dynamic) and tuples: arrays of their rendered elements, tuple fields in
 *   declaration order without names.
 *
 * An indexed event parameter of a reference type ({@link isHashedWhenIndexed}) is only the keccak-256
 * hash of its value; render that topic as lowercase hex, as Blockscout does with its `{:dynamic, hash}`.
 *
 * @example
 * renderValue({ type: "int24" }, -887270); // "-887270"
 * renderValue({ type: "tuple[]", components: [{ type: "bool" }] }, [[true]]); // [["true"]]
 */
export function renderValue(parameter: AbiParameter, value: unknown): RenderedValue {
  const elementType = /^(.*)\[\d*\]$/.exec(parameter.type)?.[1];
  if (elementType !== undefined) {
    // The last brackets are the outer dimension: `uint8[2][]` is a dynamic array of `uint8[2]`.
    const element = { ...parameter, type: elementType };
    return (value as readonly unknown[]).map((item) => renderValue(element, item));
  }
  if (parameter.type === "tuple") {
    // viem returns a tuple as an object when every field is named, else as an array.
    return componentsOf(parameter).map((component, i) =>
      renderValue(
        component,
        Array.isArray(value) ? value[i] : (value as Record<string, unknown>)[component.name as string],
      ),
    );
  }
  if (parameter.type === "address") return getAddress(value as string);
  if (parameter.type.startsWith("bytes")) return (value as string).toLowerCase();
  if (parameter.type === "string") return renderString(value as string);
  return String(value);
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * A `string` decoded as its bytes ({@link asBytes}): the text when the bytes are UTF-8, else the bytes as
 * lowercase hex, as Blockscout writes a string that is not (Elixir's `String.valid?`); replacement
 * characters would hide what the contract sent. A value already text is kept.
 */
function renderString(value: string): string {
  if (!/^0x([0-9a-fA-F]{2})*$/.test(value)) return value;
  try {
    return strictUtf8.decode(hexToBytes(value as Hex));
  } catch {
    return value.toLowerCase();
  }
}

/**
 * The parameter with each `string` in it (at any depth of arrays and tuples) typed `bytes`, which is
 * encoded the same way: decoded with it, a string keeps its bytes, for {@link renderValue} to tell whether
 * they are text. Only for decoding values; selectors and `method_call` take the declared types.
 */
export function asBytes<T extends AbiParameter>(parameter: T): T {
  if (parameter.type === "string" || parameter.type.startsWith("string[")) {
    return { ...parameter, type: `bytes${parameter.type.slice("string".length)}` };
  }
  if (parameter.type.startsWith("tuple") && "components" in parameter) {
    return { ...parameter, components: parameter.components.map(asBytes) };
  }
  return parameter;
}

/** Whether an indexed event parameter of this type is stored as the hash of its value, not the value. */
export function isHashedWhenIndexed(parameter: AbiParameter): boolean {
  return (
    parameter.type === "string" ||
    parameter.type === "bytes" ||
    parameter.type.startsWith("tuple") ||
    parameter.type.endsWith("]")
  );
}

/**
 * A parameter's type as Blockscout writes it (ex_abi's `encode_type`): the ABI type, with tuples spelled
 * out as their component types, e.g. `(address,uint256)[]`.
 *
 * @example
 * canonicalType({ type: "tuple", components: [{ type: "address" }, { type: "uint24" }] }); // "(address,uint24)"
 */
export function canonicalType(parameter: AbiParameter): string {
  if (!parameter.type.startsWith("tuple")) return parameter.type;
  const components = componentsOf(parameter).map(canonicalType).join(",");
  return `(${components})${parameter.type.slice("tuple".length)}`;
}

/** A parameter's name, or `arg{position}` for an unnamed one, as Blockscout names them. */
export function parameterName(parameter: AbiParameter, position: number): string {
  return parameter.name ? parameter.name : `arg${position}`;
}

/**
 * Blockscout's `method_call` text: the name, then each parameter's canonical type, `indexed ` for indexed
 * event parameters, and its name.
 *
 * @example
 * formatMethodCall("transfer", [{ name: "to", type: "address" }, { name: "amount", type: "uint256" }]);
 * // "transfer(address to, uint256 amount)"
 */
export function formatMethodCall(
  name: string,
  parameters: readonly { name: string; type: string; indexed?: boolean }[],
): string {
  const text = parameters.map(
    (parameter) => `${parameter.type} ${parameter.indexed ? "indexed " : ""}${parameter.name}`,
  );
  return `${name}(${text.join(", ")})`;
}

function componentsOf(parameter: AbiParameter): readonly AbiParameter[] {
  return "components" in parameter ? parameter.components : [];
}
