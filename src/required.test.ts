import { describe, expect, it } from "vitest";
import { isRetryable, isUserError } from "./errors.ts";
import { MissingValueError, required } from "./required.ts";

describe("required", () => {
  it("returns a present value, including falsy ones", () => {
    expect(required([7][0], "first")).toBe(7);
    expect(required(0, "zero")).toBe(0);
    expect(required(null, "null")).toBe(null);
    expect(required("", "empty")).toBe("");
  });

  it("throws a MissingValueError naming what was missing", () => {
    const receipts: string[] = [];
    let caught: unknown;
    try {
      required(receipts[0], "receipt of transaction 0");
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(MissingValueError);
    expect((caught as MissingValueError).shortMessage).toBe("receipt of transaction 0 is missing");
    expect(isRetryable(caught)).toBe(false);
    expect(isUserError(caught)).toBe(false);
  });
});
