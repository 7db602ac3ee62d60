import { toHex } from "viem";
import { describe, expect, it } from "vitest";
import { ChainMismatchError } from "../src/db/chain-identity.ts";
import { startAnvil } from "../src/demo/anvil.ts";
import { createRpcClient } from "../src/rpc/client.ts";
import { followNode } from "./support/index-node.ts";
import { startRoutingProxy } from "./support/routing-proxy.ts";
import { until } from "./support/until.ts";

describe("a node URL that starts serving another chain", () => {
  it("stops the indexer saying the chain changed, not that a reorganization went too deep", async () => {
    const first = await startAnvil();
    // Another genesis too: two anvils started in the same second would otherwise mine the same blocks.
    const second = await startAnvil({ args: ["--chain-id", "1337", "--timestamp", "1000"] });
    let target = first.rpcUrl;
    const proxy = await startRoutingProxy({ route: () => target });
    try {
      await createRpcClient({ url: first.rpcUrl }).request("anvil_mine", [toHex(5)]);
      await createRpcClient({ url: second.rpcUrl }).request("anvil_mine", [toHex(10)]);
      const client = createRpcClient({ url: proxy.url, retryDelayMs: 1 });
      const followed = await followNode("pglite", client, { maxReorgDepth: 2, pollIntervalMs: 50 });
      try {
        await until("block 5 indexed", async () => followed.indexer.status().indexedBlock === 5n, {
          failOn: followed.running,
        });
        target = second.rpcUrl;
        const failure = await followed.running.then(
          () => new Error("the indexer went on"),
          (error: unknown) => error,
        );
        expect(failure).toBeInstanceOf(ChainMismatchError);
        expect((failure as ChainMismatchError).shortMessage).toMatch(
          /indexes chain 31337 .*serves chain 1337 /,
        );
      } finally {
        await followed.drop().catch(() => {});
      }
    } finally {
      await proxy.close();
      await Promise.all([first.stop(), second.stop()]);
    }
  }, 60_000);
});
