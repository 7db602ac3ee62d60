import { encodeErrorResult, getAddress, parseAbi } from "viem";
import { describe, expect, test } from "vitest";
import { erc20ErrorsAbi } from "./builtin-abis.ts";
import { decodeRevertReason } from "./revert-reason.ts";

const alice = "0x5b38da6a701c568545dcfcb03fcb875f56beddc4";
const errorAbi = parseAbi(["error Error(string)", "error Panic(uint256)"]);

describe("decodeRevertReason", () => {
  test("Error(string) gives the message", () => {
    const output = encodeErrorResult({
      abi: errorAbi,
      errorName: "Error",
      args: ["Playground: requested failure"],
    });
    expect(decodeRevertReason({ output })).toBe("Playground: requested failure");
  });

  test("Panic(uint256) names the code", () => {
    const panic = (code: bigint) =>
      decodeRevertReason({ output: encodeErrorResult({ abi: errorAbi, errorName: "Panic", args: [code] }) });
    expect(panic(0x11n)).toBe("panic: arithmetic underflow or overflow (0x11)");
    expect(panic(0x01n)).toBe("panic: assertion failed (0x01)");
    expect(panic(0x32n)).toBe("panic: array index out of bounds (0x32)");
    expect(panic(0x99n)).toBe("panic: unknown panic code (0x99)");
  });

  test("a custom error of the contract's own ABI, with its arguments by name", () => {
    const abi = parseAbi(["error RequestedFailure(address caller, uint256 code)"]);
    const output = encodeErrorResult({ abi, errorName: "RequestedFailure", args: [alice, 4n] });
    expect(decodeRevertReason({ output, abi })).toBe(
      `RequestedFailure(caller: ${getAddress(alice)}, code: 4)`,
    );
    // Unknown without that ABI: the raw data.
    expect(decodeRevertReason({ output })).toBe(output);
  });

  test("a custom error of a built-in ABI (OpenZeppelin 5's ERC-20 errors)", () => {
    const output = encodeErrorResult({
      abi: erc20ErrorsAbi,
      errorName: "ERC20InsufficientBalance",
      args: [alice, 0n, 10n ** 27n],
    });
    expect(decodeRevertReason({ output })).toBe(
      `ERC20InsufficientBalance(sender: ${getAddress(alice)}, balance: 0, needed: 1000000000000000000000000000)`,
    );
  });

  test("strings quoted, arrays and tuples bracketed, negative numbers, unnamed arguments", () => {
    const abi = parseAbi([
      "error Bad(string reason, int256[] deltas, (bool, bytes2) pair, string[] tags, uint8)",
    ]);
    const output = encodeErrorResult({
      abi,
      errorName: "Bad",
      args: ["a, b", [-1n, 2n], [true, "0xABCD"], ["x", 'y"'], 3],
    });
    expect(decodeRevertReason({ output, abi })).toBe(
      'Bad(reason: "a, b", deltas: [-1, 2], pair: [true, 0xabcd], tags: ["x", "y\\""], arg4: 3)',
    );
  });

  test("a custom error without arguments", () => {
    const abi = parseAbi(["error Paused()"]);
    expect(decodeRevertReason({ output: encodeErrorResult({ abi, errorName: "Paused" }), abi })).toBe(
      "Paused()",
    );
  });

  test("raw hex for unknown or malformed data; null for none", () => {
    expect(decodeRevertReason({ output: "0xDEADBEEF01" })).toBe("0xdeadbeef01");
    // Error(string)'s selector without a string after it.
    expect(decodeRevertReason({ output: "0x08c379a0" })).toBe("0x08c379a0");
    expect(decodeRevertReason({ output: "0x" })).toBeNull();
    expect(decodeRevertReason({ output: null })).toBeNull();
  });
});
