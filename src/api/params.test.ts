import { describe, expect, test } from "vitest";
import { cursorValue, rowsForLimit } from "./params.ts";

describe("cursorValue", () => {
  test("reads a JSON double's printing back as the exact decimal it spells", () => {
    const big = Number(4_993_999_999_999_999_999_904n);
    expect(String(big)).toBe("4.994e+21");
    expect(cursorValue(String(big))).toBe("4994000000000000000000");
    const aboveTwoTo60 = Number(2n ** 60n + 100n);
    expect(cursorValue(String(aboveTwoTo60))).toBe("1152921504606847000");
    expect(cursorValue("1.0000000000000001e+22")).toBe("10000000000000001000000");
    expect(cursorValue("5e+21")).toBe("5000000000000000000000");
  });

  test("keeps exact digits, drops leading zeros, and spells fractions", () => {
    expect(cursorValue("1152921504606847076")).toBe("1152921504606847076");
    expect(cursorValue("007")).toBe("7");
    expect(cursorValue("0")).toBe("0");
    expect(cursorValue("1.5e-1")).toBe("0.15");
    expect(cursorValue("12e-5")).toBe("0.00012");
    expect(cursorValue("1.230e2")).toBe("123");
  });

  test("null, empty and absent are no value", () => {
    expect(cursorValue("null")).toBeNull();
    expect(cursorValue("")).toBeNull();
    expect(cursorValue(undefined)).toBeNull();
  });
});

describe("rowsForLimit", () => {
  test("is Blockscout's min(page + 1, |limit|)", () => {
    expect(rowsForLimit(undefined, 50)).toBe(51);
    expect(rowsForLimit("null", 50)).toBe(51);
    expect(rowsForLimit("10", 50)).toBe(10);
    expect(rowsForLimit("-3", 50)).toBe(3);
    expect(rowsForLimit("0", 50)).toBe(0);
    expect(rowsForLimit("1000", 50)).toBe(51);
  });
});
