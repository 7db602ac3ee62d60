import { encodeDeployData, encodeFunctionData, getAddress, type Hex, toHex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readCheckpoint } from "../src/db/checkpoints.ts";
import { type Anvil, startAnvil } from "../src/demo/anvil.ts";
import { createRpcClient, type RpcClient } from "../src/rpc/client.ts";
import { eth_blockNumber } from "../src/rpc/eth_blockNumber.ts";
import type { TestDatabase } from "./support/databases.ts";
import { demoArtifact } from "./support/demo-artifact.ts";
import { indexNode } from "./support/index-node.ts";
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
