import { type Address, encodeFunctionData, getAddress, zeroAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { byteaParam } from "../src/db/table-rows.ts";
import { type Anvil, startAnvil } from "../src/demo/anvil.ts";
import { artifactOf, compileSources } from "../src/demo/compile.ts";
import { createRpcClient } from "../src/rpc/client.ts";
import { databaseKinds } from "./support/databases.ts";
import { at, only } from "./support/elements.ts";
import { type IndexedChain, indexIntoNewDatabase } from "./support/indexed-chain.ts";
import { transact } from "./support/transact.ts";

// Two NFT transfer events of mainnet contracts that are not ERC-721's indexed Transfer: CryptoKitties
// indexes none of Transfer's parameters, and ERC-404 variants pair ERC20Transfer with ERC721Transfer.
const source = `
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract Kitties {
  event Transfer(address from, address to, uint256 tokenId);
  function move(address from, address to, uint256 id) external { emit Transfer(from, to, id); }
}
contract Hybrid {
  event ERC20Transfer(address indexed from, address indexed to, uint256 amount);
  event ERC721Transfer(address indexed from, address indexed to, uint256 indexed id);
  function move(address from, address to, uint256 id) external {
    emit ERC20Transfer(from, to, 1e18);
    emit ERC721Transfer(from, to, id);
  }
}`;

type TransferItem = { from: { hash: string }; to: { hash: string }; total: { token_id?: string | null } };

describe.each(databaseKinds)(
  "NFT transfers from CryptoKitties and ERC-404's ERC721Transfer on %s",
  (kind) => {
    let anvil: Anvil;
    let indexed: IndexedChain;
    const tokens: Record<"Kitties" | "Hybrid", Address> = { Kitties: zeroAddress, Hybrid: zeroAddress };
    const alice = getAddress("0xa11ce00000000000000000000000000000000a11");
    const bob = getAddress("0xb0b0000000000000000000000000000000000b0b");
    const id = { Kitties: 7n, Hybrid: 3n };

    beforeAll(async () => {
      const compiled = await compileSources({ "Forms.sol": source });
      anvil = await startAnvil();
      const client = createRpcClient({ url: anvil.rpcUrl });
      const account = at(await client.request<Address[]>("eth_accounts"), 0, "dev accounts");
      for (const name of ["Kitties", "Hybrid"] as const) {
        const { abi, bytecode } = artifactOf(compiled, name);
        tokens[name] = (await transact(client, { from: account, data: bytecode })).contractAddress as Address;
        // A mint to alice, then alice's id to bob.
        for (const [from, to] of [
          [zeroAddress, alice],
          [alice, bob],
        ]) {
          const data = encodeFunctionData({ abi, functionName: "move", args: [from, to, id[name]] } as never);
          await transact(client, { from: account, to: tokens[name], data });
        }
      }
      indexed = await indexIntoNewDatabase(kind, client);
    }, 120_000);
    afterAll(async () => {
      await indexed?.close();
      await anvil?.stop();
    });

    it.each([
      ["Kitties", "ERC-721"],
      ["Hybrid", "ERC-404"],
    ] as const)("stores %s as %s, with its id's instance, transfers and holder", async (name, type) => {
      const token = tokens[name];
      const { db } = indexed.test;
      const [stored] = await db.query<{ type: string }>("SELECT type FROM tokens WHERE address = $1", [
        byteaParam(token),
      ]);
      expect(stored?.type).toBe(type);
      const instances = await db.query<{ id: string }>(
        "SELECT token_id::text AS id FROM token_instances WHERE token_address = $1",
        [byteaParam(token)],
      );
      expect(instances).toEqual([{ id: id[name].toString() }]);
      const { items } = (
        await indexed.app.inject(`/api/v2/addresses/${alice}/token-transfers?token=${token}`)
      ).json();
      const moves = items.flatMap((item: TransferItem) =>
        item.total.token_id == null ? [] : [[item.from.hash, item.to.hash, item.total.token_id]],
      );
      expect(moves).toEqual([
        [alice, bob, id[name].toString()],
        [zeroAddress, alice, id[name].toString()],
      ]);
      const holders = (
        await indexed.app.inject(`/api/v2/tokens/${token}/instances/${id[name]}/holders`)
      ).json();
      expect(only(holders.items)).toMatchObject({ address: { hash: bob }, value: "1" });
    });
  },
);
