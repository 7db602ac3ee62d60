import { type Abi, type AbiEvent, decodeAbiParameters, type Hex } from "viem";
import { type AbiIndex, builtinAbiIndex, eventsOfLog, indexAbi } from "./builtin-abis.ts";
import {
  asBytes,
  canonicalType,
  formatMethodCall,
  isHashedWhenIndexed,
  parameterName,
  type RenderedParameter,
  renderValue,
} from "./render-values.ts";

/** A log's `decoded` as Blockscout's API v2 writes it. */
export type DecodedLog = {
  /** E.g. `Transfer(address indexed from, address indexed to, uint256 value)`. */
  method_call: string;
  /** The first 4 bytes of the event's topic, lowercase hex without `0x`, e.g. `ddf252ad`. */
  method_id: string;
  parameters: DecodedLogParameter[];
};

export type DecodedLogParameter = RenderedParameter & { indexed: boolean };

export type DecodeLogParameters = {
  /** The log's topics; `null` entries (as the API pads them to four) are ignored. */
  topics: readonly (string | null)[];
  data: string;
  /** The emitting contract's own ABI, or its proxy implementation's; tried before the built-in ABIs. */
  abi?: Abi | null;
};

/**
 * Decodes a log with the emitter's own ABI first, then with the built-in ABIs. An event only matches a
 * log with as many topics as it has indexed parameters plus one, so ERC-20's and ERC-721's `Transfer`
 * are told apart. Null when no event fits; anonymous events are never guessed.
 *
 * @example
 * decodeLog({ topics: [transferTopic, fromTopic, toTopic], data: "0x…01" });
 * // { method_call: "Transfer(address indexed from, address indexed to, uint256 value)",
 * //   method_id: "ddf252ad", parameters: [{ name: "from", type: "address", indexed: true, value: "0x…" }, …] }
 */
export function decodeLog({ topics, data, abi }: DecodeLogParameters): DecodedLog | null {
  const [selector, ...indexed] = topics.filter((topic): topic is string => topic !== null).map(lowerHex);
  // A log without topics names no event.
  if (selector === undefined) return null;
  const present: [Hex, ...Hex[]] = [selector, ...indexed];
  const indexes: AbiIndex[] = abi ? [indexAbi(abi), builtinAbiIndex] : [builtinAbiIndex];
  for (const index of indexes) {
    for (const event of eventsOfLog(index, present)) {
      const decoded = decodeWith(event, present, lowerHex(data));
      if (decoded) return decoded;
    }
  }
  return null;
}

function decodeWith(event: AbiEvent, topics: [Hex, ...Hex[]], data: Hex): DecodedLog | null {
  // The index matched the selector and the count of indexed parameters. The data holds the others, strings
  // as their bytes (see `asBytes`); each indexed one is a topic, the hash of a value of a reference type.
  let args: unknown[];
  try {
    const inData = decodeAbiParameters(
      event.inputs.filter((input) => input.indexed !== true).map(asBytes),
      data,
    );
    let nextTopic = 1;
    let nextData = 0;
    args = event.inputs.map((input) => {
      if (input.indexed !== true) return inData[nextData++];
      const topic = topics[nextTopic++] as Hex;
      return isHashedWhenIndexed(input) ? topic : decodeAbiParameters([input], topic)[0];
    });
  } catch {
    // Data too short for this event: another candidate may fit.
    return null;
  }
  const parameters = event.inputs.map((input, i) => {
    const indexed = input.indexed === true;
    return {
      name: parameterName(input, i),
      type: canonicalType(input),
      indexed,
      value:
        indexed && isHashedWhenIndexed(input)
          ? (args[i] as string).toLowerCase()
          : renderValue(input, args[i]),
    };
  });
  return {
    method_call: formatMethodCall(event.name, parameters),
    method_id: topics[0].slice(2, 10),
    parameters,
  };
}

function lowerHex(value: string): Hex {
  return value.toLowerCase() as Hex;
}
