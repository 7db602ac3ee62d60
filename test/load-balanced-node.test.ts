import { encodeDeployData, encodeFunctionData, getAddress, type Hex, toHex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Anvil, startAnvil } from "../src/demo/anvil.ts";
import { createRpcClient, type RpcClient } from "../src/rpc/client.ts";
import { eth_getBlockByNumber } from "../src/rpc/eth_getBlockByNumber.ts";
import { databaseKinds, fingerprint } from "./support/databases.ts";
import { demoArtifact } from "./support/demo-artifact.ts";
import { at, only } from "./support/elements.ts";
import type { JsonRpcCall } from "./support/fault-proxy.ts";
import { type FollowedNode, followNode, indexNode } from "./support/index-node.ts";
import { freshIndexFingerprint, untilIndexedHead } from "./support/node-head.ts";
import { type JsonRpcAnswer, type RoutingProxy, startRoutingProxy } from "./support/routing-proxy.ts";
import { transact } from "./support/transact.ts";
import { until } from "./support/until.ts";

/** Called with data on one chain, where it holds no code; the other chain gives it code. */
const callee: Hex = "0x00000000000000000000000000000000000ca11e";
/** The callee's code on the other chain: CALL(gas, 0x…beef, 0, 0, 0, 0, 0), then STOP. */
const calleeCodeOnOther: Hex = "0x6000600060006000600073000000000000000000000000000000000000beef5af100";
const stateReads = new Set(["eth_call", "eth_getCode", "eth_getStorageAt"]);

/** An older geth's callTracer answers: without `txHash`. */
function withoutTransactionHashes(call: JsonRpcCall, answer: JsonRpcAnswer): JsonRpcAnswer {
  return call.method === "debug_traceBlockByNumber" && Array.isArray(answer.result)
    ? { ...answer, result: answer.result.map(({ txHash: _, ...result }) => result) }
    : answer;
}

/**
 * Two nodes on different chains behind one URL, as backends of a load balancer that disagree on a fork:
 * blocks come from one, and the first of each kind of state read (or every trace) goes to the other, whose
 * block of the same number holds other state (another supply of the same token, code at an address the
 * first chain only calls).
 */
describe.each(databaseKinds)("a node whose backends follow different forks, on %s", (kind) => {
  let canonical: Anvil;
  let other: Anvil;
  let proxy: RoutingProxy;
  let client: RpcClient;
  let token: Hex;
  const sentToOther: string[] = [];

  /** Deploys the demo token at the same address on `node`'s chain and mints `supply` there. */
  async function mintOn(node: RpcClient, supply: bigint): Promise<Hex> {
    const DemoToken = await demoArtifact("DemoToken");
    const [owner, holder] = await node.request<Hex[]>("eth_accounts");
    const send = (transaction: { to?: Hex; data: Hex }) =>
      transact(node, { from: owner as Hex, gas: toHex(3_000_000), ...transaction });
    const deployed = await send({ data: encodeDeployData({ ...DemoToken, args: [owner] } as never) });
    const address = getAddress(deployed.contractAddress as Hex);
    await send({
      to: address,
      data: encodeFunctionData({ abi: DemoToken.abi, functionName: "mint", args: [holder, supply] }),
    });
    return address;
  }

  beforeAll(async () => {
    [canonical, other] = await Promise.all([startAnvil(), startAnvil()]);
    const canonicalClient = createRpcClient({ url: canonical.rpcUrl });
    const otherClient = createRpcClient({ url: other.rpcUrl });
    token = await mintOn(canonicalClient, 5n * 10n ** 18n);
    expect(await mintOn(otherClient, 7n * 10n ** 18n)).toBe(token);
    const [owner] = await canonicalClient.request<Hex[]>("eth_accounts");
    await transact(canonicalClient, { from: owner as Hex, to: callee, data: "0x12345678" });
    await otherClient.request("anvil_setCode", [callee, calleeCodeOnOther]);
    // A transaction to the same callee with the same data at the same height, where the callee calls on:
    // one frame more in its trace.
    await transact(otherClient, { from: owner as Hex, to: callee, data: "0x12345678", gas: toHex(100_000) });
    await otherClient.request("anvil_mine", ["0x8"]);

    const asked = new Map<string, number>();
    proxy = await startRoutingProxy({
      route: (calls) => {
        const method = at(calls, 0).method ?? "";
        if (!stateReads.has(method)) return canonical.rpcUrl;
        asked.set(method, (asked.get(method) ?? 0) + 1);
        if (asked.get(method) !== 1) return canonical.rpcUrl;
        sentToOther.push(method);
        return other.rpcUrl;
      },
    });
    client = createRpcClient({ url: proxy.url, retryDelayMs: 10 });
  });
  afterAll(async () => {
    await proxy?.close();
    await Promise.all([canonical?.stop(), other?.stop()]);
  });

  it("stores the state of the blocks it fetched, never the other fork's", async () => {
    const { test } = await indexNode(kind, client);
    try {
      // The other backend was asked, and answered for a block of its own at the same height.
      expect(sentToOther.sort()).toEqual(["eth_call", "eth_getCode"]);
      const stored = only(
        await test.db.query<{ total_supply: string }>(
          "SELECT total_supply::text FROM tokens WHERE address = $1",
          [Buffer.from(token.slice(2), "hex")],
        ),
      );
      expect(stored.total_supply).toBe((5n * 10n ** 18n).toString());
      const [address] = await test.db.query<{ is_contract: boolean }>(
        "SELECT is_contract FROM addresses WHERE hash = $1",
        [Buffer.from(callee.slice(2), "hex")],
      );
      expect(address?.is_contract).toBe(false);
      expect(await fingerprint(test.db)).toEqual(
        await freshIndexFingerprint(createRpcClient({ url: canonical.rpcUrl }), kind),
      );
    } finally {
      await test.drop();
    }
  });

  it("traces its blocks by hash when the node's callTracer answers name no transaction", async () => {
    // An older geth answers without txHash; these answers come from the other fork's blocks.
    const unnamed = await startRoutingProxy({
      route: (calls) =>
        at(calls, 0).method === "debug_traceBlockByNumber" ? other.rpcUrl : canonical.rpcUrl,
      rewrite: withoutTransactionHashes,
    });
    try {
      const { test } = await indexNode(kind, createRpcClient({ url: unnamed.url }), { tracer: "callTracer" });
      try {
        const canonicalClient = createRpcClient({ url: canonical.rpcUrl });
        expect(await fingerprint(test.db)).toEqual(await freshIndexFingerprint(canonicalClient, kind));
        const withTransactions = await Promise.all(
          [1n, 2n, 3n].map(
            async (n) => (await eth_getBlockByNumber(canonicalClient, { blocks: [n] }))[0]?.hash,
          ),
        );
        const tracedByHash = unnamed.calls
          .filter((call) => call.method === "debug_traceBlockByHash")
          .map((call) => at(call.params ?? [], 0));
        expect(tracedByHash.sort()).toEqual(withTransactions.sort());
      } finally {
        await test.drop();
      }
    } finally {
      await unnamed.close();
    }
  });
  it("checks by count the traces of a node that names no transaction and refuses to trace by hash", async () => {
    const refusing = await startRoutingProxy({
      route: () => canonical.rpcUrl,
      answer: (call) =>
        call.method === "debug_traceBlockByHash"
          ? { error: { code: -32602, message: "invalid argument 0: hex string of odd length" } }
          : undefined,
      rewrite: withoutTransactionHashes,
    });
    try {
      const { test } = await indexNode(kind, createRpcClient({ url: refusing.url }), {
        tracer: "callTracer",
      });
      try {
        expect(refusing.calls.filter((call) => call.method === "debug_traceBlockByHash")).not.toHaveLength(0);
        expect(await fingerprint(test.db)).toEqual(
          await freshIndexFingerprint(createRpcClient({ url: canonical.rpcUrl }), kind),
        );
      } finally {
        await test.drop();
      }
    } finally {
      await refusing.close();
    }
  });
});

/**
 * A load balancer's backend a block behind the others answers some `eth_blockNumber` calls with the
 * height before: the stored tip is then above the node's head for a few polls, which is no shorter chain.
 */
describe.each(databaseKinds)(
  "a node whose head lags behind the stored tip for a few polls, on %s",
  (kind) => {
    let anvil: Anvil;
    let proxy: RoutingProxy;
    let followed: FollowedNode | undefined;
    let lag = { head: 0n, calls: 0 };

    beforeAll(async () => {
      anvil = await startAnvil();
      proxy = await startRoutingProxy({
        route: () => anvil.rpcUrl,
        answer: (call) => {
          if (call.method !== "eth_blockNumber" || lag.calls === 0) return undefined;
          lag.calls--;
          return { result: toHex(lag.head) };
        },
      });
    });
    afterAll(async () => {
      await followed?.drop();
      await proxy?.close();
      await anvil?.stop();
    });

    it("keeps the tip it stored instead of rolling it back", async () => {
      const node = createRpcClient({ url: anvil.rpcUrl });
      await node.request("anvil_mine", ["0x5"]);
      followed = await followNode(kind, createRpcClient({ url: proxy.url }), { pollIntervalMs: 20 });
      const { db } = followed.test;
      await untilIndexedHead(node, db);
      const tip = BigInt(await node.request<Hex>("eth_blockNumber"));
      // The row's version: a block rolled back and fetched again is a row written anew.
      const tipRow = async () =>
        only(
          await db.query<{ xmin: string }>("SELECT xmin::text FROM blocks WHERE number = $1", [
            tip.toString(),
          ]),
        ).xmin;
      const written = await tipRow();
      // Two calls a poll (the tip's check and catch-up): four polls see the lagging head.
      lag = { head: tip - 1n, calls: 8 };
      await until("the lagging answers to be given", async () => lag.calls === 0);
      await node.request("anvil_mine", ["0x1"]);
      await untilIndexedHead(node, db);
      expect(await tipRow()).toBe(written);
    });
  },
);
