import { encodeDeployData, encodeFunctionData, getContractAddress, type Hex, toHex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiServer } from "../src/api/server.ts";
import { readCheckpoint } from "../src/db/checkpoints.ts";
import { type Anvil, startAnvil } from "../src/demo/anvil.ts";
import { compileSources } from "../src/demo/compile.ts";
import { ReorgTooDeepError } from "../src/indexer/create-indexer.ts";
import { required } from "../src/required.ts";
import { createRpcClient, type RpcClient, type RpcClientParameters } from "../src/rpc/client.ts";
import { chainMismatches } from "./support/compare-with-node.ts";
import { databaseKinds, fingerprint, type TestDatabase } from "./support/databases.ts";
import { demoArtifact } from "./support/demo-artifact.ts";
import { at, only } from "./support/elements.ts";
import { type FaultProxy, type JsonRpcCall, startFaultProxy } from "./support/fault-proxy.ts";
import { type FollowedNode, followNode } from "./support/index-node.ts";
import { freshIndexFingerprint, untilIndexedHead } from "./support/node-head.ts";
import { tokenBalanceMismatches } from "./support/token-ledger.ts";
import { transact, waitForReceipt } from "./support/transact.ts";
import { until } from "./support/until.ts";

const gasPrice = toHex(10_000_000_000n);
/** Init code of a contract whose every call returns 42. */
const returnsFortyTwo: Hex = "0x600a600c600039600a6000f3602a60005260206000f3";

/** Waits for `condition`; a loaded 2-core machine can take many seconds to mine and index. */
const waitFor = (condition: () => Promise<boolean>, what: string) => until(what, condition, 60_000);

describe.each(databaseKinds)("following reorganizations on %s", (kind) => {
  let anvil: Anvil;
  let client: RpcClient;
  let indexed: FollowedNode;
  let test: TestDatabase;
  let accounts: Hex[];
  let token: Hex;
  let tokenCall: (functionName: "mint" | "transfer" | "burn", args: unknown[]) => Hex;

  const caughtUp = () => untilIndexedHead(client, test.db);

  /** The stored tables equal a fresh index of the node's current chain. */
  async function expectCanonical() {
    await caughtUp();
    const [ours, theirs] = [await fingerprint(test.db), await freshIndexFingerprint(client, kind)];
    expect(ours).toEqual(theirs);
    // And the token's balances and supply are the node's (the other contracts only emit events).
    const head = BigInt(await client.request<Hex>("eth_blockNumber"));
    const balances = await tokenBalanceMismatches(test.db, client, head, { tokens: [token] });
    expect(balances.mismatches).toEqual([]);
    expect(balances.compared).toBeGreaterThan(3);
    const stored = only(
      await test.db.query<{ total_supply: string }>(
        "SELECT total_supply::text FROM tokens WHERE address = $1",
        [Buffer.from(token.slice(2), "hex")],
      ),
    );
    expect(BigInt(stored.total_supply)).toBe(
      BigInt(await client.request<Hex>("eth_call", [{ to: token, data: "0x18160ddd" }, "latest"])),
    );
  }

  beforeAll(async () => {
    anvil = await startAnvil();
    client = createRpcClient({ url: anvil.rpcUrl });
    accounts = await client.request<Hex[]>("eth_accounts");
    let last: Hex = "0x";
    // The token comes first, so no reorganization below orphans its deployment.
    const DemoToken = await demoArtifact("DemoToken");
    const deployment = await transact(client, {
      from: at(accounts, 0),
      data: encodeDeployData({ abi: DemoToken.abi, bytecode: DemoToken.bytecode, args: [accounts[0]] }),
      gasPrice,
    });
    token = deployment.contractAddress as Hex;
    tokenCall = (functionName: "mint" | "transfer" | "burn", args: unknown[]) =>
      encodeFunctionData({ abi: DemoToken.abi, functionName, args } as never);
    for (let i = 0; i < 10; i++) {
      last = await client.request("eth_sendTransaction", [
        {
          from: accounts[0],
          to: token,
          data: tokenCall("mint", [accounts[i % 4], 10n ** 18n * BigInt(i + 1)]),
          gasPrice,
        },
      ]);
    }
    await waitForReceipt(client, last);

    for (let i = 0; i < 60; i++) {
      last = await client.request("eth_sendTransaction", [
        { from: accounts[i % 4], to: accounts[(i + 1) % 4], value: toHex(i + 1), gasPrice },
      ]);
    }
    await waitForReceipt(client, last);
    indexed = await followNode(kind, client, { pollIntervalMs: 20, rangeSize: 10 });
    test = indexed.test;
    await caughtUp();
  });
  afterAll(async () => {
    await indexed?.drop();
    await anvil?.stop();
  });

  it.each([1, 5, 30])(
    "replaces the last %i blocks: transactions move, disappear and appear",
    async (depth) => {
      const { hash: gone } = await transact(client, {
        from: at(accounts, 1),
        to: accounts[2],
        value: "0x1",
        gasPrice,
      });
      await caughtUp();
      const head = Number(await client.request<string>("eth_blockNumber"));
      const sender = at(accounts, 5 + (depth % 3));
      const nonce = Number(await client.request<string>("eth_getTransactionCount", [sender, "latest"]));
      // One signed transaction (same sender, nonce, fields: same hash) placed by two successive reorganizations.
      const moving = {
        from: sender,
        to: accounts[9],
        value: "0x7",
        nonce: toHex(nonce),
        gas: "0x5208",
        gasPrice,
      };
      const appearing = { from: accounts[8], to: accounts[9], value: toHex(1000 + depth), gasPrice };
      await client.request("anvil_reorg", [
        depth,
        [
          [moving, 0],
          [appearing, depth - 1],
        ],
      ]);
      await client.request("anvil_mine", ["0x2"]);
      await expectCanonical();
      expect(
        await test.db.query("SELECT 1 FROM transactions WHERE hash = $1", [
          Buffer.from(gone.slice(2), "hex"),
        ]),
      ).toHaveLength(0);
      const movedBlock = async () => {
        return only(
          await test.db.query<{ block_number: number; hash: string }>(
            "SELECT block_number, '0x' || encode(hash, 'hex') AS hash FROM transactions WHERE nonce = $1 AND from_address = $2",
            [nonce, Buffer.from(sender.slice(2), "hex")],
          ),
        );
      };
      const first = await movedBlock();
      expect(first.block_number).toBe(head - depth + 1);

      // The next reorganization reaches back over it and puts the same transaction one block later.
      await client.request("anvil_reorg", [depth + 2, [[moving, 1]]]);
      await expectCanonical();
      const then = await movedBlock();
      expect(then).toEqual({ block_number: head - depth + 2, hash: first.hash });

      // The API lists only rows of the node's chain: the appeared transaction is gone again.
      const app = await createApiServer({ db: test.db });
      for (const address of [accounts[1], accounts[8], sender]) {
        const { items } = (await app.inject(`/api/v2/addresses/${address}/transactions`)).json();
        for (const item of items) {
          const onChain = await client.request<{ blockHash: string } | null>("eth_getTransactionByHash", [
            item.hash,
          ]);
          expect(onChain?.blockHash, item.hash).toBe(item.block_hash);
        }
      }
      await app.close();
    },
  );

  it.each([
    ["collectible", "ERC-404"],
    ["multi", "ERC-1155"],
  ] as const)(
    "takes back a token's promotion by its %s event (%s) when the block that promoted it is orphaned",
    async (second, promoted) => {
      // An ERC-20 until it emits the ERC-721 form of Transfer (ERC-404), or an ERC-1155 event.
      const { Shifting } = await compileSources({
        "Shifting.sol": `
        // SPDX-License-Identifier: MIT
        pragma solidity ^0.8.20;
        contract Shifting {
          function fungible(address to, uint256 amount) external {
            bytes32 transfer = keccak256("Transfer(address,address,uint256)");
            assembly { mstore(0, amount) log3(0, 32, transfer, 0, to) }
          }
          function collectible(address to, uint256 id) external {
            bytes32 transfer = keccak256("Transfer(address,address,uint256)");
            assembly { log4(0, 0, transfer, 0, to, id) }
          }
          function multi(address to, uint256 id) external {
            bytes32 single = keccak256("TransferSingle(address,address,address,uint256,uint256)");
            assembly { mstore(0, id) mstore(32, 1) log4(0, 64, single, caller(), 0, to) }
          }
        }`,
      });
      const shifting = required(Shifting, "the Shifting artifact");
      const call = (functionName: "fungible" | "collectible" | "multi", args: unknown[]) =>
        encodeFunctionData({ abi: shifting.abi, functionName, args } as never);
      const deployed = await transact(client, { from: at(accounts, 0), data: shifting.bytecode, gasPrice });
      const address = deployed.contractAddress as Hex;
      await transact(client, {
        from: at(accounts, 0),
        to: address,
        data: call("fungible", [accounts[1], 5n]),
        gasPrice,
      });
      await caughtUp();
      await transact(client, {
        from: at(accounts, 0),
        to: address,
        data: call(second, [accounts[2], 7n]),
        gasPrice,
      });
      await transact(client, { from: at(accounts, 1), to: accounts[2], value: "0x1", gasPrice });
      const typeOf = async () =>
        only(
          await test.db.query<{ type: string }>("SELECT type FROM tokens WHERE address = $1", [
            Buffer.from(address.slice(2), "hex"),
          ]),
        ).type;
      // Indexed as it came, and in one range by a fresh index: the same promotion.
      await expectCanonical();
      expect(await typeOf()).toBe(promoted);

      await client.request("anvil_reorg", [
        2,
        [[{ from: accounts[3], to: accounts[4], value: "0x2", gasPrice }, 0]],
      ]);
      await expectCanonical();
      expect(await typeOf()).toBe("ERC-20");
    },
  );

  it("takes back a long ERC-1155 batch's head with its block and keeps the replacing batch's", async () => {
    const DemoMultiToken = await demoArtifact("DemoMultiToken");
    const deployed = await transact(client, {
      from: at(accounts, 0),
      data: encodeDeployData({
        abi: DemoMultiToken.abi,
        bytecode: DemoMultiToken.bytecode,
        args: [accounts[0], "ipfs://multi/{id}"],
      }),
      gasPrice,
    });
    const multi = deployed.contractAddress as Hex;
    const multiCall = (functionName: "mintBatch" | "safeBatchTransferFrom", args: unknown[]) =>
      encodeFunctionData({ abi: DemoMultiToken.abi, functionName, args } as never);
    const [owner, holder, first, second] = [
      at(accounts, 0),
      at(accounts, 1),
      at(accounts, 2),
      at(accounts, 3),
    ];
    const minted = Array.from({ length: 100 }, (_, i) => 500n + BigInt(i));
    await transact(client, {
      from: owner,
      to: multi,
      data: multiCall("mintBatch", [holder, minted, minted.map((id) => id * 3n), "0x"]),
      gasPrice,
    });
    const batch = (to: Hex, ids: bigint[]) => ({
      from: holder,
      to: multi,
      data: multiCall("safeBatchTransferFrom", [holder, to, ids, ids.map((id) => id - 400n), "0x"]),
      gasPrice,
      // anvil_reorg would estimate a transaction without gas on the chain before the reorganization.
      gas: toHex(8_000_000),
    });
    const orphaned = minted.slice(0, 80);
    await transact(client, batch(first, orphaned));
    const heads = () =>
      test.db.query<{ block_number: number; ids: string[]; amounts: string[] }>(
        `SELECT h.block_number, h.token_ids::text[] AS ids, h.amounts::text[] AS amounts
         FROM token_transfer_heads h
         JOIN token_transfers t ON t.block_number = h.block_number AND t.log_index = h.log_index
         WHERE t.token_address = $1 ORDER BY h.block_number`,
        [Buffer.from(multi.slice(2), "hex")],
      );
    const headOf = (ids: bigint[], amount: (id: bigint) => bigint) => ({
      ids: ids.slice(0, 64).map(String),
      amounts: ids.slice(0, 64).map((id) => String(amount(id))),
    });
    await expectCanonical();
    const before = await heads();
    expect(before.map(({ ids, amounts }) => ({ ids, amounts }))).toEqual([
      headOf(minted, (id) => id * 3n),
      headOf(orphaned, (id) => id - 400n),
    ]);

    // The batch's block is replaced by one whose batch sends ids partly the same, reversed, to someone else: a
    // head left over or kept from the orphaned batch shows, and so would balances the orphaned batch moved.
    const replacing = minted.slice(30).reverse();
    await client.request("anvil_reorg", [1, [[batch(second, replacing), 0]]]);
    await expectCanonical();
    const after = await heads();
    expect(after.map(({ ids, amounts }) => ({ ids, amounts }))).toEqual([
      headOf(minted, (id) => id * 3n),
      headOf(replacing, (id) => id - 400n),
    ]);
    expect(after[1]?.block_number).toBe(before[1]?.block_number);
    const head = BigInt(await client.request<Hex>("eth_blockNumber"));
    const multiBalances = await tokenBalanceMismatches(test.db, client, head, { tokens: [multi] });
    expect(multiBalances.mismatches).toEqual([]);
    // The holder's 100 minted ids and the 70 the new recipient holds; the orphaned batch's recipient holds none.
    expect(multiBalances.compared).toBe(170);
    const chain = await chainMismatches(test.db, client, head);
    expect(chain.mismatches).toEqual([]);
  });

  it("drops blocks when the node's chain gets shorter: supplies read and contracts created in them", async () => {
    await caughtUp();
    // An address seen first as a plain recipient, where the dropped blocks then create a contract.
    const deployer = at(accounts, 6);
    const nonce = await client.request<Hex>("eth_getTransactionCount", [deployer, "latest"]);
    const future = getContractAddress({ from: deployer, nonce: BigInt(nonce) });
    await transact(client, { from: at(accounts, 1), to: future, value: "0x1", gasPrice });
    const before = BigInt(await client.request<string>("eth_blockNumber"));
    // A mint, whose block the token's supply is read at, and the creation: both dropped.
    await transact(client, {
      from: at(accounts, 0),
      to: token,
      data: tokenCall("mint", [accounts[3], 5n]),
      gasPrice,
    });
    const created = await transact(client, { from: deployer, data: returnsFortyTwo, gasPrice });
    expect(created.contractAddress?.toLowerCase()).toBe(future.toLowerCase());
    await transact(client, { from: at(accounts, 2), to: accounts[3], value: "0x1", gasPrice });
    await caughtUp();
    await client.request("anvil_rollback", [3]);
    await waitFor(async () => (await readCheckpoint(test.db)) === before, "the rollback to be followed");
    // A call with input to the address, which holds no code on the node's chain.
    await transact(client, { from: at(accounts, 2), to: future, data: "0x12345678", gasPrice });
    await expectCanonical();
    const [address] = await test.db.query<{ is_contract: boolean }>(
      "SELECT is_contract FROM addresses WHERE hash = $1",
      [Buffer.from(future.slice(2), "hex")],
    );
    expect(address).toEqual({ is_contract: false });
  });

  it("drops the address a failed inner creation aimed at, seen only as its constructor's caller", async () => {
    await caughtUp();
    // Init code: CALL(gas, 0xbeef, 0, 0, 0, 0, 0), then REVERT(0, 0).
    const initCode = "6000600060006000600061beef5af15060006000fd";
    // Runtime code: the init code at memory 11..32, CREATE(0, 11, 21), STOP.
    const factory = "0x00000000000000000000000000000000000fac70";
    await client.request("anvil_setCode", [factory, `0x74${initCode}6000526015600b6000f05000`]);
    await transact(client, { from: at(accounts, 1), to: factory, value: "0x1", gasPrice });
    await caughtUp();
    const before = BigInt(await client.request<string>("eth_blockNumber"));
    await transact(client, { from: at(accounts, 1), to: factory, gasPrice, gas: "0x30000" });
    await caughtUp();
    const aimedAt = getContractAddress({ from: factory, nonce: 1n }).toLowerCase();
    const [seen] = await test.db.query<{ first_seen_block: string }>(
      "SELECT first_seen_block::text FROM addresses WHERE hash = $1",
      [Buffer.from(aimedAt.slice(2), "hex")],
    );
    expect(seen).toEqual({ first_seen_block: String(before + 1n) });
    await client.request("anvil_rollback", [1]);
    await waitFor(async () => (await readCheckpoint(test.db)) === before, "the rollback to be followed");
    await transact(client, { from: at(accounts, 2), to: accounts[3], value: "0x1", gasPrice });
    await expectCanonical();
  });
});

describe.each(databaseKinds)("the node moving again during a reorganization, on %s", (kind) => {
  const started: { anvil: Anvil; proxy?: FaultProxy; indexed?: FollowedNode }[] = [];
  afterAll(async () => {
    for (const { anvil, proxy, indexed } of started) {
      await indexed?.drop();
      await proxy?.close();
      await anvil.stop();
    }
  });

  /**
   * Follows `anvil` through a proxy until the indexer holds its head, then runs `reorganize`; the proxy runs
   * `moveAgain` just before the first request `when` matches after that. The indexer must end on the node's
   * chain, equal to a fresh index of it.
   */
  async function expectEndsOnTheNodesChain(
    anvil: Anvil,
    {
      when,
      reorganize,
      moveAgain,
      client,
      rangeSize,
    }: {
      when: (calls: JsonRpcCall[]) => boolean;
      reorganize: () => Promise<unknown>;
      moveAgain: () => Promise<unknown>;
      client?: Omit<RpcClientParameters, "url">;
      rangeSize?: number;
    },
  ) {
    const run: (typeof started)[number] = { anvil };
    started.push(run);
    const node = createRpcClient({ url: anvil.rpcUrl });
    let armed = false;
    let fired = false;
    run.proxy = await startFaultProxy({
      target: anvil.rpcUrl,
      faults: [],
      rate: 0,
      beforeForward: async (calls) => {
        if (!armed || !when(calls)) return;
        armed = false;
        await moveAgain();
        fired = true;
      },
    });
    run.indexed = await followNode(kind, createRpcClient({ ...client, url: run.proxy.url }), {
      pollIntervalMs: 20,
      rangeSize,
    });
    const { test, running } = run.indexed;
    await untilIndexedHead(node, test.db, { failOn: running });
    armed = true;
    await reorganize();
    await until("the node to move again", async () => fired, { failOn: running });
    await untilIndexedHead(node, test.db, { failOn: running });
    expect(await fingerprint(test.db)).toEqual(await freshIndexFingerprint(node, kind));
  }

  it("searches for the common ancestor again when the node leaves it", async () => {
    const anvil = await startAnvil();
    const node = createRpcClient({ url: anvil.rpcUrl });
    const account = at(await node.request<Hex[]>("eth_accounts"), 0);
    await node.request("anvil_mine", ["0x1e"]);
    const reorg = (depth: number, value: Hex) =>
      node.request("anvil_reorg", [depth, [[{ from: account, to: account, value, gasPrice }, 0]]]);
    await expectEndsOnTheNodesChain(anvil, {
      // The first reorganization's fetch of its blocks: the node moves first to a fork that leaves the
      // chain below the ancestor that reorganization found.
      when: (calls) => calls.some((call) => call.method === "eth_getBlockByNumber" && call.params?.[1]),
      reorganize: () => reorg(2, "0x1"),
      moveAgain: () => reorg(5, "0x2"),
      rangeSize: 10,
    });
  });

  it("fetches again the blocks whose state it could not read when the node leaves them", async () => {
    const anvil = await startAnvil();
    const node = createRpcClient({ url: anvil.rpcUrl });
    const [owner, holder] = await node.request<Hex[]>("eth_accounts");
    const DemoToken = await demoArtifact("DemoToken");
    const deployed = await transact(node, {
      from: owner as Hex,
      data: encodeDeployData({ abi: DemoToken.abi, bytecode: DemoToken.bytecode, args: [owner] }),
      gasPrice,
    });
    const mint = {
      from: owner as Hex,
      to: deployed.contractAddress as Hex,
      data: encodeFunctionData({ abi: DemoToken.abi, functionName: "mint", args: [holder, 5n] }),
      gasPrice,
    };
    // Two mints: the token is kept by the reorganization below, which orphans the second, whose block its
    // supply was read at.
    await transact(node, mint);
    await transact(node, mint);
    const reorg = (value: Hex) =>
      node.request("anvil_reorg", [1, [[{ from: owner, to: owner, value, gasPrice }, 0]]]);
    await expectEndsOnTheNodesChain(anvil, {
      // The reorganization's read of that supply, made by the hash of the replacing range's last block: the
      // node replaces that block first.
      when: (calls) => calls.some((call) => call.method === "eth_call"),
      reorganize: () => reorg("0x1"),
      moveAgain: () => reorg("0x3"),
      client: { retries: 1, retryDelayMs: 10 },
    });
  });
});

describe("a reorganization deeper than the configured depth", () => {
  it("stops the indexer with a clear error instead of guessing", async () => {
    const anvil = await startAnvil();
    const client = createRpcClient({ url: anvil.rpcUrl });
    let indexed: FollowedNode | undefined;
    try {
      await client.request("anvil_mine", ["0x14"]);
      indexed = await followNode("pglite", client, { pollIntervalMs: 20, maxReorgDepth: 3 });
      const { indexer, running, test } = indexed;
      await waitFor(async () => indexer.status().following, "catch-up");
      const [account] = await client.request<Hex[]>("eth_accounts");
      await client.request("anvil_reorg", [6, [[{ from: account, to: account, value: "0x1", gasPrice }, 0]]]);
      await expect(running).rejects.toThrow(ReorgTooDeepError);
      await expect(running).rejects.toThrow("more than 3 blocks below block 20");
      expect(await readCheckpoint(test.db)).toBe(20n);
    } finally {
      // The run is over, ended by the error above: only its database is left to drop.
      await indexed?.test.drop();
      await anvil.stop();
    }
  });
});
