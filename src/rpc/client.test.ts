import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { at } from "../../test/support/elements.ts";
import { createRpcClient } from "./client.ts";
import {
  isMethodNotSupported,
  RpcHttpError,
  RpcResponseError,
  RpcTimeoutError,
  RpcTransportError,
} from "./errors.ts";

type Handler = (
  body: { id: number; method: string }[] | { id: number; method: string },
  response: ServerResponse,
) => void;

let server: Server | undefined;

/** A local HTTP server whose every answer is decided by `handler`, to play a misbehaving node. */
async function node(handler: Handler): Promise<string> {
  server = createServer((request: IncomingMessage, response) => {
    let text = "";
    request.on("data", (chunk) => {
      text += chunk;
    });
    request.on("end", () => handler(JSON.parse(text), response));
  });
  const listening = server;
  await new Promise<void>((resolve) => listening.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(listening.address() as AddressInfo).port}`;
}

const ok = (response: ServerResponse, body: unknown) => {
  response.writeHead(200, { "content-type": "application/json" });
  response.end(JSON.stringify(body));
};
const echo = (call: { id: number; method: string }) => ({ jsonrpc: "2.0", id: call.id, result: call.method });

/** The error a promise rejects with; fails the test if it resolves. */
async function failure<T>(promise: Promise<unknown>): Promise<T> {
  return promise.then(
    () => {
      throw new Error("expected a rejection");
    },
    (error: T) => error,
  );
}

afterEach(async () => {
  const closed = new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  // Held requests and the spare connection fetch opens would otherwise keep close() waiting for seconds.
  server?.closeAllConnections();
  await closed;
  server = undefined;
});

describe("createRpcClient", () => {
  it("retries 408, 429 and 5xx answers, then returns the result", async () => {
    let calls = 0;
    const url = await node((body, response) => {
      calls++;
      if (calls === 1) return response.writeHead(429).end("slow down");
      if (calls === 2) return response.writeHead(503).end("unavailable");
      if (calls === 3) return response.writeHead(408).end("request timeout");
      ok(response, echo(body as { id: number; method: string }));
    });
    const retries: string[] = [];
    const client = createRpcClient({ url, retryDelayMs: 1, onRetry: (error) => retries.push(error.name) });
    expect(await client.request("eth_chainId")).toBe("eth_chainId");
    expect(retries).toEqual(["RpcHttpError", "RpcHttpError", "RpcHttpError"]);
  });

  it("waits as long as a 429's Retry-After asks before asking again", async () => {
    const askedAt: number[] = [];
    const url = await node((body, response) => {
      askedAt.push(Date.now());
      if (askedAt.length === 1) return response.writeHead(429, { "retry-after": "1" }).end("slow down");
      ok(response, echo(body as { id: number; method: string }));
    });
    const client = createRpcClient({ url, retryDelayMs: 1 });
    expect(await client.request("eth_chainId")).toBe("eth_chainId");
    expect(at(askedAt, 1) - at(askedAt, 0)).toBeGreaterThanOrEqual(1000);
  });

  it("reads Retry-After as seconds or as a date, and obeys at most a minute of it", () => {
    const retryAfterMs = (retryAfter: string) =>
      new RpcHttpError({ status: 429, body: "", retryAfter }).retryAfterMs;
    expect(retryAfterMs("2")).toBe(2000);
    expect(retryAfterMs("3600")).toBe(60_000);
    const inFiveSeconds = retryAfterMs(new Date(Date.now() + 5000).toUTCString());
    expect(inFiveSeconds).toBeGreaterThan(3000);
    expect(inFiveSeconds).toBeLessThanOrEqual(5000);
    expect(retryAfterMs(new Date(Date.now() - 5000).toUTCString())).toBe(0);
    expect(retryAfterMs("soon")).toBeUndefined();
  });

  it("retries a batch answered with null, and reads ids echoed as strings", async () => {
    let calls = 0;
    const url = await node((body, response) => {
      calls++;
      if (calls === 1) return ok(response, null);
      ok(
        response,
        (body as { id: number; method: string }[]).map((call) => ({ ...echo(call), id: String(call.id) })),
      );
    });
    const client = createRpcClient({ url, retryDelayMs: 1 });
    const batch = [
      { method: "a", params: [] },
      { method: "b", params: [] },
    ];
    expect(await client.batch(batch)).toEqual(["a", "b"]);
    expect(calls).toBe(2);
  });

  it("retries a truncated JSON body", async () => {
    let calls = 0;
    const url = await node((body, response) => {
      calls++;
      if (calls === 1) return response.writeHead(200).end('{"jsonrpc":"2.0","id":1,"res');
      ok(response, echo(body as { id: number; method: string }));
    });
    expect(await createRpcClient({ url, retryDelayMs: 1 }).request("eth_blockNumber")).toBe(
      "eth_blockNumber",
    );
    expect(calls).toBe(2);
  });

  it("does not retry a 400 or a JSON-RPC error, and says which call failed", async () => {
    let calls = 0;
    const url = await node((body, response) => {
      calls++;
      const call = body as { id: number };
      if (calls === 1) return response.writeHead(400).end("bad request");
      ok(response, { jsonrpc: "2.0", id: call.id, error: { code: -32602, message: "invalid argument" } });
    });
    const client = createRpcClient({ url, retryDelayMs: 1 });
    const http = await failure<RpcHttpError>(client.request("eth_call"));
    expect(http).toBeInstanceOf(RpcHttpError);
    expect(http.retryable).toBe(false);
    const rpc = await failure<RpcResponseError>(client.request("eth_getCode"));
    expect(rpc).toBeInstanceOf(RpcResponseError);
    expect(rpc.shortMessage).toBe("eth_getCode failed: invalid argument (code -32602)");
    expect(calls).toBe(2);
  });

  it("retries a batch when a node fails one entry with an error asking again can fix", async () => {
    let requests = 0;
    const url = await node((body, response) => {
      requests++;
      const calls = body as { id: number; method: string }[];
      const failed = (id: number, code: number, message: string) => ({
        jsonrpc: "2.0",
        id,
        error: { code, message },
      });
      const entries: unknown[] = calls.map(echo);
      if (requests === 1) entries[1] = failed(at(calls, 1).id, -32000, "header not found");
      if (requests === 2) entries[0] = failed(at(calls, 0).id, -32603, "internal error");
      ok(response, entries);
    });
    const retries: string[] = [];
    const client = createRpcClient({
      url,
      retryDelayMs: 1,
      onRetry: (error) => retries.push(error.shortMessage),
    });
    const batch = [
      { method: "eth_getBlockByNumber", params: [] },
      { method: "eth_getBlockReceipts", params: [] },
    ];
    expect(await client.batch(batch)).toEqual(["eth_getBlockByNumber", "eth_getBlockReceipts"]);
    expect(retries).toEqual([
      "eth_getBlockReceipts failed: header not found (code -32000)",
      "eth_getBlockByNumber failed: internal error (code -32603)",
    ]);
  });

  it("tells a missing method from a call the node cannot serve yet", () => {
    const error = (code: number, message: string) => new RpcResponseError({ method: "m", code, message });
    const missing = [
      error(-32601, "the method eth_getBlockReceipts does not exist/is not available"),
      error(-32004, "Method not supported"),
      error(-32000, "Method not found"),
      error(-32600, "Unsupported method: trace_block on ETH_MAINNET"),
      error(-32000, "the method eth_getBlockReceipts does not exist/is not available"),
      // geth asked for a tracer it lacks.
      error(-32000, "tracer not found"),
    ];
    for (const refusal of missing) {
      expect(isMethodNotSupported(refusal), refusal.shortMessage).toBe(true);
      expect(refusal.retryable, refusal.shortMessage).toBe(false);
    }
    const transient = [
      error(-32000, "header not found"),
      error(-32000, "missing trie node 5b9f7f1c0b1e4d6a (path )"),
      error(-32603, "internal error"),
      error(-32005, "limit exceeded"),
      error(429, "Too Many Requests"),
    ];
    for (const fault of transient) {
      expect(isMethodNotSupported(fault), fault.shortMessage).toBe(false);
      expect(fault.retryable, fault.shortMessage).toBe(true);
    }
    for (const wrong of [
      error(-32602, "invalid argument 0"),
      error(-32700, "parse error"),
      error(3, "execution reverted"),
    ]) {
      expect(isMethodNotSupported(wrong), wrong.shortMessage).toBe(false);
      expect(wrong.retryable, wrong.shortMessage).toBe(false);
    }
  });

  it("gives up after the configured retries with a typed error", async () => {
    const url = await node(() => {
      // Never answers: every attempt times out.
    });
    const error = await failure(
      createRpcClient({ url, timeoutMs: 50, retries: 2, retryDelayMs: 1 }).request("eth_blockNumber"),
    );
    expect(error).toBeInstanceOf(RpcTimeoutError);
  });

  it("reports an unreachable node as a retryable transport error", async () => {
    const error = await failure<RpcTransportError>(
      createRpcClient({ url: "http://127.0.0.1:1", retries: 0 }).request("eth_blockNumber"),
    );
    expect(error).toBeInstanceOf(RpcTransportError);
    expect(error.retryable).toBe(true);
  });

  it("splits batches, keeps answers in call order and bounds concurrent requests", async () => {
    let inFlight = 0;
    let most = 0;
    const sizes: number[] = [];
    const url = await node((body, response) => {
      const calls = body as { id: number; method: string }[];
      sizes.push(calls.length);
      inFlight++;
      most = Math.max(most, inFlight);
      setTimeout(() => {
        inFlight--;
        // Nodes may answer batch entries in any order; ids tie them back.
        ok(response, calls.map(echo).reverse());
      }, 20);
    });
    const client = createRpcClient({ url, batchSize: 10, concurrency: 2 });
    const calls = Array.from({ length: 45 }, (_, i) => ({ method: `m${i}`, params: [] }));
    expect(await client.batch(calls)).toEqual(calls.map((call) => call.method));
    expect(sizes.sort((a, b) => a - b)).toEqual([5, 10, 10, 10, 10]);
    expect(most).toBe(2);
  });

  describe("a batch the node cannot answer whole", () => {
    type Call = { id: number; method: string };
    const calls = Array.from({ length: 45 }, (_, i) => ({ method: "eth_getBlockByNumber", params: [i] }));
    const results = calls.map((call) => call.method);
    /** A node that answers a batch's first four calls and fails the rest with `code` and `message`. */
    const cutAfterFour = (code: number, message: string) => (batch: Call[], response: ServerResponse) =>
      ok(
        response,
        batch.map((call, i) =>
          i < 4 ? echo(call) : { jsonrpc: "2.0", id: call.id, error: { code, message } },
        ),
      );
    const limits: [string, (batch: Call[], response: ServerResponse) => void][] = [
      // geth past 25 MB: the entries after the cut carry "response too large".
      ["cut short by geth's answer size limit", cutAfterFour(-32003, "response too large")],
      // geth past its write timeout: the entries left carry "request timed out".
      ["cut short by geth's timeout", cutAfterFour(-32002, "request timed out")],
      // geth past its batch item limit: one error, with the first call's id.
      [
        "refused whole by geth's item limit",
        (batch, response) =>
          ok(response, [
            { jsonrpc: "2.0", id: at(batch, 0).id, error: { code: -32600, message: "batch too large" } },
          ]),
      ],
      [
        "refused with HTTP 413",
        (_batch, response) => response.writeHead(413).end("Request Entity Too Large"),
      ],
    ];

    it.each(limits)(
      "is sent again in halves when %s, and later batches fit from the start",
      async (_, refuse) => {
        const sizes: number[] = [];
        const url = await node((body, response) => {
          const batch = Array.isArray(body) ? body : [body];
          sizes.push(batch.length);
          if (batch.length > 4) refuse(batch, response);
          else ok(response, batch.map(echo));
        });
        const client = createRpcClient({ url, batchSize: 20, retries: 0 });
        expect(await client.batch(calls)).toEqual(results);
        // Refused: each 20 as 20, 10, 10 and four 5s, and the last 5 once; then each 3 and 2 is answered.
        expect(sizes.filter((size) => size > 4)).toHaveLength(2 * 7 + 1);
        sizes.length = 0;
        expect(await client.batch(calls)).toEqual(results);
        expect(Math.max(...sizes)).toBeLessThanOrEqual(4);
        // Ten minutes on, the full size is tried again: a passing slowness does not cut batches for good.
        vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 10 * 60_000 + 1 });
        try {
          sizes.length = 0;
          expect(await client.batch(calls)).toEqual(results);
          expect(sizes[0]).toBe(20);
        } finally {
          vi.useRealTimers();
        }
      },
    );

    it("is not taken for a batch the client stopped waiting for, nor for a revert's words", async () => {
      // A node that hangs: smaller batches would each wait the whole timeout again.
      let requests = 0;
      const url = await node(() => {
        requests++;
      });
      const timedOut = await failure<RpcTimeoutError>(
        createRpcClient({ url, batchSize: 45, timeoutMs: 200, retries: 0 }).batch(calls),
      );
      expect(timedOut).toBeInstanceOf(RpcTimeoutError);
      expect(requests).toBe(1);
      server?.closeAllConnections();
      await new Promise((resolve) => server?.close(resolve));
      // A contract's revert that happens to read like a limit is the call's own failure.
      const reverting = await node((body, response) =>
        ok(
          response,
          (body as Call[]).map((call) => ({
            jsonrpc: "2.0",
            id: call.id,
            error: { code: 3, message: "execution reverted: batch size exceeds the maximum" },
          })),
        ),
      );
      const answers = await createRpcClient({ url: reverting, retries: 0 }).batchAccepting(
        calls.slice(0, 2),
        (error) => error.code === 3,
      );
      expect(answers.map((answer) => (answer as RpcResponseError).code)).toEqual([3, 3]);
    });

    it("is still an error for a call sent alone", async () => {
      const url = await node((body, response) => {
        const call = body as Call;
        ok(response, { jsonrpc: "2.0", id: call.id, error: { code: -32003, message: "response too large" } });
      });
      const error = await failure<RpcResponseError>(
        createRpcClient({ url, retries: 0 }).request("debug_traceBlockByNumber"),
      );
      expect(error).toBeInstanceOf(RpcResponseError);
      expect(error.shortMessage).toContain("response too large");
    });

    it("is not taken for the calls' own failures by a batch that accepts some", async () => {
      const url = await node((body, response) => {
        if (!Array.isArray(body)) return ok(response, echo(body));
        ok(
          response,
          body.map((call, i) =>
            i > 0
              ? { jsonrpc: "2.0", id: call.id, error: { code: -32002, message: "request timed out" } }
              : echo(call),
          ),
        );
      });
      const answers = await createRpcClient({ url, retries: 0 }).batchAccepting(
        calls.slice(0, 3),
        () => true,
      );
      expect(answers).toEqual(results.slice(0, 3));
    });
  });

  it("rejects a batch whose answer leaves a call out", async () => {
    const url = await node((body, response) =>
      ok(response, (body as { id: number; method: string }[]).slice(1).map(echo)),
    );
    const error = await failure<RpcTransportError>(
      createRpcClient({ url, retries: 0 }).batch([
        { method: "a", params: [] },
        { method: "b", params: [] },
      ]),
    );
    expect(error).toBeInstanceOf(RpcTransportError);
    expect(error.shortMessage).toContain("left a unanswered");
  });
});
