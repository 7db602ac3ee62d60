import { describe, expect, it } from "vitest";
import { ConfigError } from "./config.ts";
import { ChainMismatchError } from "./db/chain-identity.ts";
import { isRetryable, isUserError } from "./errors.ts";
import { retry } from "./retry.ts";
import { RpcHttpError, RpcResponseError, RpcTransportError } from "./rpc/errors.ts";

/** A task that throws `errors` in turn, then returns "done"; `seen` lists the failure counts it was given. */
function failing(...errors: unknown[]) {
  const task = async (failures: number) => {
    task.seen.push(failures);
    const error = errors[task.seen.length - 1];
    if (error !== undefined) throw error;
    return "done";
  };
  task.seen = [] as number[];
  return task;
}

/** How postgres.js reports a server that went away. */
function lostConnection(): Error {
  return Object.assign(new Error("write CONNECTION_CLOSED 127.0.0.1:5432"), { code: "CONNECTION_CLOSED" });
}

describe("error flags", () => {
  it("classify by the errors' own flags, and a lost database connection as retryable", () => {
    expect(isRetryable(new RpcTransportError("cannot reach the node"))).toBe(true);
    expect(isRetryable(new RpcHttpError({ status: 503, body: "" }))).toBe(true);
    expect(isRetryable(new RpcHttpError({ status: 400, body: "" }))).toBe(false);
    expect(
      isRetryable(new RpcResponseError({ method: "eth_call", code: 3, message: "execution reverted" })),
    ).toBe(false);
    expect(isRetryable(lostConnection())).toBe(true);
    expect(isRetryable(Object.assign(new Error("terminating connection"), { code: "57P01" }))).toBe(true);
    expect(isRetryable(Object.assign(new Error("syntax error"), { code: "42601" }))).toBe(false);
    expect(isRetryable(new TypeError("x is undefined"))).toBe(false);
    expect(isRetryable(new ConfigError("--port must be an integer"))).toBe(false);
  });

  it("say which errors are the user's to fix", () => {
    expect(isUserError(new ConfigError("--port must be an integer"))).toBe(true);
    expect(isUserError(new ChainMismatchError("another chain"))).toBe(true);
    expect(isUserError(new RpcTransportError("cannot reach the node"))).toBe(false);
    expect(isUserError(lostConnection())).toBe(false);
    expect(isUserError(new Error("bug"))).toBe(false);
  });
});

describe("retry", () => {
  it("retries node and database failures until the task succeeds, telling it how often it failed", async () => {
    const task = failing(new RpcTransportError("cannot reach the node"), lostConnection());
    const retried: [string, number][] = [];
    const recovered: number[] = [];
    const result = await retry(task, {
      delayMs: 1,
      onRetry: (error, failures) => retried.push([(error as Error).message, failures]),
      onRecovered: (failures) => recovered.push(failures),
    });
    expect(result).toBe("done");
    expect(task.seen).toEqual([0, 1, 2]);
    expect(retried).toEqual([
      ["cannot reach the node", 1],
      ["write CONNECTION_CLOSED 127.0.0.1:5432", 2],
    ]);
    expect(recovered).toEqual([2]);
  });

  it("throws an error asking again cannot fix at once", async () => {
    const wrong = new RpcResponseError({ method: "eth_call", code: -32602, message: "invalid argument" });
    const task = failing(wrong);
    await expect(retry(task, { delayMs: 1 })).rejects.toBe(wrong);
    expect(task.seen).toEqual([0]);
  });

  it("gives up after `attempts` tries with the last error", async () => {
    const last = new RpcHttpError({ status: 503, body: "" });
    const task = failing(new RpcHttpError({ status: 429, body: "" }), last, lostConnection());
    await expect(retry(task, { attempts: 2, delayMs: 1 })).rejects.toBe(last);
    expect(task.seen).toEqual([0, 1]);
  });

  it("gives up with the last error once `withinMs` has passed, however many tries that was", async () => {
    const errors = Array.from({ length: 1_000 }, lostConnection);
    const task = failing(...errors);
    const startedAt = Date.now();
    const thrown = await retry(task, { withinMs: 50, delayMs: 10, maxDelayMs: 10 }).catch((error) => error);
    expect(thrown).toBe(errors[task.seen.length - 1]);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(50);
    expect(task.seen.length).toBeGreaterThan(1);
    expect(task.seen.length).toBeLessThan(20);
  });

  it("stops waiting when the signal fires, with its reason", async () => {
    const controller = new AbortController();
    const task = failing(new RpcTransportError("cannot reach the node"));
    const retrying = retry(task, {
      delayMs: 3_600_000,
      signal: controller.signal,
      onRetry: () => controller.abort(new Error("stopped by SIGTERM")),
    });
    await expect(retrying).rejects.toThrow("stopped by SIGTERM");
    expect(task.seen).toEqual([0]);
  });

  it("tries nothing once the signal has fired", async () => {
    const task = failing();
    await expect(retry(task, { signal: AbortSignal.abort(new Error("stopped")) })).rejects.toThrow("stopped");
    expect(task.seen).toEqual([]);
  });
});
