import { createConcurrencyLimit } from "../concurrency-limit.ts";
import type { Metrics } from "../metrics.ts";
import { retry } from "../retry.ts";
import { anySignal } from "../signals.ts";
import {
  RpcBatchTooLargeError,
  RpcError,
  RpcHttpError,
  RpcResponseError,
  RpcTimeoutError,
  RpcTransportError,
  saysBatchTooLarge,
} from "./errors.ts";

export type RpcCall = { method: string; params: unknown[] };

export type RpcClientParameters = {
  url: string;
  /** Largest number of calls sent in one HTTP request. */
  batchSize?: number;
  /** HTTP requests in flight at once; the others wait in the order they were asked. */
  concurrency?: number;
  timeoutMs?: number;
  /**
   * Attempts after the first for retryable failures: transport, timeout, 429, 5xx, and JSON-RPC errors
   * other than a wrong request or a missing method (see RpcResponseError).
   */
  retries?: number;
  /** Delay before the first retry; doubles each time, with jitter. */
  retryDelayMs?: number;
  /** Called once per failed attempt that will be retried. */
  onRetry?: (error: RpcError, attempt: number) => void;
  /** Where calls, failures and request durations are counted. */
  metrics?: Pick<Metrics, "rpcCalls" | "rpcErrors" | "rpcDuration">;
  /** Aborts every request in flight and every retry once it fires: the process is stopping. */
  signal?: AbortSignal;
};

export type RpcClient = {
  url: string;
  /** Sends one call and returns its result. */
  request<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  /**
   * Sends calls in batches of at most `batchSize` and returns the results in order.
   * A JSON-RPC error in any entry rejects the whole batch with that entry's RpcResponseError, once
   * retrying the batch no longer helps.
   */
  batch<T = unknown>(calls: RpcCall[]): Promise<T[]>;
  /**
   * As `batch`, but an entry whose JSON-RPC error `accept` takes (a reverting `eth_call`, say) comes back
   * as that RpcResponseError in its place instead of failing the batch.
   */
  batchAccepting<T = unknown>(
    calls: RpcCall[],
    accept: (error: RpcResponseError) => boolean,
  ): Promise<(T | RpcResponseError)[]>;
};

/** How long a batch size learnt from a batch the node could not answer whole holds (see `sendFitting`). */
const batchSizeLimitMs = 10 * 60_000;

type JsonRpcAnswer = {
  id: number;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
};

/**
 * Creates a JSON-RPC client over HTTP with batching, bounded concurrency, timeouts and retries with
 * exponential backoff on failures that asking again can fix.
 */
export function createRpcClient({
  url,
  batchSize = 100,
  concurrency = 4,
  timeoutMs = 30_000,
  retries = 5,
  retryDelayMs = 100,
  onRetry,
  metrics,
  signal,
}: RpcClientParameters): RpcClient {
  let nextId = 1;
  const withSlot = createConcurrencyLimit({ places: concurrency });

  async function post(body: unknown): Promise<unknown> {
    const stopOrTimeout = anySignal([signal, AbortSignal.timeout(timeoutMs)]);
    try {
      return await exchange(body, stopOrTimeout.signal);
    } finally {
      stopOrTimeout.dispose();
    }
  }

  async function exchange(body: unknown, stopOrTimeout: AbortSignal): Promise<unknown> {
    let response: Response;
    try {
      response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
        signal: stopOrTimeout,
      });
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (error instanceof DOMException && error.name === "TimeoutError") {
        throw new RpcTimeoutError(`no answer from ${url} within ${timeoutMs} ms`, { cause: error });
      }
      throw new RpcTransportError(`cannot reach ${url}`, { cause: error, details: String(error) });
    }
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      const timedOut = error instanceof DOMException && error.name === "TimeoutError";
      if (timedOut)
        throw new RpcTimeoutError(`answer from ${url} took over ${timeoutMs} ms`, { cause: error });
      throw new RpcTransportError(`connection to ${url} broke mid-answer`, { cause: error });
    }
    if (!response.ok) {
      const retryAfter = response.headers.get("retry-after");
      throw new RpcHttpError({ status: response.status, body: text, retryAfter });
    }
    try {
      return JSON.parse(text);
    } catch (error) {
      const type = response.headers.get("content-type") ?? "no content type";
      throw new RpcTransportError(`${url} answered ${type}, not JSON-RPC: is it the node's JSON-RPC URL?`, {
        cause: error,
        details: text.slice(0, 200),
      });
    }
  }

  function withRetries<T>(task: () => Promise<T>): Promise<T> {
    return retry(() => withSlot(task), {
      signal,
      attempts: retries + 1,
      delayMs: retryDelayMs,
      // Every failure of a request is an RpcError: transport, timeout and answer errors are wrapped.
      onRetry: (error, attempt) => {
        if (error instanceof RpcError) onRetry?.(error, attempt);
      },
    });
  }

  /** Runs one HTTP request of `calls`, counted by method; a batch is timed under its first call's method. */
  async function observed<T>(calls: RpcCall[], send: () => Promise<T>): Promise<T> {
    if (!metrics) return send();
    const method = calls[0]?.method ?? "";
    for (const call of calls) metrics.rpcCalls.inc({ method: call.method });
    const stopTimer = metrics.rpcDuration.startTimer({ method });
    try {
      return await send();
    } catch (error) {
      metrics.rpcErrors.inc({ method, error: error instanceof Error ? error.name : "Error" });
      throw error;
    } finally {
      stopTimer();
    }
  }

  function answerOf(call: RpcCall, answer: JsonRpcAnswer | null | undefined): unknown {
    if (answer === undefined || answer === null)
      throw new RpcTransportError(`node left ${call.method} unanswered in a batch`);
    if (answer.error) {
      throw new RpcResponseError({
        method: call.method,
        params: call.params,
        code: answer.error.code,
        message: answer.error.message,
        data: answer.error.data,
      });
    }
    if (!("result" in answer))
      throw new RpcTransportError(`node answered ${call.method} with neither result nor error`);
    return answer.result;
  }

  async function sendBatch(
    calls: RpcCall[],
    accept?: (error: RpcResponseError) => boolean,
  ): Promise<unknown[]> {
    const cutShort = (error: unknown) =>
      new RpcBatchTooLargeError(
        `a batch of ${calls.length} ${calls[0]?.method} calls was too much to answer whole`,
        {
          cause: error,
        },
      );
    return withRetries(async () => {
      const first = nextId;
      nextId += calls.length;
      const body = calls.map((call, i) => ({
        jsonrpc: "2.0",
        id: first + i,
        method: call.method,
        params: call.params,
      }));
      let answer: unknown;
      try {
        answer = await observed(calls, () => post(calls.length === 1 ? body[0] : body));
        // A single-call error object from a node that rejects batches arrives without an array.
        const [firstCall] = calls;
        if (firstCall && calls.length > 1 && !Array.isArray(answer))
          answerOf(firstCall, answer as JsonRpcAnswer);
      } catch (error) {
        throw calls.length > 1 && saysBatchTooLarge(error) ? cutShort(error) : error;
      }
      const answers = Array.isArray(answer) ? (answer as JsonRpcAnswer[]) : [answer as JsonRpcAnswer];
      // Some proxies echo a numeric id as a string.
      const byId = new Map(answers.map((entry) => [Number(entry?.id), entry]));
      const outcomes = calls.map((call, i) => {
        try {
          return { result: answerOf(call, byId.get(first + i)) };
        } catch (error) {
          return { error };
        }
      });
      // A batch cut short is sent again as smaller ones, whatever its other entries' errors say.
      const cut = outcomes.find(({ error }) => calls.length > 1 && saysBatchTooLarge(error));
      if (cut) throw cutShort(cut.error);
      return outcomes.map(({ result, error }) => {
        if (error === undefined) return result;
        if (accept && error instanceof RpcResponseError && accept(error)) return error;
        throw error;
      });
    });
  }

  /**
   * The most calls of a method a batch may hold, once a node could not answer a larger one whole: later
   * batches of that method are cut to it from the start, rather than each failing first. A limit lasts
   * `batchSizeLimitMs`: one learnt from a passing slowness does not cut every later batch for good.
   */
  const batchSizeLimits = new Map<string, { size: number; until: number }>();
  const batchSizeLimitOf = (method: string) => {
    const limit = batchSizeLimits.get(method);
    return limit && Date.now() < limit.until ? limit.size : batchSize;
  };

  /** Sends `calls` in one batch, or, when the node cannot answer it whole, in halves, and so on. */
  async function sendFitting(
    calls: RpcCall[],
    accept?: (error: RpcResponseError) => boolean,
  ): Promise<unknown[]> {
    try {
      return await sendBatch(calls, accept);
    } catch (error) {
      if (!(error instanceof RpcBatchTooLargeError)) throw error;
      const half = Math.ceil(calls.length / 2);
      const method = calls[0]?.method ?? "";
      batchSizeLimits.set(method, {
        size: Math.min(half, batchSizeLimitOf(method)),
        until: Date.now() + batchSizeLimitMs,
      });
      const halves = await Promise.all([
        sendFitting(calls.slice(0, half), accept),
        sendFitting(calls.slice(half), accept),
      ]);
      return halves.flat();
    }
  }

  async function inChunks(calls: RpcCall[], accept?: (error: RpcResponseError) => boolean) {
    const size = batchSizeLimitOf(calls[0]?.method ?? "");
    const chunks: RpcCall[][] = [];
    for (let i = 0; i < calls.length; i += size) chunks.push(calls.slice(i, i + size));
    return (await Promise.all(chunks.map((chunk) => sendFitting(chunk, accept)))).flat();
  }

  return {
    url,
    async request<T>(method: string, params: unknown[] = []) {
      const [result] = await sendBatch([{ method, params }]);
      return result as T;
    },
    async batch<T>(calls: RpcCall[]) {
      return (await inChunks(calls)) as T[];
    },
    async batchAccepting<T>(calls: RpcCall[], accept: (error: RpcResponseError) => boolean) {
      return (await inChunks(calls, accept)) as (T | RpcResponseError)[];
    },
  };
}
