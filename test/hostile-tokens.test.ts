import { type Address, encodeFunctionData, maxUint256, zeroAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate } from "../src/db/migrate.ts";
import { byteaParam } from "../src/db/table-rows.ts";
import { type Anvil, startAnvil } from "../src/demo/anvil.ts";
import { artifactOf, compileSources } from "../src/demo/compile.ts";
import { createRpcClient, type RpcClient } from "../src/rpc/client.ts";
import { exactCursor } from "./conformance/demo-chain.ts";
import { databaseKinds } from "./support/databases.ts";
import { at, only } from "./support/elements.ts";
import { type IndexedChain, indexIntoNewDatabase } from "./support/indexed-chain.ts";
import { transact } from "./support/transact.ts";

// Any contract may emit the token events, with any amounts: spam tokens on mainnet do. A balance is the
// sum of its transfers, so it can pass what any uint256 (and a numeric(78,0)) holds, on either side. And
// any contract may name itself at any length.
const source = `
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract Fungible {
  event Transfer(address indexed from, address indexed to, uint256 value);
  // "a" and 500 euro signs (3 bytes each): 1,501 bytes, more than one call's answer inside CallEach (1,024),
  // where the 255th byte falls inside a character.
  function name() external pure returns (string memory) { return repeated("a", hex"e282ac", 500); }
  // "S" and 75 emoji (4 bytes each): 301 bytes, cut inside the 64th emoji.
  function symbol() external pure returns (string memory) { return repeated("S", hex"f09f9880", 75); }
  function repeated(bytes memory first, bytes memory unit, uint256 times) internal pure returns (string memory) {
    bytes memory text = first;
    for (uint256 i = 0; i < times; i++) text = bytes.concat(text, unit);
    return string(text);
  }
  function spam(address from, address firstTo, uint256 receivers, uint256 value, uint256 times) external {
    for (uint256 r = 0; r < receivers; r++) {
      address to = address(uint160(firstTo) + uint160(r));
      for (uint256 i = 0; i < times; i++) emit Transfer(from, to, value);
    }
  }
}
contract Collectible {
  event Transfer(address indexed from, address indexed to, uint256 indexed tokenId);
  function spam(address from, address to, uint256 id) external { emit Transfer(from, to, id); }
}
contract Multi {
  event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value);
  function spam(address from, address to, uint256 id, uint256 value, uint256 times) external {
    for (uint256 i = 0; i < times; i++) emit TransferSingle(msg.sender, from, to, id, value);
  }
}`;

const times = 10n;
const sent = maxUint256 * times;
/** More than a page of holders, each with the same 79-digit balance. */
const receivers = 51;

describe.each(databaseKinds)("spam tokens (balances past 78 digits, overlong names) on %s", (kind) => {
  let anvil: Anvil;
  let client: RpcClient;
  let indexed: IndexedChain;
  let fungible: Address;
  let multi: Address;
  let collectible: Address;
  const sender = "0x5e4de55e4de55e4de55e4de55e4de55e4de55e4d";
  const receiver = "0x7ece1e7ece1e7ece1e7ece1e7ece1e7ece1e0000";
  const receiverNumber = (n: number) => `0x${(BigInt(receiver) + BigInt(n)).toString(16).padStart(40, "0")}`;

  beforeAll(async () => {
    const compiled = await compileSources({ "Spam.sol": source });
    anvil = await startAnvil();
    client = createRpcClient({ url: anvil.rpcUrl });
    const account = at(await client.request<Address[]>("eth_accounts"), 0, "dev accounts");
    const deploy = async (name: string) =>
      (await transact(client, { from: account, data: artifactOf(compiled, name).bytecode }))
        .contractAddress as Address;
    /** Calls `spam` of the contract `name` deployed at `to`. */
    const spam = (to: Address, name: string, args: unknown[]) =>
      transact(client, {
        from: account,
        to,
        data: encodeFunctionData({
          abi: artifactOf(compiled, name).abi,
          functionName: "spam",
          args,
        } as never),
      });
    fungible = await deploy("Fungible");
    multi = await deploy("Multi");
    collectible = await deploy("Collectible");
    await spam(fungible, "Fungible", [sender, receiver, receivers, maxUint256, times]);
    await spam(multi, "Multi", [sender, receiver, 7n, maxUint256, times]);
    // One ERC-721 id "minted" twice: two holders of one unit each.
    for (const to of [receiver, sender]) {
      await spam(collectible, "Collectible", [zeroAddress, to, 1n]);
    }
    indexed = await indexIntoNewDatabase(kind, client);
  }, 120_000);
  afterAll(async () => {
    await indexed?.close();
    await anvil?.stop();
  });

  it("indexes them and keeps every balance exact", async () => {
    const balances = await indexed.test.db.query<{ token: string; holder: string; value: string }>(
      `SELECT '0x' || encode(token_address, 'hex') AS token, '0x' || encode(holder, 'hex') AS holder,
         value::text AS value
       FROM token_balances`,
    );
    const expected = [
      { token: fungible, holder: sender, value: -sent * BigInt(receivers) },
      ...Array.from({ length: receivers }, (_, n) => ({
        token: fungible,
        holder: receiverNumber(n),
        value: sent,
      })),
      { token: multi, holder: sender, value: -sent },
      { token: multi, holder: receiver, value: sent },
      { token: collectible, holder: sender, value: 1n },
      { token: collectible, holder: receiver, value: 1n },
    ];
    expect(new Set(balances.map((row) => JSON.stringify(row)))).toEqual(
      new Set(
        expected.map(({ token, holder, value }) =>
          JSON.stringify({ token: token.toLowerCase(), holder, value: value.toString() }),
        ),
      ),
    );
  });

  it("cuts a long name and symbol to 255 bytes at a character's start, as Blockscout does, and so does the migration", async () => {
    const cutName = `a${"€".repeat(84)}`;
    const cutSymbol = `S${"😀".repeat(63)}`;
    const shown = async () => {
      const { items } = (await indexed.app.inject("/api/v2/token-transfers?type=ERC-20")).json();
      return at(items as { token: { name: string; symbol: string } }[], 0).token;
    };
    expect(new TextEncoder().encode(cutName)).toHaveLength(253);
    expect(new TextEncoder().encode(cutSymbol)).toHaveLength(253);
    expect(await shown()).toMatchObject({ name: cutName, symbol: cutSymbol });
    // A database that stored the whole answer before the cut.
    const migration = "030_bounded_token_names.sql";
    await indexed.test.db.query("UPDATE tokens SET name = $1, symbol = $2 WHERE address = $3", [
      `a${"€".repeat(200)}`,
      `S${"😀".repeat(75)}`,
      byteaParam(fungible),
    ]);
    await indexed.test.db.query("DELETE FROM schema_migrations WHERE name = $1", [migration]);
    expect((await migrate(indexed.test.db)).applied).toEqual([migration]);
    expect(await shown()).toMatchObject({ name: cutName, symbol: cutSymbol });
  });

  it("pages through holders whose balances pass 78 digits, cursors sent back exact or as doubles", async () => {
    for (const sendBack of [exactCursor, (text: string) => JSON.parse(text).next_page_params]) {
      const holders: string[] = [];
      let cursor: Record<string, unknown> | null = {};
      while (cursor !== null) {
        const query = new URLSearchParams(Object.entries(cursor).map(([key, value]) => [key, String(value)]));
        const response = await indexed.app.inject(`/api/v2/tokens/${fungible}/holders?${query}`);
        expect(response.statusCode, response.body).toBe(200);
        const page = response.json() as { items: { address: { hash: string }; value: string }[] };
        for (const item of page.items) {
          expect(item.value).toBe(sent.toString());
          holders.push(item.address.hash.toLowerCase());
        }
        expect(holders.length).toBeLessThanOrEqual(receivers);
        cursor = sendBack(response.body);
      }
      expect(new Set(holders)).toEqual(
        new Set(Array.from({ length: receivers }, (_, n) => receiverNumber(n))),
      );
    }
  });

  it("serves them: the receiver's balances, the id's holders and units", async () => {
    const { items } = (await indexed.app.inject(`/api/v2/addresses/${receiver}/tokens`)).json();
    expect(
      new Map(
        items.map((item: { token: { address_hash: string }; value: string }) => [
          item.token.address_hash.toLowerCase(),
          item.value,
        ]),
      ),
    ).toEqual(
      new Map([
        ...[fungible, multi].map((token): [string, string] => [token.toLowerCase(), sent.toString()]),
        [collectible.toLowerCase(), "1"],
      ]),
    );
    const id = (await indexed.app.inject(`/api/v2/tokens/${multi}/instances/7/holders`)).json();
    expect(only(id.items)).toMatchObject({ value: sent.toString() });
    const transfers = (await indexed.app.inject(`/api/v2/token-transfers?type=ERC-1155`)).json();
    expect(transfers.items).toHaveLength(Number(times));
    for (const item of transfers.items) expect(item.total.token_instance.is_unique).toBe(false);
  });

  it("calls an ERC-721 id held by two addresses not unique, on every endpoint that shows it", async () => {
    const token = collectible.toLowerCase();
    const collections = (await indexed.app.inject(`/api/v2/addresses/${receiver}/nft/collections`)).json();
    const collection = only(
      collections.items.filter(
        (item: { token: { address_hash: string } }) => item.token.address_hash.toLowerCase() === token,
      ),
    ) as { token_instances: { id: string; is_unique: boolean; owner: unknown }[] };
    expect(only(collection.token_instances)).toMatchObject({ id: "1", is_unique: false, owner: null });
    const transfers = (await indexed.app.inject(`/api/v2/token-transfers?type=ERC-721`)).json();
    expect(transfers.items).toHaveLength(2);
    for (const item of transfers.items) expect(item.total.token_instance.is_unique).toBe(false);
  });
});
