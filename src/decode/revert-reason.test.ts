import { encodeAbiParameters, encodeErrorResult, getAddress, parseAbi } from "viem";
import { describe, expect, test } from "vitest";
import { erc20ErrorsAbi } from "./builtin-abis.ts";
import { decodeRevertReason } from "./revert-reason.ts";

const alice = "0x5b38da6a701c568545dcfcb03fcb875f56beddc4";
const errorAbi = parseAbi(["error Error(string)", "error Panic(uint256)"]);

describe("decodeRevertReason", () => {
  test("Error(string) gives the message as a decoded input, named `reason` as Blockscout names it", () => {
    const output = encodeErrorResult({
      abi: errorAbi,
      errorName: "Error",
      args: ["Playground: requested failure"],
    });
    expect(decodeRevertReason({ output })).toEqual({
      method_id: "08c379a0",
      method_call: "Error(string reason)",
      parameters: [{ name: "reason", type: "string", value: "Playground: requested failure" }],
    });
  });

  test("an Error(string) whose message is not UTF-8 gives its bytes in hex, as Blockscout writes it", () => {
    const output = `0x08c379a0${encodeAbiParameters([{ type: "bytes" }], ["0xe29c"]).slice(2)}` as const;
    expect(decodeRevertReason({ output })).toEqual({
      method_id: "08c379a0",
      method_call: "Error(string reason)",
      parameters: [{ name: "reason", type: "string", value: "0xe29c" }],
    });
  });

  test("Panic(uint256) gives the code, named `errorCode` as Blockscout names it", () => {
    const output = encodeErrorResult({ abi: errorAbi, errorName: "Panic", args: [0x11n] });
    expect(decodeRevertReason({ output })).toEqual({
      method_id: "4e487b71",
      method_call: "Panic(uint256 errorCode)",
      parameters: [{ name: "errorCode", type: "uint256", value: "17" }],
    });
  });

  test("a custom error of the contract's own ABI, with its arguments by name", () => {
    const abi = parseAbi(["error RequestedFailure(address caller, uint256 code)"]);
    const output = encodeErrorResult({ abi, errorName: "RequestedFailure", args: [alice, 4n] });
    expect(decodeRevertReason({ output, abi })).toEqual({
      method_id: output.slice(2, 10),
      method_call: "RequestedFailure(address caller, uint256 code)",
      parameters: [
        { name: "caller", type: "address", value: getAddress(alice) },
        { name: "code", type: "uint256", value: "4" },
      ],
    });
    // Unknown without that ABI: the raw data.
    expect(decodeRevertReason({ output })).toEqual({ raw: output });
  });

  test("a custom error of a built-in ABI (OpenZeppelin 5's ERC-20 errors)", () => {
    const output = encodeErrorResult({
      abi: erc20ErrorsAbi,
      errorName: "ERC20InsufficientBalance",
      args: [alice, 0n, 10n ** 27n],
    });
    expect(decodeRevertReason({ output })).toMatchObject({
      method_call: "ERC20InsufficientBalance(address sender, uint256 balance, uint256 needed)",
      parameters: [
        { name: "sender", value: getAddress(alice) },
        { name: "balance", value: "0" },
        { name: "needed", value: "1000000000000000000000000000" },
      ],
    });
  });

  test("arrays, tuples, negative numbers and unnamed arguments rendered as in decoded_input", () => {
    const abi = parseAbi([
      "error Bad(string reason, int256[] deltas, (bool, bytes2) pair, string[] tags, uint8)",
    ]);
    const output = encodeErrorResult({
      abi,
      errorName: "Bad",
      args: ["a, b", [-1n, 2n], [true, "0xABCD"], ["x", 'y"'], 3],
    });
    expect(decodeRevertReason({ output, abi })).toMatchObject({
      method_call: "Bad(string reason, int256[] deltas, (bool,bytes2) pair, string[] tags, uint8 arg4)",
      parameters: [
        { value: "a, b" },
        { value: ["-1", "2"] },
        { value: ["true", "0xabcd"] },
        { value: ["x", 'y"'] },
        { name: "arg4", value: "3" },
      ],
    });
  });

  test("a custom error without arguments", () => {
    const abi = parseAbi(["error Paused()"]);
    const output = encodeErrorResult({ abi, errorName: "Paused" });
    expect(decodeRevertReason({ output, abi })).toEqual({
      method_id: output.slice(2, 10),
      method_call: "Paused()",
      parameters: [],
    });
  });

  test("raw hex for unknown or malformed data; null for none", () => {
    expect(decodeRevertReason({ output: "0xDEADBEEF01" })).toEqual({ raw: "0xdeadbeef01" });
    // Error(string)'s selector without a string after it.
    expect(decodeRevertReason({ output: "0x08c379a0" })).toEqual({ raw: "0x08c379a0" });
    expect(decodeRevertReason({ output: "0x" })).toBeNull();
    expect(decodeRevertReason({ output: null })).toBeNull();
  });
});
