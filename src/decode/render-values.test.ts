import { getAddress } from "viem";
import { describe, expect, test } from "vitest";
import {
  canonicalType,
  formatMethodCall,
  isHashedWhenIndexed,
  parameterName,
  renderValue,
} from "./render-values.ts";

const alice = "0x5b38da6a701c568545dcfcb03fcb875f56beddc4";

describe("renderValue", () => {
  test("scalars as Blockscout writes them", () => {
    expect(renderValue({ type: "uint256" }, 2n ** 256n - 1n)).toBe((2n ** 256n - 1n).toString());
    expect(renderValue({ type: "int24" }, -887270)).toBe("-887270");
    expect(renderValue({ type: "int256" }, -(2n ** 255n))).toBe(`-${2n ** 255n}`);
    expect(renderValue({ type: "bool" }, false)).toBe("false");
    expect(renderValue({ type: "address" }, alice)).toBe("0x5B38Da6a701c568545dCfcB03FcB875f56beddC4");
    expect(renderValue({ type: "bytes32" }, `0x${"AB".repeat(32)}`)).toBe(`0x${"ab".repeat(32)}`);
    expect(renderValue({ type: "bytes" }, "0x")).toBe("0x");
    expect(renderValue({ type: "string" }, 'ünïcode, "quoted"')).toBe('ünïcode, "quoted"');
  });

  test("nested arrays: the last brackets are the outer dimension", () => {
    expect(
      renderValue({ type: "uint8[2][]" }, [
        [1, 2],
        [3, 4],
        [5, 6],
      ]),
    ).toEqual([
      ["1", "2"],
      ["3", "4"],
      ["5", "6"],
    ]);
  });

  test("tuples as arrays in field order, whether viem gave an object or an array", () => {
    const named = {
      type: "tuple",
      components: [
        { name: "who", type: "address" },
        { name: "ok", type: "bool" },
      ],
    };
    expect(renderValue(named, { ok: true, who: alice })).toEqual([getAddress(alice), "true"]);
    const unnamed = { type: "tuple[]", components: [{ type: "int8" }, { type: "bytes" }] };
    expect(renderValue(unnamed, [[-1, "0xFF"]])).toEqual([["-1", "0xff"]]);
  });
});

describe("types, names and calls", () => {
  test("canonicalType spells out tuples, nested and in arrays", () => {
    expect(canonicalType({ type: "uint256" })).toBe("uint256");
    const inner = { type: "tuple[2]", components: [{ type: "bytes4" }] };
    expect(canonicalType({ type: "tuple[]", components: [{ type: "address" }, inner] })).toBe(
      "(address,(bytes4)[2])[]",
    );
  });

  test("unnamed parameters are arg{position}", () => {
    expect(parameterName({ type: "uint256", name: "" }, 3)).toBe("arg3");
    expect(parameterName({ type: "uint256" }, 0)).toBe("arg0");
    expect(parameterName({ type: "uint256", name: "amount" }, 0)).toBe("amount");
  });

  test("reference types are hashed when indexed", () => {
    expect(
      ["string", "bytes", "tuple", "uint256[]", "address[2]"].map((type) => isHashedWhenIndexed({ type })),
    ).toEqual([true, true, true, true, true]);
    expect(["address", "bytes32", "int24", "bool"].some((type) => isHashedWhenIndexed({ type }))).toBe(false);
  });

  test("formatMethodCall", () => {
    expect(formatMethodCall("deposit", [])).toBe("deposit()");
    expect(
      formatMethodCall("Swap", [
        { name: "sender", type: "address", indexed: true },
        { name: "amount0", type: "int256", indexed: false },
      ]),
    ).toBe("Swap(address indexed sender, int256 amount0)");
  });
});
