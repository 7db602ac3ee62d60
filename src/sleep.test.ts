import { describe, expect, it } from "vitest";
import { untilAborted } from "./sleep.ts";

describe("untilAborted", () => {
  it("resolves when the signal aborts, and at once for a signal that already has", async () => {
    const controller = new AbortController();
    let resolved = false;
    const waiting = untilAborted(controller.signal).then(() => {
      resolved = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(resolved).toBe(false);
    controller.abort();
    await waiting;
    expect(resolved).toBe(true);
    // A stop that came before the wait: the wait must not outlive it.
    const outcome = await Promise.race([
      untilAborted(AbortSignal.abort()).then(() => "resolved"),
      new Promise((resolve) => setTimeout(() => resolve("still waiting"), 1_000)),
    ]);
    expect(outcome).toBe("resolved");
  });
});
