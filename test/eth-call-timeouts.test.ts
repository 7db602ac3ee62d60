import { encodeDeployData, encodeFunctionData, getAddress, type Hex, toHex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Anvil, startAnvil } from "../src/demo/anvil.ts";
import { createRpcClient } from "../src/rpc/client.ts";
import type { TestDatabase } from "./support/databases.ts";
import { demoArtifact } from "./support/demo-artifact.ts";
import { indexNode } from "./support/index-node.ts";
import { type RoutingProxy, startRoutingProxy } from "./support/routing-proxy.ts";
import { transact } from "./support/transact.ts";

/** What geth and Erigon answer for an `eth_call` that ran past their limit (`--rpc.evmtimeout`). */
const timedOut = { error: { code: -32000, message: "execution aborted (timeout = 5s)" } };

describe("a node whose eth_call times out", () => {
  let anvil: Anvil;
  let proxy: RoutingProxy;
  let test: TestDatabase | undefined;
  let token: Hex;

  beforeAll(async () => {
    anvil = await startAnvil();
    const direct = createRpcClient({ url: anvil.rpcUrl });
    const DemoToken = await demoArtifact("DemoToken");
    const [owner, holder] = await direct.request<Hex[]>("eth_accounts");
    const send = (transaction: { to?: Hex; data: Hex }) =>
      transact(direct, { from: owner as Hex, gas: toHex(3_000_000), ...transaction });
    const deployed = await send({ data: encodeDeployData({ ...DemoToken, args: [owner] } as never) });
    token = getAddress(deployed.contractAddress as Hex);
    await send({
      to: token,
      data: encodeFunctionData({ abi: DemoToken.abi, functionName: "mint", args: [holder, 10n ** 18n] }),
    });
    // The first calls time out: the batched one and, in its place, every plain one, then one more.
    let timeouts = 8;
    proxy = await startRoutingProxy({
      route: () => anvil.rpcUrl,
      answer: (call) => (call.method === "eth_call" && timeouts-- > 0 ? timedOut : undefined),
    });
  }, 60_000);
  afterAll(async () => {
    await test?.drop();
    await proxy?.close();
    await anvil?.stop();
  });

  it("asks again instead of storing the token undescribed", async () => {
    const indexed = await indexNode("pglite", createRpcClient({ url: proxy.url, retryDelayMs: 1 }));
    test = indexed.test;
    expect(proxy.calls.filter((call) => call.method === "eth_call").length).toBeGreaterThan(8);
    const rows = await test.db.query<{
      name: string;
      symbol: string;
      decimals: number;
      type: string;
      supply: string;
    }>("SELECT name, symbol, decimals, type, total_supply::text AS supply FROM tokens WHERE address = $1", [
      Buffer.from(token.slice(2), "hex"),
    ]);
    expect(rows).toEqual([
      {
        name: "Sextant Demo Token",
        symbol: "SDT",
        decimals: 18,
        type: "ERC-20",
        supply: (10n ** 18n).toString(),
      },
    ]);
  });
});
