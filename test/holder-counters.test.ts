import { encodeDeployData, encodeFunctionData, type Hex, toHex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate } from "../src/db/migrate.ts";
import { type Anvil, startAnvil } from "../src/demo/anvil.ts";
import { type Artifacts, compileDemoContracts } from "../src/demo/compile.ts";
import { required } from "../src/required.ts";
import { createRpcClient, type RpcClient } from "../src/rpc/client.ts";
import { databaseKinds, fingerprint, type TestDatabase } from "./support/databases.ts";
import { at } from "./support/elements.ts";
import { type FollowedNode, followNode } from "./support/index-node.ts";
import { freshIndexFingerprint, untilIndexedHead } from "./support/node-head.ts";
import { tokenBalanceMismatches, tokenCounterMismatches } from "./support/token-ledger.ts";
import { transact } from "./support/transact.ts";

const gasPrice = toHex(10_000_000_000n);
const ids = [1n, 2n, 3n];

// tokens.holders_count, token_holders and each instance's holders and units are kept with the balances,
// never recounted: after every reorganization they must equal what the balances say, and what the node
// says.
describe.each(databaseKinds)("holder counters across reorganizations on %s", (kind) => {
  let anvil: Anvil;
  let client: RpcClient;
  let indexed: FollowedNode;
  let test: TestDatabase;
  let accounts: Hex[];
  let artifacts: Artifacts;
  const tokens = {} as Record<"fungible" | "collectible" | "multi", Hex>;
  type TokenContract = "DemoToken" | "DemoCollectible" | "DemoMultiToken";
  const artifact = (contract: TokenContract) => required(artifacts[contract], `${contract}'s artifact`);
  const account = (index: number) => at(accounts, index, "dev accounts");

  const call = (contract: TokenContract, functionName: string, args: unknown[]) =>
    encodeFunctionData({ abi: artifact(contract).abi, functionName, args } as never);

  const send = (from: Hex, to: Hex | undefined, data: Hex) => transact(client, { from, to, data, gasPrice });

  const caughtUp = () => untilIndexedHead(client, test.db);

  /** Holders per token on the node: accounts with a balance above zero (any of the ids for ERC-1155). */
  async function nodeHolders(): Promise<Record<keyof typeof tokens, number>> {
    const read = async (to: Hex, data: Hex) =>
      BigInt(await client.request<Hex>("eth_call", [{ to, data }, "latest"]));
    let fungible = 0;
    let collectible = 0;
    let multi = 0;
    for (const account of accounts) {
      if ((await read(tokens.fungible, call("DemoToken", "balanceOf", [account]))) > 0n) fungible++;
      if ((await read(tokens.collectible, call("DemoCollectible", "balanceOf", [account]))) > 0n)
        collectible++;
      let any = false;
      for (const id of ids) {
        if ((await read(tokens.multi, call("DemoMultiToken", "balanceOf", [account, id]))) > 0n) any = true;
      }
      if (any) multi++;
    }
    return { fungible, collectible, multi };
  }

  /**
   * The counters equal the balances' aggregates and the node's holders; with `againstFreshIndex`, the
   * token tables also equal a fresh index of the chain.
   */
  async function expectExactCounters(
    againstFreshIndex = false,
  ): Promise<Record<keyof typeof tokens, number>> {
    await caughtUp();
    expect(await tokenCounterMismatches(test.db)).toEqual({ tokens: [], holdings: [], instances: [] });
    const head = BigInt(await client.request<Hex>("eth_blockNumber"));
    expect((await tokenBalanceMismatches(test.db, client, head)).mismatches).toEqual([]);
    const stored = await test.db.query<{ address: string; holders_count: number }>(
      "SELECT '0x' || encode(address, 'hex') AS address, holders_count FROM tokens",
    );
    const count = (token: Hex) => stored.find((row) => row.address === token.toLowerCase())?.holders_count;
    const counted = {
      fungible: count(tokens.fungible) as number,
      collectible: count(tokens.collectible) as number,
      multi: count(tokens.multi) as number,
    };
    expect(counted).toEqual(await nodeHolders());
    if (!againstFreshIndex) return counted;
    const [ours, theirs] = [await fingerprint(test.db), await freshIndexFingerprint(client, kind)];
    expect({
      tokens: ours.tokens,
      token_balances: ours.token_balances,
      token_holders: ours.token_holders,
      token_instances: ours.token_instances,
    }).toEqual({
      tokens: theirs.tokens,
      token_balances: theirs.token_balances,
      token_holders: theirs.token_holders,
      token_instances: theirs.token_instances,
    });
    return counted;
  }

  beforeAll(async () => {
    anvil = await startAnvil();
    client = createRpcClient({ url: anvil.rpcUrl });
    accounts = (await client.request<Hex[]>("eth_accounts")).slice(0, 6);
    artifacts = await compileDemoContracts();
    const owner = account(0);
    const deploy = async (name: TokenContract, args: unknown[]) => {
      const { abi, bytecode } = artifact(name);
      const { contractAddress } = await send(
        owner,
        undefined,
        encodeDeployData({ abi, bytecode, args } as never),
      );
      return contractAddress as Hex;
    };
    tokens.fungible = await deploy("DemoToken", [owner]);
    tokens.collectible = await deploy("DemoCollectible", [owner]);
    tokens.multi = await deploy("DemoMultiToken", [owner, "ipfs://multi/{id}"]);
    // Account 1 holds several ids of both NFT tokens; accounts 2 and 3 one each.
    for (const [to, amount] of [
      [account(1), 5n],
      [account(2), 7n],
      [account(3), 9n],
    ] as const) {
      await send(owner, tokens.fungible, call("DemoToken", "mint", [to, amount]));
    }
    for (const to of [account(1), account(1), account(1), account(2)]) {
      await send(owner, tokens.collectible, call("DemoCollectible", "mint", [to, "ipfs://item"]));
    }
    await send(owner, tokens.multi, call("DemoMultiToken", "mint", [account(1), 1n, 4n, "0x"]));
    await send(owner, tokens.multi, call("DemoMultiToken", "mint", [account(1), 2n, 1n, "0x"]));
    await send(owner, tokens.multi, call("DemoMultiToken", "mint", [account(2), 1n, 2n, "0x"]));

    indexed = await followNode(kind, client, { pollIntervalMs: 20, rangeSize: 5 });
    test = indexed.test;
  }, 120_000);
  afterAll(async () => {
    await indexed?.drop();
    await anvil?.stop();
  });

  it("counts each holder once per token, whatever its ids", async () => {
    expect(await expectExactCounters(true)).toEqual({ fungible: 3, collectible: 2, multi: 2 });
  });

  it("takes back orphaned transfers that emptied holdings and made new holders", async () => {
    // Blocks to orphan: account 1 empties its fungible balance and one of its two ERC-1155 ids, account 2
    // gives its only ERC-721 id to account 4, account 3 sends its whole balance away and gets part back.
    const doomed: [Hex, Hex, Hex][] = [
      [account(1), tokens.fungible, call("DemoToken", "transfer", [account(4), 5n])],
      [account(1), tokens.multi, call("DemoMultiToken", "burn", [account(1), 2n, 1n])],
      [account(2), tokens.collectible, call("DemoCollectible", "transferFrom", [account(2), account(4), 4n])],
      [account(3), tokens.fungible, call("DemoToken", "transfer", [account(5), 9n])],
      [account(5), tokens.fungible, call("DemoToken", "transfer", [account(3), 4n])],
    ];
    for (const [from, to, data] of doomed) await send(from, to, data);
    const before = await expectExactCounters();
    expect(before).toEqual({ fungible: 4, collectible: 2, multi: 2 });

    // The replacement: account 1 gives away every ERC-1155 unit (zero across all its ids) and two of its
    // three ERC-721 ids; account 2 burns its ERC-1155 id.
    // The orphaned transactions were the senders' first: the replacement starts again at nonce 0.
    const replaced: [from: Hex, nonce: number, to: Hex, data: Hex][] = [
      [
        account(1),
        0,
        tokens.multi,
        call("DemoMultiToken", "safeTransferFrom", [account(1), account(5), 1n, 4n, "0x"]),
      ],
      [account(1), 1, tokens.multi, call("DemoMultiToken", "burn", [account(1), 2n, 1n])],
      [
        account(1),
        2,
        tokens.collectible,
        call("DemoCollectible", "transferFrom", [account(1), account(3), 1n]),
      ],
      [
        account(1),
        3,
        tokens.collectible,
        call("DemoCollectible", "transferFrom", [account(1), account(3), 2n]),
      ],
      [account(2), 0, tokens.multi, call("DemoMultiToken", "burn", [account(2), 1n, 2n])],
    ];
    const replacement = replaced.map(([from, nonce, to, data]) => ({
      from,
      to,
      data,
      nonce: toHex(nonce),
      gas: toHex(300_000),
      gasPrice,
    }));
    await client.request("anvil_reorg", [doomed.length, replacement.map((tx, i) => [tx, i % doomed.length])]);
    const after = await expectExactCounters(true);
    expect(after).toEqual({ fungible: 3, collectible: 3, multi: 1 });
  });

  it("takes back a holder reaching zero and coming back when the chain gets shorter", async () => {
    // Account 4 becomes an ERC-1155 holder, goes to zero, and holds again; the rollback cuts inside.
    await send(
      account(5),
      tokens.multi,
      call("DemoMultiToken", "safeTransferFrom", [account(5), account(4), 1n, 3n, "0x"]),
    );
    await send(
      account(4),
      tokens.multi,
      call("DemoMultiToken", "safeTransferFrom", [account(4), account(5), 1n, 3n, "0x"]),
    );
    await send(
      account(5),
      tokens.multi,
      call("DemoMultiToken", "safeTransferFrom", [account(5), account(4), 1n, 1n, "0x"]),
    );
    expect(await expectExactCounters()).toEqual({ fungible: 3, collectible: 3, multi: 2 });
    // Account 4 back at zero, then holding again, then never having held.
    for (const [multi, last] of [
      [1, false],
      [2, false],
      [1, true],
    ] as const) {
      await client.request("anvil_rollback", [1]);
      expect(await expectExactCounters(last)).toEqual({ fungible: 3, collectible: 3, multi });
    }
  });

  it("counts each id's holders and units when a database stored before the counters migrates", async () => {
    const migration = "028_instance_holders.sql";
    await test.db.exec("ALTER TABLE token_instances DROP COLUMN holders, DROP COLUMN units");
    await test.db.query("DELETE FROM schema_migrations WHERE name = $1", [migration]);
    expect((await migrate(test.db)).applied).toEqual([migration]);
    await expectExactCounters(true);
  });
});
