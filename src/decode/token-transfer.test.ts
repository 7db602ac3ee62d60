import { type Address, encodeAbiParameters, pad, toEventSelector, toHex } from "viem";
import { describe, expect, it } from "vitest";
import {
  decodeTokenTransfer,
  depositTopic,
  erc20TransferTopic,
  erc721TransferTopic,
  transferBatchTopic,
  transferSingleTopic,
  transferTopic,
  withdrawalTopic,
} from "./token-transfer.ts";

const token = "0x00000000000000000000000000000000000000AA";
const alice = "0x1111111111111111111111111111111111111111";
const bob = "0x2222222222222222222222222222222222222222";
const operator = "0x3333333333333333333333333333333333333333";
const topic = (address: string) => pad(address as `0x${string}`, { size: 32 }).toLowerCase();
const word = (value: bigint) => pad(toHex(value), { size: 32 });
/** from, to and id as the data of a Transfer that indexes none of them. */
const unindexed = (from: Address, to: Address, id: bigint) =>
  encodeAbiParameters([{ type: "address" }, { type: "address" }, { type: "uint256" }], [from, to, id]);

describe("decodeTokenTransfer", () => {
  it("reads an ERC-20 Transfer (3 topics, amount in data)", () => {
    expect(
      decodeTokenTransfer({
        address: token,
        topics: [transferTopic, topic(alice), topic(bob)],
        data: word(10n ** 30n),
      }),
    ).toEqual({
      type: "ERC-20",
      token: token.toLowerCase(),
      from: alice,
      to: bob,
      tokenIds: [],
      amounts: [10n ** 30n],
    });
  });

  it("reads an ERC-721 Transfer (4 topics, id indexed), including a mint from the zero address", () => {
    const zero = "0x0000000000000000000000000000000000000000";
    expect(
      decodeTokenTransfer({
        address: token,
        topics: [transferTopic, topic(zero), topic(bob), word(7n)],
        data: "0x",
      }),
    ).toMatchObject({ type: "ERC-721", from: zero, to: bob, tokenIds: [7n], amounts: [] });
  });

  it("reads ERC-1155 TransferSingle and keeps a TransferBatch as one transfer", () => {
    const single = encodeAbiParameters([{ type: "uint256" }, { type: "uint256" }], [5n, 3n]);
    expect(
      decodeTokenTransfer({
        address: token,
        topics: [transferSingleTopic, topic(operator), topic(alice), topic(bob)],
        data: single,
      }),
    ).toMatchObject({ type: "ERC-1155", from: alice, to: bob, tokenIds: [5n], amounts: [3n] });
    const ids = Array.from({ length: 10 }, (_, i) => BigInt(i + 1));
    const batch = encodeAbiParameters(
      [{ type: "uint256[]" }, { type: "uint256[]" }],
      [ids, ids.map((id) => id * 100n)],
    );
    const decoded = decodeTokenTransfer({
      address: token,
      topics: [transferBatchTopic, topic(operator), topic(alice), topic(bob)],
      data: batch,
    });
    expect(decoded).toMatchObject({ type: "ERC-1155", tokenIds: ids, amounts: ids.map((id) => id * 100n) });
  });

  it("reads ERC-404 v1's ERC20Transfer as the fungible form, and only that layout", () => {
    expect(
      decodeTokenTransfer({
        address: token,
        topics: [erc20TransferTopic, topic(alice), topic(bob)],
        data: word(5n),
      }),
    ).toMatchObject({ type: "ERC-20", from: alice, to: bob, amounts: [5n] });
    expect(
      decodeTokenTransfer({
        address: token,
        topics: [erc20TransferTopic, topic(alice), topic(bob), word(1n)],
        data: "0x",
      }),
    ).toBe("malformed");
  });

  it("reads ERC-404's ERC721Transfer as the ERC-721 form, and only that layout", () => {
    expect(toEventSelector("event ERC721Transfer(address indexed, address indexed, uint256 indexed)")).toBe(
      "0xe5f815dc84b8cecdfd4beedfc3f91ab5be7af100eca4e8fb11552b867995394f",
    );
    expect(
      decodeTokenTransfer({
        address: token,
        topics: [erc721TransferTopic, topic(alice), topic(bob), word(7n)],
        data: "0x",
      }),
    ).toEqual({
      type: "ERC-721",
      token: token.toLowerCase(),
      from: alice,
      to: bob,
      tokenIds: [7n],
      amounts: [],
    });
    expect(
      decodeTokenTransfer({
        address: token,
        topics: [erc721TransferTopic, topic(alice), topic(bob)],
        data: word(5n),
      }),
    ).toBe("malformed");
  });

  it("reads an ERC-721 Transfer that indexes nothing (CryptoKitties) from its 96 bytes of data, and no other length or unclean address", () => {
    expect(
      decodeTokenTransfer({
        address: token,
        topics: [transferTopic],
        data: unindexed(alice, bob, 2n ** 255n),
      }),
    ).toEqual({
      type: "ERC-721",
      token: token.toLowerCase(),
      from: alice,
      to: bob,
      tokenIds: [2n ** 255n],
      amounts: [],
    });
    const data = unindexed(alice, bob, 1n);
    const words = (from: number, to: number) => data.slice(2 + 64 * from, 2 + 64 * to);
    for (const malformed of [
      word(1n),
      data.slice(0, 2 + 128),
      `${data}${"00".repeat(32)}`,
      // An address word whose upper 12 bytes are not zero, `from` then `to`.
      `0x${"ff".repeat(12)}${words(0, 3).slice(24)}`,
      `0x${words(0, 1)}${"01".repeat(12)}${words(1, 3).slice(24)}`,
    ]) {
      expect(
        decodeTokenTransfer({ address: token, topics: [transferTopic], data: malformed }),
        malformed,
      ).toBe("malformed");
    }
  });

  it("reads WETH's Deposit as a mint and its Withdrawal as a burn, marked as wrapping", () => {
    const zero = "0x0000000000000000000000000000000000000000";
    expect(
      decodeTokenTransfer({ address: token, topics: [depositTopic, topic(alice)], data: word(5n) }),
    ).toEqual({
      type: "ERC-20",
      token: token.toLowerCase(),
      from: zero,
      to: alice,
      tokenIds: [],
      amounts: [5n],
      wrapping: true,
    });
    expect(
      decodeTokenTransfer({ address: token, topics: [withdrawalTopic, topic(bob)], data: word(3n) }),
    ).toEqual({
      type: "ERC-20",
      token: token.toLowerCase(),
      from: bob,
      to: zero,
      tokenIds: [],
      amounts: [3n],
      wrapping: true,
    });
  });

  // Other contracts name other events Deposit or Withdrawal: a layout that is not WETH's is no transfer.
  it.each([
    [
      "a Deposit with nothing indexed",
      [depositTopic],
      encodeAbiParameters([{ type: "address" }, { type: "uint256" }], [alice, 1n]),
    ],
    ["a Deposit with two indexed topics", [depositTopic, topic(alice), topic(bob)], word(1n)],
    ["a Deposit with two words of data", [depositTopic, topic(alice)], `${word(1n)}${word(2n).slice(2)}`],
    ["a Deposit with no data", [depositTopic, topic(alice)], "0x"],
    ["a Withdrawal whose address topic has high bits", [withdrawalTopic, word(2n ** 200n)], word(1n)],
  ])("ignores %s", (_, topics, data) => {
    expect(decodeTokenTransfer({ address: token, topics: topics as string[], data })).toBeNull();
  });

  it("ignores logs that are not transfers", () => {
    expect(decodeTokenTransfer({ address: token, topics: [word(1n), topic(alice)], data: "0x" })).toBeNull();
    expect(decodeTokenTransfer({ address: token, topics: [], data: "0x" })).toBeNull();
  });

  it.each([
    ["a Transfer with one indexed address", [transferTopic, topic(alice)], word(1n)],
    ["an ERC-20 Transfer with a short amount", [transferTopic, topic(alice), topic(bob)], "0x01"],
    ["an ERC-721 Transfer with data", [transferTopic, topic(alice), topic(bob), word(1n)], word(1n)],
    ["a Transfer whose address topic has high bits", [transferTopic, word(2n ** 200n), topic(bob)], word(1n)],
    ["an ERC721Transfer with data", [erc721TransferTopic, topic(alice), topic(bob), word(1n)], word(1n)],
    [
      "a TransferSingle with one word of data",
      [transferSingleTopic, topic(operator), topic(alice), topic(bob)],
      word(1n),
    ],
    [
      "a TransferBatch with arrays of different lengths",
      [transferBatchTopic, topic(operator), topic(alice), topic(bob)],
      encodeAbiParameters([{ type: "uint256[]" }, { type: "uint256[]" }], [[1n, 2n], [1n]]),
    ],
    [
      "a TransferBatch with garbage data",
      [transferBatchTopic, topic(operator), topic(alice), topic(bob)],
      "0xdeadbeef",
    ],
  ])("counts %s as malformed instead of failing", (_, topics, data) => {
    expect(decodeTokenTransfer({ address: token, topics: topics as string[], data })).toBe("malformed");
  });
});
