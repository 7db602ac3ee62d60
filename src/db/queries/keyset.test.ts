import { describe, expect, it } from "vitest";
import { expandDecimal } from "../../decimal.ts";
import { belowDoubleRounding, notFromDouble } from "./keyset.ts";

/**
 * A seeded walk of 2,000 integers over magnitudes from 2^53 to 2^260, each as the frontend sends it back
 * (`String(JSON.parse(...))`) and as the API hands it to the query layer (spelled out).
 */
function* sentAsDoubles(seed: bigint): Generator<{ exact: bigint; printed: string; spelled: string }> {
  for (let i = 0; i < 2_000; i++) {
    seed = (seed * 6364136223846793005n + 1442695040888963407n) % 2n ** 64n;
    const bits = 53n + (seed % 208n);
    const exact = 2n ** bits + ((seed * 2654435761n) % 2n ** bits);
    const printed = String(Number(exact));
    yield { exact, printed, spelled: expandDecimal(printed) ?? "" };
  }
}

describe("notFromDouble", () => {
  it("takes every integer below 2^53 as exact, and negative values", () => {
    for (const value of ["0", "1", "9007199254740991", "-5", "-123456789012345678901234567890"]) {
      expect(notFromDouble(value)).toBe(true);
    }
  });

  it("never takes what String prints of a double of 2^53 or more as exact", () => {
    for (const { printed, spelled } of sentAsDoubles(13n)) {
      expect(notFromDouble(spelled), `${printed} spelled ${spelled}`).toBe(false);
    }
    // The API hands the query layer a cursor's value spelled out: `4.994e+21` as 4994000000000000000000.
    for (const printed of [
      "9007199254740992",
      "100000000000000000000",
      "1000000000000000000000",
      "4994000000000000000000",
    ]) {
      expect(notFromDouble(printed), printed).toBe(false);
    }
  });

  it("takes digits that no double prints as exact", () => {
    for (const value of [
      "123456789012345678901",
      "1000000000000000000001",
      "4994000000000000000001",
      "115792089237316195423570985008687907853269984665640564039457584007913129639935",
      "1234567890123456789012345678901234567890123456789012345678901234567890123456789",
    ]) {
      expect(String(Number(value))).not.toBe(value);
      expect(notFromDouble(value), value).toBe(true);
    }
  });

  it("looks up what it cannot tell: leading zeros before a double's digits, and fractions", () => {
    expect(notFromDouble("00100000000000000000000")).toBe(false);
    expect(notFromDouble("123456789012345678901.5")).toBe(false);
    expect(notFromDouble("abc")).toBe(false);
  });
});

describe("belowDoubleRounding", () => {
  it("stands below every integer that prints as the same double, and only just", () => {
    for (const { exact, spelled: sent } of sentAsDoubles(29n)) {
      const below = BigInt(belowDoubleRounding(sent));
      expect(below <= exact, `${exact} sent as ${sent}`).toBe(true);
      // The integer just under the bound rounds to a smaller double: nothing of the next page far below it
      // is passed over.
      expect(Number(below - 1n) < Number(exact), `${exact} sent as ${sent}`).toBe(true);
    }
  });

  it("keeps a value no double printed", () => {
    for (const value of ["0", "9007199254740991", "4994000000000000000001"]) {
      expect(belowDoubleRounding(value)).toBe(value);
    }
  });
});
