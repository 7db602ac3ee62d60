import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { anySignal, orAborted, untilAborted } from "./signals.ts";

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

describe("anySignal", () => {
  it("aborts with the first source's reason, and lets go of its sources once disposed", async () => {
    const stop = new AbortController();
    const linked = anySignal([undefined, stop.signal, AbortSignal.timeout(60_000)]);
    stop.abort(new Error("stopping"));
    expect(linked.signal.aborted).toBe(true);
    expect(linked.signal.reason).toEqual(new Error("stopping"));
    linked.dispose();
    expect(anySignal([AbortSignal.abort("already")]).signal.reason).toBe("already");

    // A source that lives as long as the process is left with nothing of the signals made from it.
    const process = new AbortController().signal;
    for (let i = 0; i < 1_000; i++) {
      const { signal, dispose } = anySignal([process, AbortSignal.timeout(60_000)]);
      expect(signal.aborted).toBe(false);
      dispose();
    }
    expect(getEventListeners(process, "abort")).toHaveLength(0);
  });
});

describe("orAborted", () => {
  it("rejects with the stop's reason while the work still hangs, and lets go of the signal once settled", async () => {
    const stop = new AbortController();
    const hanging = orAborted(new Promise<never>(() => {}), stop.signal);
    stop.abort(new Error("stopped by SIGTERM"));
    await expect(hanging).rejects.toThrow("stopped by SIGTERM");
    await expect(orAborted(Promise.resolve(1), AbortSignal.abort(new Error("late")))).rejects.toThrow("late");

    const running = new AbortController();
    await expect(orAborted(Promise.resolve("answered"), running.signal)).resolves.toBe("answered");
    await expect(orAborted(Promise.reject(new Error("refused")), running.signal)).rejects.toThrow("refused");
    expect(getEventListeners(running.signal, "abort")).toHaveLength(0);
  });
});
