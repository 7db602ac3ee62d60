import {
  encodeAbiParameters,
  encodeEventTopics,
  getAddress,
  type Hex,
  keccak256,
  parseAbi,
  parseAbiParameters,
  toHex,
} from "viem";
import { describe, expect, test } from "vitest";
import { at } from "../../test/support/elements.ts";
import { erc20Abi, erc721Abi, erc1155Abi } from "./builtin-abis.ts";
import { decodeLog } from "./decode-log.ts";

const alice = "0x5b38da6a701c568545dcfcb03fcb875f56beddc4";
const bob = "0x9965507d1a55bcc2695c58ba16fb37d819b0a4dc";
const word = (value: bigint) => encodeAbiParameters([{ type: "uint256" }], [value]);

describe("decodeLog", () => {
  test("a string that is not UTF-8 as its bytes in hex, as Blockscout writes it; an indexed one as its hash", () => {
    const abi = parseAbi(["event Named(string indexed key, address indexed who, string name, string label)"]);
    const topics = encodeEventTopics({ abi, eventName: "Named", args: { key: "k", who: alice } }) as Hex[];
    const data = encodeAbiParameters(parseAbiParameters("bytes, bytes"), ["0x80ff", toHex("plain")]);
    expect(decodeLog({ topics, data, abi })?.parameters).toEqual([
      { name: "key", type: "string", indexed: true, value: keccak256(toHex("k")) },
      { name: "who", type: "address", indexed: true, value: getAddress(alice) },
      { name: "name", type: "string", indexed: false, value: "0x80ff" },
      { name: "label", type: "string", indexed: false, value: "plain" },
    ]);
  });

  const erc20Topics = encodeEventTopics({
    abi: erc20Abi,
    eventName: "Transfer",
    args: { from: alice, to: bob },
  }) as Hex[];

  test("an ERC-20 Transfer: two indexed addresses, the amount in data", () => {
    expect(decodeLog({ topics: erc20Topics, data: word(10n ** 18n) })).toEqual({
      method_call: "Transfer(address indexed from, address indexed to, uint256 value)",
      method_id: "ddf252ad",
      parameters: [
        { name: "from", type: "address", indexed: true, value: getAddress(alice) },
        { name: "to", type: "address", indexed: true, value: getAddress(bob) },
        { name: "value", type: "uint256", indexed: false, value: "1000000000000000000" },
      ],
    });
  });

  test("an ERC-721 Transfer, same topic0 but three indexed parameters", () => {
    const topics = encodeEventTopics({
      abi: erc721Abi,
      eventName: "Transfer",
      args: { from: alice, to: bob, tokenId: 42n },
    }) as Hex[];
    expect(topics[0]).toBe(erc20Topics[0]);
    expect(decodeLog({ topics, data: "0x" })).toEqual({
      method_call: "Transfer(address indexed from, address indexed to, uint256 indexed tokenId)",
      method_id: "ddf252ad",
      parameters: [
        { name: "from", type: "address", indexed: true, value: getAddress(alice) },
        { name: "to", type: "address", indexed: true, value: getAddress(bob) },
        { name: "tokenId", type: "uint256", indexed: true, value: "42" },
      ],
    });
  });

  test("null padding of the API's four topics is ignored", () => {
    expect(decodeLog({ topics: [...erc20Topics, null], data: word(1n) })?.parameters[2]?.value).toBe("1");
  });

  test("a Transfer topic with a layout no known event has is not decoded", () => {
    expect(decodeLog({ topics: [at(erc20Topics, 0)], data: word(1n) })).toBeNull();
    // ERC-20's form without the amount in data.
    expect(decodeLog({ topics: erc20Topics, data: "0x" })).toBeNull();
  });

  test("unknown topics, and logs without topics, give null", () => {
    expect(decodeLog({ topics: [keccak256(toHex("Nothing()"))], data: "0x" })).toBeNull();
    expect(decodeLog({ topics: [], data: "0x" })).toBeNull();
  });

  test("an ERC-1155 TransferBatch: arrays from data", () => {
    const topics = encodeEventTopics({
      abi: erc1155Abi,
      eventName: "TransferBatch",
      args: { operator: alice, from: alice, to: bob },
    }) as Hex[];
    const data = encodeAbiParameters(parseAbiParameters("uint256[], uint256[]"), [
      [1n, 2n],
      [5n, 6n],
    ]);
    const decoded = decodeLog({ topics, data });
    expect(decoded?.method_call).toBe(
      "TransferBatch(address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values)",
    );
    expect(decoded?.parameters.slice(3)).toEqual([
      { name: "ids", type: "uint256[]", indexed: false, value: ["1", "2"] },
      { name: "values", type: "uint256[]", indexed: false, value: ["5", "6"] },
    ]);
  });

  test("the own ABI first; indexed strings as their hash; unnamed and repeated names by position", () => {
    const abi = parseAbi([
      "event Noted(string indexed label, int24 indexed tick, address, (uint8 kind, bool on)[] items, int256 delta, int256 delta)",
    ]);
    const topics = encodeEventTopics({
      abi,
      eventName: "Noted",
      args: { label: "hello", tick: -5 },
    }) as Hex[];
    const data = encodeAbiParameters(parseAbiParameters("address, (uint8, bool)[], int256, int256"), [
      alice,
      [
        [1, true],
        [2, false],
      ],
      -7n,
      7n,
    ]);
    expect(decodeLog({ topics, data, abi })).toEqual({
      method_call:
        "Noted(string indexed label, int24 indexed tick, address arg2, (uint8,bool)[] items, int256 delta, int256 delta)",
      method_id: (topics[0] as Hex).slice(2, 10),
      parameters: [
        { name: "label", type: "string", indexed: true, value: keccak256(toHex("hello")) },
        { name: "tick", type: "int24", indexed: true, value: "-5" },
        { name: "arg2", type: "address", indexed: false, value: getAddress(alice) },
        {
          name: "items",
          type: "(uint8,bool)[]",
          indexed: false,
          value: [
            ["1", "true"],
            ["2", "false"],
          ],
        },
        { name: "delta", type: "int256", indexed: false, value: "-7" },
        { name: "delta", type: "int256", indexed: false, value: "7" },
      ],
    });
    // Not in the built-in table: without the own ABI there is nothing to decode with.
    expect(decodeLog({ topics, data })).toBeNull();
  });

  test("the own ABI's names win over the built-in ones", () => {
    const own = parseAbi(["event Transfer(address indexed src, address indexed dst, uint256 wad)"]);
    const decoded = decodeLog({ topics: erc20Topics, data: word(3n), abi: own });
    expect(decoded?.method_call).toBe("Transfer(address indexed src, address indexed dst, uint256 wad)");
  });
});
