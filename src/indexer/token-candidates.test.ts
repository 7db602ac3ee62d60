import { type Address, encodeEventTopics, type Hex, pad, parseAbi, toHex, zeroAddress } from "viem";
import { describe, expect, it } from "vitest";
import type { RpcFullBlock, RpcReceipt } from "../rpc/types.ts";
import { tokenCandidatesOf, transferKey } from "./token-candidates.ts";

const weth = "0x00000000000000000000000000000000000000ee";
const collection = "0x00000000000000000000000000000000000000cc";
const alice = "0x00000000000000000000000000000000000000a1";
const bob = "0x00000000000000000000000000000000000000b0";
const abi = parseAbi([
  "event Transfer(address indexed from, address indexed to, uint256 value)",
  "event Deposit(address indexed dst, uint256 wad)",
  "event Withdrawal(address indexed src, uint256 wad)",
]);
const nftTransfer = parseAbi([
  "event Transfer(address indexed from, address indexed to, uint256 indexed id)",
]);

type Log = { address: Address; topics: ReturnType<typeof encodeEventTopics>; data: Hex };
const transfer = (token: Address, from: Address, to: Address, value: bigint): Log => ({
  address: token,
  topics: encodeEventTopics({ abi, eventName: "Transfer", args: { from, to } }),
  data: pad(toHex(value)),
});
const deposit = (token: Address, dst: Address, wad: bigint): Log => ({
  address: token,
  topics: encodeEventTopics({ abi, eventName: "Deposit", args: { dst } }),
  data: pad(toHex(wad)),
});
const withdrawal = (token: Address, src: Address, wad: bigint): Log => ({
  address: token,
  topics: encodeEventTopics({ abi, eventName: "Withdrawal", args: { src } }),
  data: pad(toHex(wad)),
});
const nftMint = (token: Address, to: Address, id: bigint): Log => ({
  address: token,
  topics: encodeEventTopics({ abi: nftTransfer, eventName: "Transfer", args: { from: zeroAddress, to, id } }),
  data: "0x",
});

/** One block (number 1) whose transactions emit these logs, numbered through the block as a node numbers them. */
function range(...transactions: Log[][]): [RpcFullBlock[], RpcReceipt[][]] {
  return blocks(transactions);
}

/** Blocks numbered from 1, each given as its transactions' logs. */
function blocks(...each: Log[][][]): [RpcFullBlock[], RpcReceipt[][]] {
  const made = each.map((transactions, b) => {
    let logIndex = 0;
    const receipts = transactions.map((logs, t) => ({
      transactionHash: toHex(b * 1000 + t, { size: 32 }),
      logs: logs.map((log) => ({ ...log, logIndex: toHex(logIndex++) })),
    }));
    const block = {
      number: toHex(b + 1),
      transactions: receipts.map(({ transactionHash }) => ({ hash: transactionHash })),
    };
    return [block as unknown as RpcFullBlock, receipts as unknown as RpcReceipt[]] as const;
  });
  return [made.map(([block]) => block), made.map(([, receipts]) => receipts)];
}

describe("tokenCandidatesOf with WETH-style Deposit and Withdrawal", () => {
  it("keeps wrapping transfers as mints and burns of a candidate with no form", () => {
    const { transfers, candidates } = tokenCandidatesOf(
      ...range([deposit(weth, alice, 5n)], [transfer(weth, alice, bob, 5n)], [withdrawal(weth, bob, 5n)]),
    );
    expect([...transfers.values()]).toMatchObject([
      { from: zeroAddress, to: alice, amounts: [5n], wrapping: true },
      { from: alice, to: bob, amounts: [5n] },
      { from: bob, to: zeroAddress, amounts: [5n], wrapping: true },
    ]);
    expect(candidates.get(weth)).toEqual({
      forms: new Map([["ERC-20", 1]]),
      firstBlock: 1,
      supplyChanged: true,
      wrappingTransfers: [
        { key: transferKey(1, 0), block: 1 },
        { key: transferKey(1, 2), block: 1 },
      ],
    });
  });

  it("leaves out a Deposit or Withdrawal its transaction also states as the token's Transfer", () => {
    const { transfers, candidates } = tokenCandidatesOf(
      ...range(
        [deposit(weth, alice, 5n), transfer(weth, zeroAddress, alice, 5n)],
        [transfer(weth, bob, zeroAddress, 3n), withdrawal(weth, bob, 3n)],
        // Not the same move: another amount, another token's Transfer, another transaction's.
        [
          deposit(weth, alice, 7n),
          transfer(weth, zeroAddress, alice, 6n),
          transfer(collection, zeroAddress, alice, 7n),
        ],
        [transfer(weth, zeroAddress, bob, 8n)],
        [deposit(weth, bob, 8n)],
      ),
    );
    expect([...transfers.keys()]).toEqual(["1/1", "1/2", "1/4", "1/5", "1/6", "1/7", "1/8"]);
    expect(transfers.get(transferKey(1, 4))).toMatchObject({ amounts: [7n], wrapping: true });
    expect(candidates.get(weth)).toMatchObject({
      forms: new Map([["ERC-20", 1]]),
      wrappingTransfers: [
        { key: transferKey(1, 4), block: 1 },
        { key: transferKey(1, 8), block: 1 },
      ],
    });
  });

  it("never lets a wrapping transfer add a form, and leaves it out for a token with an NFT transfer in its block", () => {
    const wrappedOnly = tokenCandidatesOf(...range([deposit(collection, alice, 1n)]));
    expect(wrappedOnly.candidates.get(collection)?.forms).toEqual(new Map());
    const { transfers, candidates } = tokenCandidatesOf(
      ...range([deposit(collection, alice, 1n)], [nftMint(collection, alice, 9n)]),
    );
    expect([...transfers.values()]).toMatchObject([{ type: "ERC-721", tokenIds: [9n] }]);
    expect(candidates.get(collection)).toMatchObject({
      forms: new Map([["ERC-721", 1]]),
      wrappingTransfers: [],
    });
  });

  it("leaves out a wrap from its token's first NFT transfer in the range on, and passes one before it on", () => {
    const { transfers, candidates } = tokenCandidatesOf(
      ...blocks(
        [[deposit(collection, alice, 1n)]],
        [[nftMint(collection, alice, 9n)], [deposit(collection, alice, 2n)]],
        [[deposit(collection, bob, 3n)]],
      ),
    );
    expect([...transfers.keys()]).toEqual([transferKey(1, 0), transferKey(2, 0)]);
    expect(candidates.get(collection)).toMatchObject({
      forms: new Map([["ERC-721", 2]]),
      wrappingTransfers: [{ key: transferKey(1, 0), block: 1 }],
    });
  });

  it("counts only the listed contracts' wrapping events when given a list", () => {
    const { transfers, candidates } = tokenCandidatesOf(
      ...range([deposit(weth, alice, 5n), deposit(collection, alice, 1n)]),
      { wrappingContracts: new Set([weth]) },
    );
    expect([...transfers.values()]).toMatchObject([{ token: weth }]);
    expect([...candidates.keys()]).toEqual([weth]);
  });
});
