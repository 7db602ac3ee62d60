import type { Hash, Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RoutingProxy, startRoutingProxy } from "../../test/support/routing-proxy.ts";
import { type Anvil, startAnvil } from "../demo/anvil.ts";
import { createRpcClient, type RpcClient } from "./client.ts";
import { RpcResponseError } from "./errors.ts";
import { eth_getCode } from "./eth_getCode.ts";
import { probeBlockHashes, type StateBlock } from "./read-state.ts";

const holder: Hex = "0x00000000000000000000000000000000000c0de5";

/** The block at `tag`, as a state read names it. */
async function stateBlock(client: RpcClient, tag: string): Promise<Required<StateBlock>> {
  const block = await client.request<{ number: Hex; hash: Hash }>("eth_getBlockByNumber", [tag, false]);
  return { number: BigInt(block.number), hash: block.hash };
}

/** The block parameter of each state read that reached the proxy: `hash` (EIP-1898 object) or `number`. */
function blockForms(proxy: RoutingProxy): string[] {
  return proxy.calls
    .filter((call) => call.method === "eth_getCode")
    .map((call) => (typeof call.params?.at(-1) === "object" ? "hash" : "number"));
}

describe("readState", () => {
  let anvil: Anvil;
  let pruned: Anvil;
  const proxies: RoutingProxy[] = [];

  beforeAll(async () => {
    [anvil, pruned] = await Promise.all([startAnvil(), startAnvil({ args: ["--prune-history"] })]);
  });
  afterAll(async () => {
    await Promise.all(proxies.map((proxy) => proxy.close()));
    await Promise.all([anvil?.stop(), pruned?.stop()]);
  });

  it("reads the fetched block's state by its hash, and fails once the node has left that block", async () => {
    const client = createRpcClient({ url: anvil.rpcUrl, retries: 0 });
    await client.request("anvil_setCode", [holder, "0x6001"]);
    await client.request("anvil_mine", ["0x1"]);
    const left = await stateBlock(client, "latest");
    // The node moves to another block at that height, where the address holds other code.
    await client.request("anvil_rollback", [1]);
    await client.request("anvil_setCode", [holder, "0x6002"]);
    await client.request("anvil_mine", ["0x1"]);
    const current = await stateBlock(client, "latest");
    expect(current.number).toBe(left.number);
    expect(current.hash).not.toBe(left.hash);

    expect(await eth_getCode(client, { addresses: [holder], block: current })).toEqual(["0x6002"]);
    expect(await eth_getCode(client, { addresses: [holder], block: { number: left.number } })).toEqual([
      "0x6002",
    ]);
    // By number the read would have answered the other block's code as the left one's.
    const failure = await eth_getCode(client, { addresses: [holder], block: left }).catch((error) => error);
    expect(failure).toBeInstanceOf(RpcResponseError);
    expect((failure as RpcResponseError).retryable).toBe(true);
  });

  it("asks a node once whether it takes block hashes, whatever error it refuses them with", async () => {
    // Ganache fails a block object with an internal error, which alone would be asked again forever.
    const proxy = await startRoutingProxy({
      route: () => anvil.rpcUrl,
      answer: (call) =>
        typeof call.params?.at(-1) === "object"
          ? { error: { code: -32603, message: "Cannot convert string to buffer: 0x[object Object]" } }
          : undefined,
    });
    proxies.push(proxy);
    const refusing = createRpcClient({ url: proxy.url, retries: 0 });
    const genesis = await stateBlock(refusing, "earliest");
    await refusing.request("anvil_setCode", [holder, "0x6004"]);
    await refusing.request("anvil_mine", ["0x1"]);
    const head = await stateBlock(refusing, "latest");
    const before = await eth_getCode(refusing, { addresses: [holder], block: head }).catch((error) => error);
    expect(before).toBeInstanceOf(RpcResponseError);
    expect((before as RpcResponseError).retryable).toBe(true);
    await probeBlockHashes(refusing, genesis);
    expect(await eth_getCode(refusing, { addresses: [holder], block: head })).toEqual(["0x6004"]);
    expect(blockForms(proxy)).toEqual(["hash", "number"]);
    // A node that takes them keeps being asked by hash.
    const taking = await startRoutingProxy({ route: () => anvil.rpcUrl });
    proxies.push(taking);
    const client = createRpcClient({ url: taking.url, retries: 0 });
    await probeBlockHashes(client, genesis);
    expect(await eth_getCode(client, { addresses: [holder], block: head })).toEqual(["0x6004"]);
    expect(blockForms(taking)).toEqual(["hash"]);
  });

  it("names block numbers to a node that refuses block hashes, and remembers it", async () => {
    const proxy = await startRoutingProxy({
      route: () => anvil.rpcUrl,
      // A node from before EIP-1898 parses the block parameter as a quantity only.
      answer: (call) =>
        typeof call.params?.at(-1) === "object"
          ? { error: { code: -32602, message: "invalid argument 1: hex string without 0x prefix" } }
          : undefined,
    });
    proxies.push(proxy);
    const client = createRpcClient({ url: proxy.url });
    await client.request("anvil_setCode", [holder, "0x6003"]);
    await client.request("anvil_mine", ["0x1"]);
    const head = await stateBlock(client, "latest");

    expect(await eth_getCode(client, { addresses: [holder, holder], block: head })).toEqual([
      "0x6003",
      "0x6003",
    ]);
    expect(blockForms(proxy)).toEqual(["hash", "hash", "number", "number"]);
    expect(await eth_getCode(client, { addresses: [holder], block: head })).toEqual(["0x6003"]);
    expect(blockForms(proxy)).toEqual(["hash", "hash", "number", "number", "number"]);
  });

  it("asks a node without the block's state at its head, and still names blocks by hash afterwards", async () => {
    const proxy = await startRoutingProxy({ route: () => pruned.rpcUrl });
    proxies.push(proxy);
    const client = createRpcClient({ url: proxy.url });
    await client.request("anvil_setCode", [holder, "0x6004"]);
    await client.request("anvil_mine", ["0x1"]);
    const old = await stateBlock(client, "latest");
    await client.request("anvil_setCode", [holder, "0x6005"]);
    await client.request("anvil_mine", ["0x40"]);
    const head = await stateBlock(client, "latest");

    // anvil says "no state" with the code of invalid params: that is no refusal of block hashes.
    expect(await eth_getCode(client, { addresses: [holder], block: old })).toEqual(["0x6005"]);
    expect(await eth_getCode(client, { addresses: [holder], block: head })).toEqual(["0x6005"]);
    expect(
      proxy.calls.filter((call) => call.method === "eth_getCode").map((call) => call.params?.at(-1)),
    ).toEqual([{ blockHash: old.hash }, "latest", { blockHash: head.hash }]);
  });
});
