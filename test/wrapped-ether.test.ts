import type { FastifyInstance } from "fastify";
import {
  type Address,
  createPublicClient,
  encodeFunctionData,
  erc20Abi,
  getAddress,
  type Hex,
  http,
  type PublicClient,
  parseAbi,
  parseEventLogs,
  zeroAddress,
} from "viem";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createApiServer } from "../src/api/server.ts";
import type { Queryable } from "../src/db/client.ts";
import { byteaParam } from "../src/db/table-rows.ts";
import { type Anvil, startAnvil } from "../src/demo/anvil.ts";
import { artifactOf, compileSources } from "../src/demo/compile.ts";
import { createRpcClient, type RpcClient } from "../src/rpc/client.ts";
import { chainMismatches } from "./support/compare-with-node.ts";
import { databaseKinds, type TestDatabase } from "./support/databases.ts";
import { at } from "./support/elements.ts";
import { indexNode } from "./support/index-node.ts";
import { transact } from "./support/transact.ts";

type Holder = { address: { hash: string }; value: string };
type Transfer = {
  transaction_hash: string;
  from: { hash: string };
  to: { hash: string };
  total: { value: string };
  type: string;
};

/**
 * What the check against the node finds once `change` is made to the database, in a transaction rolled back
 * after it.
 */
async function mismatchesAfter(
  db: TestDatabase["db"],
  client: RpcClient,
  head: bigint,
  change: (tx: Queryable) => Promise<unknown>,
) {
  const rolledBack = new Error("rolled back");
  let mismatches: Awaited<ReturnType<typeof chainMismatches>>["mismatches"] = [];
  const checked = db.transaction(async (tx) => {
    await change(tx);
    ({ mismatches } = await chainMismatches(tx, client, head));
    throw rolledBack;
  });
  await expect(checked).rejects.toBe(rolledBack);
  return mismatches;
}

/** Stores a wrap (a `Deposit` of `amount` to `to`) as the transform makes it, with its token's type stamped. */
function storeWrap(
  tx: Queryable,
  wrap: { block: bigint; logIndex: number; token: Address; to: Address; amount: bigint; tokenType: string },
) {
  return tx.query(
    `INSERT INTO token_transfers (block_number, log_index, transaction_index, token_address, from_address,
       to_address, token_type, token_ids, amounts, token_contract_type, item_count)
     VALUES ($1, $2, 0, $3, $4, $5, 'ERC-20', '{}', ARRAY[$6]::numeric[], $7, 1)`,
    [
      wrap.block.toString(),
      wrap.logIndex,
      byteaParam(wrap.token),
      byteaParam(zeroAddress),
      byteaParam(wrap.to),
      wrap.amount.toString(),
      wrap.tokenType,
    ],
  );
}

// WETH9 wraps with Deposit and unwraps with Withdrawal, never with Transfer: its balances are right only
// when those count as mints and burns, as Blockscout counts them.
describe.each(databaseKinds)("the demo chain's WETH on %s", (kind) => {
  const { contracts, examples } = JSON.parse(inject("demoScenario"));
  const weth = getAddress(contracts.weth);
  const node: PublicClient = createPublicClient({ transport: http(inject("demoRpcUrl")) });
  let test: TestDatabase;
  let app: FastifyInstance;
  let head: bigint;

  beforeAll(async () => {
    const indexed = await indexNode(kind, inject("demoRpcUrl"));
    test = indexed.test;
    head = indexed.head as bigint;
    app = await createApiServer({ db: test.db });
  });
  afterAll(async () => {
    await app?.close();
    await test?.drop();
  });

  /** Every page of a list. */
  const allItems = async <T>(path: string): Promise<T[]> => {
    const items: T[] = [];
    let params: Record<string, unknown> | null = {};
    while (params) {
      const query = new URLSearchParams(Object.entries(params).map(([key, value]) => [key, String(value)]));
      const response = await app.inject(`${path}${path.includes("?") ? "&" : "?"}${query}`);
      expect(response.statusCode, path).toBe(200);
      const page = response.json();
      items.push(...page.items);
      params = page.next_page_params;
    }
    return items;
  };

  it("serves each holder's balance as the node's balanceOf at the head, and counts the holders", async () => {
    const logs = await node.getLogs({ address: weth, fromBlock: 0n, toBlock: head });
    const events = parseEventLogs({
      abi: parseAbi([
        "event Transfer(address indexed src, address indexed dst, uint256 wad)",
        "event Deposit(address indexed dst, uint256 wad)",
        "event Withdrawal(address indexed src, uint256 wad)",
      ]),
      logs,
    });
    const parties = new Set<Address>(
      events.flatMap(({ args }) => Object.values(args).filter((value) => typeof value === "string")),
    );
    const expected: Record<string, string> = {};
    for (const party of parties) {
      const balance = await node.readContract({
        address: weth,
        abi: erc20Abi,
        functionName: "balanceOf",
        args: [party],
        blockNumber: head,
      });
      if (balance > 0n) expected[getAddress(party)] = balance.toString();
    }
    // A depositor that unwrapped part of what it wrapped still holds the rest.
    expect(Object.keys(expected).length).toBeGreaterThan(0);
    const holders = await allItems<Holder>(`/api/v2/tokens/${weth}/holders`);
    expect(Object.fromEntries(holders.map((holder) => [holder.address.hash, holder.value]))).toEqual(
      expected,
    );
    // The token as a holder's token list shows it (holders_count a number there, as in Blockscout).
    const [first] = Object.keys(expected);
    const listed = await allItems<{ token: Record<string, unknown> }>(`/api/v2/addresses/${first}/tokens`);
    const token = listed.find((item) => item.token.address_hash === weth)?.token;
    expect(token).toMatchObject({ type: "ERC-20", holders_count: Object.keys(expected).length });
    const totalSupply = await node.readContract({
      address: weth,
      abi: erc20Abi,
      functionName: "totalSupply",
      blockNumber: head,
    });
    expect(token?.total_supply).toBe(totalSupply.toString());
  });

  it("shows a wrap as a mint from the zero address and an unwrap as a burn to it", async () => {
    const [wrap, unwrap] = await Promise.all(
      [examples.wrap, examples.unwrap].map((hash: Hex) => node.getTransaction({ hash })),
    );
    const transfers = await allItems<Transfer>(
      `/api/v2/addresses/${wrap?.from}/token-transfers?token=${weth}`,
    );
    const wrapped = transfers.find((transfer) => transfer.transaction_hash === wrap?.hash);
    expect(wrapped).toMatchObject({
      from: { hash: zeroAddress },
      to: { hash: getAddress(wrap?.from as Address) },
      total: { value: wrap?.value.toString() },
      type: "token_minting",
    });
    const unwrapped = transfers.find((transfer) => transfer.transaction_hash === unwrap?.hash);
    expect(unwrapped).toMatchObject({
      from: { hash: getAddress(unwrap?.from as Address) },
      to: { hash: zeroAddress },
      type: "token_burning",
    });
  });

  it("is found by the check against the node when a wrap is lost", async () => {
    const receipt = await node.getTransactionReceipt({ hash: examples.wrap });
    const log = at(
      receipt.logs.filter((entry) => getAddress(entry.address) === weth),
      0,
      "the wrap's Deposit",
    );
    const client = createRpcClient({ url: inject("demoRpcUrl") });
    const mismatches = await mismatchesAfter(test.db, client, head, (tx) =>
      tx.query("DELETE FROM token_transfers WHERE block_number = $1 AND log_index = $2", [
        log.blockNumber.toString(),
        log.logIndex,
      ]),
    );
    // WETH is an ERC-20 in every range, so no range could have left its wrap out.
    expect(mismatches).toEqual([
      {
        where: `token transfer ${log.blockNumber}:${log.logIndex}`,
        field: "row",
        stored: null,
        expected: "answered",
      },
    ]);
  });
});

// Wrapping moves balances only of ERC-20 tokens: an NFT contract's Deposit, in a range after its type is
// stored, neither moves a balance nor makes it an ERC-404.
const collectionSource = `
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract WrappingCollection {
  event Transfer(address indexed from, address indexed to, uint256 indexed id);
  event Deposit(address indexed dst, uint256 wad);
  function mint(address to, uint256 id) external { emit Transfer(address(0), to, id); }
  function deposit(address dst, uint256 wad) external { emit Deposit(dst, wad); }
}`;

describe.each(databaseKinds)("an ERC-721 contract that emits Deposit on %s", (kind) => {
  let anvil: Anvil;
  let test: TestDatabase;
  let client: RpcClient;
  let collection: Address;
  let deposit: { block: bigint; logIndex: number };
  const alice = getAddress("0xa11ce00000000000000000000000000000000a11");

  beforeAll(async () => {
    const { abi, bytecode } = artifactOf(
      await compileSources({ "WrappingCollection.sol": collectionSource }),
      "WrappingCollection",
    );
    anvil = await startAnvil();
    client = createRpcClient({ url: anvil.rpcUrl });
    const account = at(await client.request<Address[]>("eth_accounts"), 0, "dev accounts");
    collection = (await transact(client, { from: account, data: bytecode })).contractAddress as Address;
    for (const [functionName, args] of [
      ["mint", [alice, 7n]],
      ["deposit", [alice, 5n]],
    ] as const) {
      const data = encodeFunctionData({ abi, functionName, args } as never);
      const receipt = await transact(client, { from: account, to: collection, data });
      const log = at(receipt.logs, 0, "the call's event");
      if (functionName === "deposit")
        deposit = { block: BigInt(receipt.blockNumber), logIndex: Number(log.logIndex) };
    }
    // One block per range: the Deposit's range finds the collection stored as ERC-721.
    test = (await indexNode(kind, client, { rangeSize: 1 })).test;
  }, 120_000);
  afterAll(async () => {
    await test?.drop();
    await anvil?.stop();
  });

  it("keeps its type, and its transfers and balances are the NFT's alone", async () => {
    const token = byteaParam(collection);
    expect(
      await test.db.query("SELECT type, holders_count::int FROM tokens WHERE address = $1", [token]),
    ).toEqual([{ type: "ERC-721", holders_count: 1 }]);
    expect(
      await test.db.query(
        `SELECT token_type, token_ids::text[] AS ids, (SELECT count(*)::int FROM address_token_transfers a
           WHERE a.block_number = t.block_number AND a.log_index = t.log_index) AS links
         FROM token_transfers t WHERE token_address = $1`,
        [token],
      ),
    ).toEqual([{ token_type: "ERC-721", ids: ["7"], links: 2 }]);
    expect(
      await test.db.query(
        `SELECT token_id::text AS id, '0x' || encode(holder, 'hex') AS holder, value::text, token_contract_type AS type
         FROM token_balances WHERE token_address = $1`,
        [token],
      ),
    ).toEqual([{ id: "7", holder: alice.toLowerCase(), value: "1", type: "ERC-721" }]);
  });

  it("is found by the check against the node when its Deposit is stored as a transfer", async () => {
    const head = BigInt(await client.request<Hex>("eth_blockNumber"));
    // The Deposit's block has no ERC-721 transfer, so the check's transform keeps the wrap, and only the
    // token's type in that block tells that it must not be stored.
    expect((await chainMismatches(test.db, client, head)).mismatches).toEqual([]);
    const mismatches = await mismatchesAfter(test.db, client, head, (tx) =>
      storeWrap(tx, { ...deposit, token: collection, to: alice, amount: 5n, tokenType: "ERC-721" }),
    );
    // The row is the transform's own, so the rule is the only difference.
    expect(mismatches).toEqual([
      {
        where: `token transfer ${deposit.block}:${deposit.logIndex}`,
        field: "wrapping",
        stored: "ERC-721",
        expected: "ERC-20",
      },
    ]);
  });
});

// An ERC-20 that wraps, then emits an ERC-721 transfer and becomes an ERC-404: its wrap before the promotion
// is a transfer, its wrap after it is not (attachTokens), whatever blocks the check reads together. Another is
// promoted twice (to ERC-404, then ERC-1155), which its token row records only the last of; a third wraps before
// its first Transfer.
const promotedSource = `
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract PromotedWrapper {
  bytes32 constant TRANSFER = keccak256("Transfer(address,address,uint256)");
  bytes32 constant TRANSFER_SINGLE = keccak256("TransferSingle(address,address,address,uint256,uint256)");
  event Deposit(address indexed dst, uint256 wad);
  function mintFungible(address to, uint256 amount) external {
    bytes32 topic = TRANSFER;
    assembly { mstore(0, amount) log3(0, 32, topic, 0, to) }
  }
  function mintItem(address to, uint256 id) external {
    bytes32 topic = TRANSFER;
    assembly { log4(0, 0, topic, 0, to, id) }
  }
  function mintSingle(address to, uint256 id, uint256 amount) external {
    bytes32 topic = TRANSFER_SINGLE;
    assembly { mstore(0, id) mstore(32, amount) log4(0, 64, topic, caller(), 0, to) }
  }
  function deposit(address dst, uint256 wad) external { emit Deposit(dst, wad); }
}`;

describe.each(databaseKinds)("an ERC-20 that wraps and turns out an ERC-404 on %s", (kind) => {
  let anvil: Anvil;
  let client: RpcClient;
  let test: TestDatabase;
  let head: bigint;
  /** Each token's calls, in order, with the block and log of the event each emitted. */
  const calls = new Map<Address, { name: string; block: bigint; logIndex: number }[]>();
  const alice = getAddress("0xa11ce00000000000000000000000000000000a11");
  const once = () => at([...calls.keys()], 0, "the token promoted once");
  const twice = () => at([...calls.keys()], 1, "the token promoted twice");
  const wrapFirst = () => at([...calls.keys()], 2, "the token that wraps before its first Transfer");

  beforeAll(async () => {
    const { abi, bytecode } = artifactOf(
      await compileSources({ "PromotedWrapper.sol": promotedSource }),
      "PromotedWrapper",
    );
    anvil = await startAnvil();
    client = createRpcClient({ url: anvil.rpcUrl });
    const account = at(await client.request<Address[]>("eth_accounts"), 0, "dev accounts");
    const plans = [
      [
        ["mintFungible", [alice, 100n]],
        ["deposit", [alice, 5n]],
        ["mintItem", [alice, 7n]],
        ["deposit", [alice, 3n]],
      ],
      [
        ["mintFungible", [alice, 100n]],
        ["deposit", [alice, 5n]],
        ["mintItem", [alice, 7n]],
        ["mintSingle", [alice, 8n, 2n]],
      ],
      [
        ["deposit", [alice, 5n]],
        ["mintFungible", [alice, 100n]],
        ["mintItem", [alice, 7n]],
      ],
    ] as const;
    for (const plan of plans) {
      const token = (await transact(client, { from: account, data: bytecode })).contractAddress as Address;
      const made: { name: string; block: bigint; logIndex: number }[] = [];
      for (const [functionName, args] of plan) {
        const data = encodeFunctionData({ abi, functionName, args } as never);
        const receipt = await transact(client, { from: account, to: token, data });
        const log = at(receipt.logs, 0, "the call's event");
        made.push({ name: functionName, block: BigInt(receipt.blockNumber), logIndex: Number(log.logIndex) });
      }
      calls.set(token, made);
    }
    // One block per range: each Deposit's range finds the token's type as stored before it.
    const indexed = await indexNode(kind, client, { rangeSize: 1 });
    test = indexed.test;
    head = indexed.head as bigint;
  }, 120_000);
  afterAll(async () => {
    await test?.drop();
    await anvil?.stop();
  });

  const storedTransfers = (token: Address) =>
    test.db.query(
      `SELECT block_number::text AS block, token_type FROM token_transfers WHERE token_address = $1
       ORDER BY block_number`,
      [byteaParam(token)],
    );
  const tokenRow = (token: Address) =>
    test.db.query("SELECT type, type_before_promotion FROM tokens WHERE address = $1", [byteaParam(token)]);

  it("keeps the wraps made while each was an ERC-20, and the check finds the chain as the node has it", async () => {
    const [mint, wrap, item] = calls.get(once()) ?? [];
    expect(await storedTransfers(once())).toEqual([
      { block: String(mint?.block), token_type: "ERC-20" },
      { block: String(wrap?.block), token_type: "ERC-20" },
      { block: String(item?.block), token_type: "ERC-721" },
    ]);
    expect(await tokenRow(once())).toEqual([{ type: "ERC-404", type_before_promotion: "ERC-20" }]);
    const [, twiceWrap, , single] = calls.get(twice()) ?? [];
    expect(await storedTransfers(twice())).toContainEqual({
      block: String(twiceWrap?.block),
      token_type: "ERC-20",
    });
    expect(await storedTransfers(twice())).toContainEqual({
      block: String(single?.block),
      token_type: "ERC-1155",
    });
    expect(await tokenRow(twice())).toEqual([{ type: "ERC-1155", type_before_promotion: "ERC-404" }]);
    // The whole chain in one window: a token's later NFT transfers do not make its earlier wrap one to leave
    // out, and the wrap of the token promoted twice is taken as right, its row telling only ERC-404 then.
    expect((await chainMismatches(test.db, client, head)).mismatches).toEqual([]);
  });

  it("stores the same transfers, types and balances when one range holds the whole chain", async () => {
    const whole = (await indexNode(kind, client, { rangeSize: 1_000 })).test;
    try {
      const rows = (db: TestDatabase["db"]) =>
        db.query(
          `SELECT 'transfer' AS kind, encode(token_address, 'hex') AS token,
             concat_ws(':', block_number, log_index, token_type, token_ids, amounts) AS detail,
             token_contract_type AS type
           FROM token_transfers
           UNION ALL SELECT 'token', encode(address, 'hex'),
             concat_ws(':', first_seen_block, promoted_at_block, type_before_promotion, holders_count), type
           FROM tokens
           UNION ALL SELECT 'balance', encode(token_address, 'hex'), concat_ws(':', token_id, encode(holder, 'hex'), value),
             token_contract_type
           FROM token_balances
           ORDER BY 1, 2, 3, 4`,
        );
      const wrapsStored = await test.db.query(
        "SELECT count(*)::int AS wraps FROM token_transfers WHERE block_number = ANY($1::int8[])",
        [
          [...calls.values()]
            .flat()
            .filter((call) => call.name === "deposit")
            .map((call) => call.block.toString()),
        ],
      );
      // The three tokens' wraps before their first NFT transfer, not the one after it.
      expect(wrapsStored).toEqual([{ wraps: 3 }]);
      expect(await tokenRow(wrapFirst())).toEqual([{ type: "ERC-404", type_before_promotion: "ERC-20" }]);
      expect(await rows(whole.db)).toEqual(await rows(test.db));
    } finally {
      await whole.drop();
    }
  });

  it("is found by the check against the node when its wrap after the promotion is stored", async () => {
    const after = at(calls.get(once()) ?? [], 3, "the Deposit after the promotion");
    const mismatches = await mismatchesAfter(test.db, client, head, (tx) =>
      storeWrap(tx, { ...after, token: once(), to: alice, amount: 3n, tokenType: "ERC-404" }),
    );
    expect(mismatches).toEqual([
      {
        where: `token transfer ${after.block}:${after.logIndex}`,
        field: "wrapping",
        stored: "ERC-404",
        expected: "ERC-20",
      },
    ]);
  });
});
