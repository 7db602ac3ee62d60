import { encodeDeployData, encodeFunctionData, getAddress, type Hex, toHex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readCheckpoint } from "../src/db/checkpoints.ts";
import { type Anvil, startAnvil } from "../src/demo/anvil.ts";
import { HistoryUnavailableError } from "../src/indexer/fetch-range.ts";
import { createRpcClient, type RpcClient } from "../src/rpc/client.ts";
import { eth_blockNumber } from "../src/rpc/eth_blockNumber.ts";
import type { TestDatabase } from "./support/databases.ts";
import { demoArtifact } from "./support/demo-artifact.ts";
import type { JsonRpcCall } from "./support/fault-proxy.ts";
import { indexNode } from "./support/index-node.ts";
import { type JsonRpcAnswer, type RoutingProxy, startRoutingProxy } from "./support/routing-proxy.ts";
import { transact } from "./support/transact.ts";

describe("a node that keeps no historical state", () => {
  let anvil: Anvil;
  let client: RpcClient;
  let test: TestDatabase;
  let token: Hex;
  let holder: Hex;

  beforeAll(async () => {
    anvil = await startAnvil({ args: ["--prune-history"] });
    client = createRpcClient({ url: anvil.rpcUrl });
    const DemoToken = await demoArtifact("DemoToken");
    const [owner, other] = await client.request<Hex[]>("eth_accounts");
    holder = other as Hex;
    const send = (transaction: { to?: Hex; data: Hex }) =>
      transact(client, { from: owner as Hex, gas: toHex(3_000_000), ...transaction });
    const deployed = await send({ data: encodeDeployData({ ...DemoToken, args: [owner] } as never) });
    token = getAddress(deployed.contractAddress as Hex);
    await send({
      to: token,
      data: encodeFunctionData({ abi: DemoToken.abi, functionName: "mint", args: [holder, 5n * 10n ** 18n] }),
    });
    // Old blocks now lie behind states the node no longer has.
    await client.request("anvil_mine", [toHex(20)]);
  }, 120_000);
  afterAll(async () => {
    await test?.drop();
    await anvil?.stop();
  });

  it("indexes every block to the head, token reads answered at the head", async () => {
    const tokenBlock = 1n;
    await expect(
      client.request("eth_call", [{ to: token, data: "0x06fdde03" }, toHex(tokenBlock)]),
    ).rejects.toThrow(/BlockOutOfRange/);

    const head = await eth_blockNumber(client);
    const indexed = await indexNode("pglite", client);
    test = indexed.test;
    expect(indexed.head).toBe(head);
    expect(await readCheckpoint(test.db)).toBe(head);

    const [row] = await test.db.query<{ name: string; symbol: string; decimals: number; type: string }>(
      "SELECT name, symbol, decimals, type FROM tokens WHERE address = $1",
      [Buffer.from(token.slice(2), "hex")],
    );
    expect(row).toEqual({ name: "Sextant Demo Token", symbol: "SDT", decimals: 18, type: "ERC-20" });
    const [balance] = await test.db.query<{ value: string }>(
      "SELECT value::text AS value FROM token_balances WHERE token_address = $1 AND holder = $2",
      [Buffer.from(token.slice(2), "hex"), Buffer.from(holder.slice(2), "hex")],
    );
    expect(balance?.value).toBe((5n * 10n ** 18n).toString());
  });
});

/**
 * Blocks 1 and 2 (one transaction each) lie behind what the node keeps: a full geth has no state to trace
 * them, a geth with pruned history no body or receipts.
 */
describe("a node that keeps no history of old blocks", () => {
  let anvil: Anvil;
  const proxies: RoutingProxy[] = [];
  const old = new Set(["0x1", "0x2"]);

  beforeAll(async () => {
    anvil = await startAnvil();
    const direct = createRpcClient({ url: anvil.rpcUrl });
    const [owner] = await direct.request<Hex[]>("eth_accounts");
    for (const to of [
      "0x000000000000000000000000000000000000dead",
      "0x000000000000000000000000000000000000beef",
    ])
      await transact(direct, { from: owner as Hex, to: to as Hex, value: "0x1" });
    await direct.request("anvil_mine", [toHex(3)]);
  });
  afterAll(async () => {
    await Promise.all(proxies.map((proxy) => proxy.close()));
    await anvil?.stop();
  });

  /** A geth (so callTracer is tried first) that answers calls about old blocks as `refuse` says. */
  async function geth(refuse: (call: JsonRpcCall) => Omit<JsonRpcAnswer, "jsonrpc" | "id"> | undefined) {
    const proxy = await startRoutingProxy({
      route: () => anvil.rpcUrl,
      answer: (call) =>
        call.method === "web3_clientVersion"
          ? { result: "Geth/v1.15.11-stable/linux-amd64/go1.24.2" }
          : old.has(String(call.params?.[0]))
            ? refuse(call)
            : undefined,
    });
    proxies.push(proxy);
    return createRpcClient({ url: proxy.url, retryDelayMs: 1 });
  }

  it("stops at the first block a full node cannot trace, saying what to change", async () => {
    const client = await geth((call) =>
      call.method === "debug_traceBlockByNumber"
        ? { error: { code: -32000, message: "required historical state unavailable (reexec=128)" } }
        : undefined,
    );
    const failure = await indexNode("pglite", client).catch((error) => error);
    expect(failure).toBeInstanceOf(HistoryUnavailableError);
    expect(failure.isUserError).toBe(true);
    expect(failure.block).toBe(1n);
    expect(failure.shortMessage).toMatch(/trace block 1\b.*archive node.*FIRST_BLOCK.*SEXTANT_TRACER=none/);

    // Either way out the message gives indexes the blocks.
    for (const options of [{ firstBlock: 3n }, { tracer: "none" as const }]) {
      const { test, head } = await indexNode("pglite", client, options);
      await test.drop();
      expect(head).toBe(await eth_blockNumber(client));
    }
  }, 60_000);

  it("rides out a load balancer whose full node gets some of the calls", async () => {
    let refusals = 0;
    const client = await geth((call) => {
      if (call.method !== "debug_traceBlockByNumber" || refusals >= 3) return undefined;
      refusals++;
      return { error: { code: -32000, message: "required historical state unavailable (reexec=128)" } };
    });
    const { test, head } = await indexNode("pglite", client);
    try {
      expect([head, refusals]).toEqual([await eth_blockNumber(client), 3]);
      // Traced: whether a transaction's calls failed is known only from its trace.
      const traced = await test.db.query<{ known: boolean }>(
        "SELECT has_error_in_internal_transactions IS NOT NULL AS known FROM transactions WHERE block_number IN (1, 2)",
      );
      expect(traced).toEqual([{ known: true }, { known: true }]);
    } finally {
      await test.drop();
    }
  }, 60_000);

  it("stops at the first block whose history a node dropped", async () => {
    const client = await geth((call) =>
      call.method === "eth_getBlockByNumber" || call.method === "eth_getBlockReceipts"
        ? { error: { code: 4444, message: "pruned history unavailable" } }
        : undefined,
    );
    const failure = await indexNode("pglite", client, { tracer: "none" }).catch((error) => error);
    expect(failure).toBeInstanceOf(HistoryUnavailableError);
    expect(failure.block).toBe(1n);
    expect(failure.shortMessage).toMatch(/block 1's transactions or receipts.*FIRST_BLOCK/);
  }, 60_000);
});
