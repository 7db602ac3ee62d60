import {
  encodeFunctionData,
  erc20Abi,
  erc721Abi,
  formatEther,
  maxUint256,
  parseEther,
  zeroAddress,
} from "viem";
import { describe, expect, it } from "vitest";
import { at } from "../../test/support/elements.ts";
import {
  type SummarizeTransactionParameters,
  summarizedInnerEffects,
  summarizeTransaction,
} from "./summarize-transaction.ts";

const alice = "0xaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
const bob = "0xbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
const token = "0x1000000000000000000000000000000000000001";
const nft = "0x2000000000000000000000000000000000000002";
const weth = "0x3000000000000000000000000000000000000003";

const base: SummarizeTransactionParameters = {
  transaction: { from_address: alice, to_address: bob, created_contract: null, value: "0", input: "0x" },
  toIsContract: false,
  method: null,
  tokenTransfers: [],
  innerEffects: [],
  logs: [],
  actions: [],
  userOperations: [],
  tokens: new Map([
    [token, { type: "ERC-20", decimals: 6 }],
    [nft, { type: "ERC-721", decimals: null }],
    [weth, { type: "ERC-20", decimals: 18 }],
  ]),
  nativeSymbol: "ETH",
};

const summarize = (overrides: Partial<SummarizeTransactionParameters>) =>
  summarizeTransaction({ ...base, ...overrides }).map(({ summary_template, summary_template_variables }) => [
    summary_template,
    Object.fromEntries(Object.entries(summary_template_variables).map(([name, { value }]) => [name, value])),
  ]);

describe("summarizeTransaction", () => {
  it("tells a native transfer in whole ether", () => {
    expect(summarize({ transaction: { ...base.transaction, value: parseEther("1.25").toString() } })).toEqual(
      [
        [
          "{action_type} {amount} {native} to {to_address}",
          { action_type: "Transfer", amount: "1.25", native: "ETH", to_address: bob },
        ],
      ],
    );
  });

  it("tells token transfers, mints and burns with their amounts scaled by decimals", () => {
    const transfer = { token_address: token, token_type: "ERC-20", token_id: null, amount: "1500000" };
    const summaries = summarize({
      transaction: { ...base.transaction, to_address: token },
      toIsContract: true,
      tokenTransfers: [
        { ...transfer, from_address: alice, to_address: bob },
        { ...transfer, from_address: zeroAddress, to_address: bob },
        { ...transfer, from_address: alice, to_address: zeroAddress },
        {
          token_address: nft,
          token_type: "ERC-721",
          token_id: "42",
          amount: null,
          from_address: alice,
          to_address: bob,
        },
      ],
    });
    expect(summaries).toEqual([
      [
        "{action_type} {amount} {token} from {from_address} to {to_address}",
        { action_type: "Transfer", amount: "1.5", token, from_address: alice, to_address: bob },
      ],
      [
        "{action_type} {amount} {token} to {to_address}",
        { action_type: "Mint", amount: "1.5", token, to_address: bob },
      ],
      [
        "{action_type} {amount} {token} from {from_address}",
        { action_type: "Burn", amount: "1.5", token, from_address: alice },
      ],
      [
        "{action_type} {token} #{token_id} from {from_address} to {to_address}",
        { action_type: "Transfer", token: nft, token_id: "42", from_address: alice, to_address: bob },
      ],
    ]);
  });

  it("tells approvals, unlimited approvals and revocations from the call", () => {
    const approve = (amount: bigint) => ({
      transaction: {
        ...base.transaction,
        to_address: token,
        input: encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [bob, amount] }),
      },
      toIsContract: true,
    });
    expect(summarize(approve(2_000_000n))).toEqual([
      [
        "{action_type} {spender} to spend {amount} {token}",
        { action_type: "Approve", spender: bob, amount: "2", token },
      ],
    ]);
    expect(at(summarize(approve(maxUint256)), 0)[1]).toMatchObject({ amount: "unlimited" });
    expect(summarize(approve(0n))).toEqual([
      ["{action_type} approval of {spender} for {token}", { action_type: "Revoke", spender: bob, token }],
    ]);
    const forAll = summarize({
      transaction: {
        ...base.transaction,
        to_address: nft,
        input: encodeFunctionData({ abi: erc721Abi, functionName: "setApprovalForAll", args: [bob, false] }),
      },
      toIsContract: true,
    });
    expect(forAll).toEqual([
      [
        "{action_type} approval of {operator} for {token}",
        { action_type: "Revoke", operator: bob, token: nft },
      ],
    ]);
  });

  it("tells a swap once, not again as its token transfers", () => {
    const summaries = summarize({
      transaction: { ...base.transaction, to_address: bob },
      toIsContract: true,
      tokenTransfers: [
        {
          token_address: token,
          token_type: "ERC-20",
          token_id: null,
          amount: "1",
          from_address: alice,
          to_address: bob,
        },
      ],
      actions: [
        {
          protocol: "uniswap_v3",
          type: "swap",
          data: {
            amount0: "2",
            symbol0: "T",
            address0: token,
            amount1: "0.5",
            symbol1: "WETH",
            address1: weth,
            block_number: 1,
          },
          log_index: 0,
        },
      ],
    });
    expect(summaries).toEqual([
      [
        "{action_type} {amount_in} {token_in} for {amount_out} {token_out} on {protocol}",
        {
          action_type: "Swap",
          amount_in: "2",
          token_in: token,
          amount_out: "0.5",
          token_out: weth,
          protocol: "Uniswap V3",
        },
      ],
    ]);
  });

  it("tells a wrap instead of a native transfer, and an unknown call by its method", () => {
    const deposit = {
      address: weth,
      topics: [
        "0xe1fffcc4923d04b559f4d29a8bfc6cda04eb5b0d3c460751c2402c5c5cc9109c",
        `0x${alice.slice(2).padStart(64, "0")}`,
      ],
      data: `0x${parseEther("2").toString(16).padStart(64, "0")}`,
    };
    expect(
      summarize({
        transaction: { ...base.transaction, to_address: weth, value: parseEther("2").toString() },
        toIsContract: true,
        logs: [deposit],
      }),
    ).toEqual([
      [
        "{action_type} {amount} {native} into {token}",
        { action_type: "Wrap", amount: "2", native: "ETH", token: weth },
      ],
    ]);
    expect(summarize({ toIsContract: true, method: "increment" })).toEqual([
      ["Called {method} on {to_address}", { method: "increment", to_address: bob }],
    ]);
  });

  it("tells a contract creation and an ERC-4337 bundle with each operation", () => {
    expect(
      summarize({ transaction: { ...base.transaction, to_address: null, created_contract: nft } }),
    ).toEqual([
      [
        "{action_type} {token} at {contract_address}",
        { action_type: "Deploy token", token: nft, contract_address: nft },
      ],
    ]);
    const summaries = summarize({
      toIsContract: true,
      userOperations: [
        { hash: "0x01", sender: alice, success: true, entry_point: bob },
        { hash: "0x02", sender: bob, success: false, entry_point: bob },
      ],
    });
    expect(summaries).toEqual([
      [
        "{action_type} {operations} through {entry_point}",
        { action_type: "Bundle", operations: "2 user operations", entry_point: bob },
      ],
      [
        "{action_type} user operation {user_operation} of {sender}",
        { action_type: "Executed", user_operation: "0x01", sender: alice },
      ],
      [
        "{action_type} user operation {user_operation} of {sender}",
        { action_type: "Failed", user_operation: "0x02", sender: bob },
      ],
    ]);
  });

  it("tells one bundle per entry point when a transaction reached two", () => {
    const v06 = "0x5ff137d4b0fdcd49dca30c7cf57e578a026d2789";
    const v07 = "0x0000000071727de22e5e9d8baf0edac6f37da032";
    const operation = "{action_type} user operation {user_operation} of {sender}";
    expect(
      summarize({
        toIsContract: true,
        userOperations: [
          { hash: "0x01", sender: alice, success: true, entry_point: v06 },
          { hash: "0x02", sender: bob, success: true, entry_point: v07 },
          { hash: "0x03", sender: bob, success: false, entry_point: v07 },
        ],
      }),
    ).toEqual([
      [
        "{action_type} {operations} through {entry_point}",
        { action_type: "Bundle", operations: "1 user operation", entry_point: v06 },
      ],
      [operation, { action_type: "Executed", user_operation: "0x01", sender: alice }],
      [
        "{action_type} {operations} through {entry_point}",
        { action_type: "Bundle", operations: "2 user operations", entry_point: v07 },
      ],
      [operation, { action_type: "Executed", user_operation: "0x02", sender: bob }],
      [operation, { action_type: "Failed", user_operation: "0x03", sender: bob }],
    ]);
  });

  it("tells contracts created by inner calls, and value received back when nothing else happened", () => {
    const factory = "0x4000000000000000000000000000000000000004";
    const clone = "0x5000000000000000000000000000000000000005";
    expect(
      summarize({
        transaction: { ...base.transaction, to_address: factory, input: "0x12345678" },
        toIsContract: true,
        method: "clone",
        innerEffects: [{ from_address: factory, to_address: null, created_contract: clone, value: "0" }],
      }),
    ).toEqual([
      ["{action_type} {contract_address}", { action_type: "Deploy contract", contract_address: clone }],
    ]);
    expect(
      summarize({
        transaction: { ...base.transaction, to_address: factory, input: "0x12345678" },
        toIsContract: true,
        innerEffects: [
          {
            from_address: factory,
            to_address: alice,
            created_contract: null,
            value: parseEther("0.5").toString(),
          },
        ],
      }),
    ).toEqual([
      [
        "{action_type} {amount} {native} from {from_address}",
        { action_type: "Receive", amount: "0.5", native: "ETH", from_address: factory },
      ],
    ]);
  });

  it("tells the first creations and payments back of a transaction that made more", () => {
    const factory = "0x4000000000000000000000000000000000000004";
    const clone = (n: number) => `0x5${n.toString(16).padStart(39, "0")}`;
    const many = Array.from({ length: summarizedInnerEffects + 5 }, (_, n) => n + 1);
    const transaction = { ...base.transaction, to_address: factory, input: "0x12345678" };
    /** The value of `variable` in each summary of a call whose inner calls had these effects. */
    const told = (
      effect: (n: number) => { to_address: string | null; created_contract: string | null; value: string },
      variable: string,
    ) =>
      summarizeTransaction({
        ...base,
        transaction,
        toIsContract: true,
        innerEffects: many.map((n) => ({ from_address: factory, ...effect(n) })),
      }).map(({ summary_template_variables }) => summary_template_variables[variable]?.value);
    expect(
      told((n) => ({ to_address: null, created_contract: clone(n), value: "0" }), "contract_address"),
    ).toEqual(many.slice(0, summarizedInnerEffects).map(clone));
    expect(told((n) => ({ to_address: alice, created_contract: null, value: String(n) }), "amount")).toEqual(
      many.slice(0, summarizedInnerEffects).map((n) => formatEther(BigInt(n))),
    );
  });
});
