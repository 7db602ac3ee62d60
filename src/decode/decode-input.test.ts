import {
  encodeAbiParameters,
  encodeFunctionData,
  erc721Abi,
  erc1155Abi,
  getAddress,
  multicall3Abi,
  parseAbi,
  parseAbiParameters,
} from "viem";
import { describe, expect, test } from "vitest";
import { erc20Abi, swapRouterAbi } from "./builtin-abis.ts";
import { decodeInput, transactionMethod } from "./decode-input.ts";

const alice = "0x5b38da6a701c568545dcfcb03fcb875f56beddc4";
const bob = "0x9965507d1a55bcc2695c58ba16fb37d819b0a4dc";

describe("decodeInput", () => {
  test("a string that is not UTF-8 as its bytes in hex, as Blockscout writes it; text as text", () => {
    const abi = parseAbi(["function note(string text, (string, uint8)[] tagged, string[] names)"]);
    const selector = encodeFunctionData({ abi, functionName: "note", args: ["", [], []] }).slice(0, 10);
    // Strings are bytes on the wire: bytes that no UTF-8 string encodes stand where a string is declared.
    const data = encodeAbiParameters(parseAbiParameters("bytes, (bytes, uint8)[], bytes[]"), [
      "0xfffe41",
      [["0xc3a9", 1]],
      ["0x", "0xc0"],
    ]);
    expect(decodeInput({ input: `${selector}${data.slice(2)}`, abi })?.parameters).toEqual([
      { name: "text", type: "string", value: "0xfffe41" },
      { name: "tagged", type: "(string,uint8)[]", value: [["é", "1"]] },
      { name: "names", type: "string[]", value: ["", "0xc0"] },
    ]);
  });

  test("an ERC-20 transfer from the built-in table", () => {
    const input = encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [alice, 10n ** 30n] });
    expect(decodeInput({ input })).toEqual({
      method_id: "a9059cbb",
      method_call: "transfer(address recipient, uint256 amount)",
      parameters: [
        { name: "recipient", type: "address", value: "0x5B38Da6a701c568545dCfcB03FcB875f56beddC4" },
        { name: "amount", type: "uint256", value: "1000000000000000000000000000000" },
      ],
    });
  });

  test("the contract's own ABI wins over the built-in one, with its names", () => {
    const own = parseAbi(["function transfer(address _to, uint256 _value) returns (bool)"]);
    const input = encodeFunctionData({ abi: own, functionName: "transfer", args: [alice, 1n] });
    const decoded = decodeInput({ input, abi: own });
    expect(decoded?.method_call).toBe("transfer(address _to, uint256 _value)");
    expect(decoded?.parameters.map((parameter) => parameter.name)).toEqual(["_to", "_value"]);
  });

  test("falls back to the built-in table when the own ABI lacks the selector", () => {
    const own = parseAbi(["function increment()"]);
    const input = encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [bob, 0n] });
    expect(decodeInput({ input, abi: own })?.method_call).toBe("approve(address spender, uint256 amount)");
  });

  test("an ERC-721 safeTransferFrom with bytes data, as lowercase hex", () => {
    const input = encodeFunctionData({
      abi: erc721Abi,
      functionName: "safeTransferFrom",
      args: [alice, bob, 7n, "0xDEADBEEF"],
    });
    expect(decodeInput({ input })).toEqual({
      method_id: "b88d4fde",
      method_call: "safeTransferFrom(address from, address to, uint256 id, bytes data)",
      parameters: [
        { name: "from", type: "address", value: getAddress(alice) },
        { name: "to", type: "address", value: getAddress(bob) },
        { name: "id", type: "uint256", value: "7" },
        { name: "data", type: "bytes", value: "0xdeadbeef" },
      ],
    });
  });

  test("an ERC-1155 batch transfer: arrays of decimal strings", () => {
    const input = encodeFunctionData({
      abi: erc1155Abi,
      functionName: "safeBatchTransferFrom",
      args: [alice, bob, [1n, 2n, 3n], [10n, 0n, 2n ** 200n], "0x"],
    });
    const decoded = decodeInput({ input });
    expect(decoded?.method_call).toBe(
      "safeBatchTransferFrom(address from, address to, uint256[] ids, uint256[] values, bytes data)",
    );
    expect(decoded?.parameters.slice(2)).toEqual([
      { name: "ids", type: "uint256[]", value: ["1", "2", "3"] },
      { name: "values", type: "uint256[]", value: ["10", "0", (2n ** 200n).toString()] },
      { name: "data", type: "bytes", value: "0x" },
    ]);
  });

  test("a struct parameter: its type spelled out, its value an array in field order", () => {
    const input = encodeFunctionData({
      abi: swapRouterAbi,
      functionName: "exactInputSingle",
      args: [
        {
          tokenIn: alice,
          tokenOut: bob,
          fee: 3000,
          recipient: alice,
          deadline: 1_700_000_000n,
          amountIn: 5n,
          amountOutMinimum: 0n,
          sqrtPriceLimitX96: 0n,
        },
      ],
    });
    const type = "(address,address,uint24,address,uint256,uint256,uint256,uint160)";
    expect(decodeInput({ input })).toEqual({
      method_id: "414bf389",
      method_call: `exactInputSingle(${type} params)`,
      parameters: [
        {
          name: "params",
          type,
          value: [getAddress(alice), getAddress(bob), "3000", getAddress(alice), "1700000000", "5", "0", "0"],
        },
      ],
    });
  });

  test("an array of tuples with bools and nested bytes (Multicall3 aggregate3)", () => {
    const input = encodeFunctionData({
      abi: multicall3Abi,
      functionName: "aggregate3",
      args: [
        [
          { target: alice, allowFailure: true, callData: "0x01" },
          { target: bob, allowFailure: false, callData: "0x" },
        ],
      ],
    });
    expect(decodeInput({ input })?.parameters).toEqual([
      {
        name: "calls",
        type: "(address,bool,bytes)[]",
        value: [
          [getAddress(alice), "true", "0x01"],
          [getAddress(bob), "false", "0x"],
        ],
      },
    ]);
  });

  test("negative integers, fixed arrays, strings, bytesN and unnamed parameters", () => {
    const abi = parseAbi(["function set(int256, int8 small, int64[2] pair, string label, bytes32 key)"]);
    const key = `0x${"AB".repeat(32)}` as const;
    const input = encodeFunctionData({
      abi,
      functionName: "set",
      args: [-(2n ** 255n), -128, [-1n, 1n], "héllo, world", key],
    });
    expect(decodeInput({ input, abi })).toEqual({
      method_id: input.slice(2, 10),
      method_call: "set(int256 arg0, int8 small, int64[2] pair, string label, bytes32 key)",
      parameters: [
        { name: "arg0", type: "int256", value: (-(2n ** 255n)).toString() },
        { name: "small", type: "int8", value: "-128" },
        { name: "pair", type: "int64[2]", value: ["-1", "1"] },
        { name: "label", type: "string", value: "héllo, world" },
        { name: "key", type: "bytes32", value: key.toLowerCase() },
      ],
    });
  });

  test("a function without parameters", () => {
    expect(decodeInput({ input: "0xd0e30db0" })).toEqual({
      method_id: "d0e30db0",
      method_call: "deposit()",
      parameters: [],
    });
  });

  test("nothing for unknown selectors, short inputs and data that does not fit", () => {
    expect(decodeInput({ input: "0x12345678" })).toBeNull();
    expect(decodeInput({ input: "0x" })).toBeNull();
    expect(decodeInput({ input: "0xa9059c" })).toBeNull();
    // transfer's selector with one word where two are needed.
    expect(decodeInput({ input: `0xa9059cbb${"00".repeat(32)}` })).toBeNull();
  });

  test("the arguments' head decides what is too short: static tuples and fixed arrays inline, dynamic values one word", () => {
    const own = parseAbi([
      "function place((uint256 x, address owner) point, uint8[3] small, uint256[2][2] grid, (uint256 id, address to)[2] pair)",
      "function tag(bytes data, string label, (uint256 id, string note) entry, uint256[] ids, address to)",
    ]);
    const place = encodeFunctionData({
      abi: own,
      functionName: "place",
      args: [
        { x: 1n, owner: alice },
        [1, 2, 3],
        [
          [1n, 2n],
          [3n, 4n],
        ],
        [
          { id: 5n, to: bob },
          { id: 6n, to: alice },
        ],
      ],
    });
    // All static: the encoding is the head, 2 + 3 + 4 + 4 words.
    expect((place.length - 10) / 64).toBe(13);
    expect(decodeInput({ input: place, abi: own })?.method_call).toMatch(/^place\(/);
    expect(decodeInput({ input: place.slice(0, -2), abi: own })).toBeNull();
    const tag = encodeFunctionData({
      abi: own,
      functionName: "tag",
      args: ["0x", "", { id: 1n, note: "" }, [], bob],
    });
    expect(decodeInput({ input: tag, abi: own })?.method_call).toMatch(/^tag\(/);
    // Five words of head (four offsets and an address); cut inside it, nothing decodes.
    expect(decodeInput({ input: tag.slice(0, 10 + 5 * 64 - 2), abi: own })).toBeNull();
  });

  test("upper-case input decodes like lower-case", () => {
    const input = encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [alice, 1n] });
    expect(decodeInput({ input: input.toUpperCase().replace("0X", "0x") })).toEqual(decodeInput({ input }));
  });
});

describe("transactionMethod", () => {
  const decodedInput = decodeInput({
    input: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [alice, 1n] }),
  });

  test("the decoded function's name as declared", () => {
    expect(transactionMethod({ input: "0xa9059cbb", decodedInput, toIsContract: true })).toBe("transfer");
  });

  test("the selector for an undecoded call to a contract", () => {
    expect(transactionMethod({ input: "0xABCDEF0102", decodedInput: null, toIsContract: true })).toBe(
      "0xabcdef01",
    );
  });

  test("null for an EOA, a creation, or less than 4 bytes", () => {
    expect(transactionMethod({ input: "0xabcdef0102", decodedInput: null, toIsContract: false })).toBeNull();
    expect(transactionMethod({ input: "0xabcdef", decodedInput: null, toIsContract: true })).toBeNull();
    expect(transactionMethod({ input: "0x", decodedInput: null, toIsContract: true })).toBeNull();
  });
});
