import type { Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Anvil, startAnvil } from "../src/demo/anvil.ts";
import { CallTracerIgnoredError, chooseTracer, ignoresCallTracer } from "../src/indexer/choose-tracer.ts";
import { createRpcClient, type RpcClient } from "../src/rpc/client.ts";
import { isHistoryUnavailable } from "../src/rpc/errors.ts";
import { databaseKinds, fingerprint } from "./support/databases.ts";
import { only } from "./support/elements.ts";
import type { JsonRpcCall } from "./support/fault-proxy.ts";
import { indexNode } from "./support/index-node.ts";
import { freshIndexFingerprint } from "./support/node-head.ts";
import { type JsonRpcAnswer, type RoutingProxy, startRoutingProxy } from "./support/routing-proxy.ts";
import { transact } from "./support/transact.ts";

const callee: Hex = "0x00000000000000000000000000000000000ca11e";
/** CALL(gas, 0x…beef, 0, 0, 0, 0, 0), then STOP: a transaction to it has an inner frame. */
const calleeCode: Hex = "0x6000600060006000600073000000000000000000000000000000000000beef5af100";
const blockTracing = new Set(["debug_traceBlockByNumber", "debug_traceBlockByHash"]);

/** A node that is not anvil, so that callTracer is tried first. */
function notAnvil(call: JsonRpcCall) {
  return call.method === "web3_clientVersion"
    ? { result: "besu/v24.12.0/linux-x86_64/openjdk-java-21" }
    : undefined;
}

/** Besu before its 2025 tracer support: the `tracer` option ignored, each transaction's struct logs bare. */
function structLogs(call: JsonRpcCall, answer: JsonRpcAnswer): JsonRpcAnswer {
  return blockTracing.has(call.method ?? "") && Array.isArray(answer.result)
    ? {
        ...answer,
        result: answer.result.map(() => ({ gas: 21_000, failed: false, returnValue: "", structLogs: [] })),
      }
    : answer;
}

/**
 * A node whose `debug_traceBlockByNumber` answers without running callTracer. Its head is an empty block,
 * so the tracer chosen at the start (probing the head) is callTracer, and the first range with
 * transactions shows otherwise.
 */
describe.each(databaseKinds)("a node that ignores callTracer, on %s", (kind) => {
  let anvil: Anvil;
  let proxy: RoutingProxy;
  let client: RpcClient;

  beforeAll(async () => {
    anvil = await startAnvil();
    const direct = createRpcClient({ url: anvil.rpcUrl });
    const [owner] = await direct.request<Hex[]>("eth_accounts");
    await direct.request("anvil_setCode", [callee, calleeCode]);
    await transact(direct, { from: owner as Hex, to: callee, data: "0x12345678", gas: "0x186a0" });
    await transact(direct, {
      from: owner as Hex,
      to: "0x000000000000000000000000000000000000dead",
      value: "0x1",
    });
    await direct.request("evm_mine");
    proxy = await startRoutingProxy({ route: () => anvil.rpcUrl, answer: notAnvil, rewrite: structLogs });
    client = createRpcClient({ url: proxy.url, retryDelayMs: 10 });
  });
  afterAll(async () => {
    await proxy?.close();
    await anvil?.stop();
  });

  it("chooses its tracer again on the first block that shows it, and stores Parity's traces", async () => {
    const { test, indexer } = await indexNode(kind, client);
    try {
      expect(indexer.status().tracer).toBe("parity");
      const nested = only(
        await test.db.query<{ count: number }>("SELECT count(*)::int AS count FROM internal_transactions"),
      );
      expect(nested.count).toBe(1);
      expect(await fingerprint(test.db)).toEqual(
        await freshIndexFingerprint(createRpcClient({ url: anvil.rpcUrl }), kind),
      );
      // Probed at the empty head first, then again at the range's first block with transactions.
      const probes = proxy.calls
        .filter((call) => call.method === "debug_traceBlockByNumber")
        .map((call) => call.params?.[0]);
      expect(probes).toEqual(expect.arrayContaining(["0x3", "0x1"]));
    } finally {
      await test.drop();
    }
  });

  it("stops with what to configure when callTracer was configured", async () => {
    const failure = await indexNode(kind, client, { tracer: "callTracer" }).catch((error) => error);
    expect(failure).toBeInstanceOf(CallTracerIgnoredError);
    expect(failure.block).toBe(1n);
    expect(failure.shortMessage).toMatch(/set SEXTANT_TRACER to parity or none/);
  });
});

describe("choosing a tracer", () => {
  let anvil: Anvil;

  beforeAll(async () => {
    anvil = await startAnvil();
    const direct = createRpcClient({ url: anvil.rpcUrl });
    const [owner] = await direct.request<Hex[]>("eth_accounts");
    await transact(direct, { from: owner as Hex, to: callee, value: "0x1" });
  });
  afterAll(async () => {
    await anvil?.stop();
  });

  /** chooseTracer on block 1 (one transaction) of a node that is not anvil and traces as `rewrite` says. */
  async function chosenWith(
    rewrite: (call: JsonRpcCall, answer: JsonRpcAnswer) => JsonRpcAnswer,
    answer?: (call: JsonRpcCall) => Omit<JsonRpcAnswer, "jsonrpc" | "id"> | undefined,
  ) {
    const proxy = await startRoutingProxy({
      route: () => anvil.rpcUrl,
      answer: (call) => notAnvil(call) ?? answer?.(call),
      rewrite,
    });
    try {
      return await chooseTracer(createRpcClient({ url: proxy.url, retries: 0 }), {
        configured: "auto",
        probeBlock: 1n,
      });
    } finally {
      await proxy.close();
    }
  }

  it("takes callTracer from a node that runs it", async () => {
    expect(await chosenWith((_call, answer) => answer)).toBe("callTracer");
  });

  it("passes over a node's callTracer when its answer shows it did not run it", async () => {
    expect(await chosenWith(structLogs)).toBe("parity");
    // Some Erigon forks: each transaction answered with an error saying the tracer is missing.
    const missing = (call: JsonRpcCall, answer: JsonRpcAnswer): JsonRpcAnswer =>
      call.method === "debug_traceBlockByNumber" && Array.isArray(answer.result)
        ? {
            ...answer,
            result: answer.result.map(({ txHash }) => ({
              txHash,
              result: null,
              error: { code: -32000, message: "tracer not found" },
            })),
          }
        : answer;
    expect(await chosenWith(missing)).toBe("parity");
  });

  it("tells an answer without callTracer from one to check or ask again", () => {
    const frame = { type: "CALL", from: callee, to: callee, gas: "0x0", gasUsed: "0x0", input: "0x" };
    expect(ignoresCallTracer([{ txHash: `0x${"1".repeat(64)}`, result: frame }])).toBe(false);
    // A lagging backend's missing answer, or one the tracer could not trace: asked again, not a verdict.
    for (const answer of [null, undefined, [], [{ error: "execution timeout" }]])
      expect(ignoresCallTracer(answer)).toBe(false);
    expect(ignoresCallTracer([{ gas: 21_000, failed: false, returnValue: "", structLogs: [] }])).toBe(true);
    expect(ignoresCallTracer([{ result: { gas: 21_000, structLogs: [] } }])).toBe(true);
    expect(ignoresCallTracer([{ result: null, error: { code: -32000, message: "tracer not found" } }])).toBe(
      true,
    );
  });

  it("takes a probe block the node keeps no state for as no refusal of the tracer", async () => {
    const gone = (call: JsonRpcCall) =>
      call.method === "debug_traceBlockByNumber"
        ? { error: { code: -32000, message: "required historical state unavailable (reexec=128)" } }
        : undefined;
    const failure = await chosenWith((_call, answer) => answer, gone).catch((error) => error);
    expect(isHistoryUnavailable(failure)).toBe(true);
  });

  it("passes over a tracer the node refuses by name", async () => {
    const refused = (call: JsonRpcCall) =>
      call.method === "debug_traceBlockByNumber"
        ? { error: { code: -32000, message: "tracer not found" } }
        : undefined;
    expect(await chosenWith((_call, answer) => answer, refused)).toBe("parity");
  });
});
