import {
  type Address,
  encodeAbiParameters,
  encodeEventTopics,
  encodeFunctionData,
  type Hex,
  pad,
} from "viem";
import { entryPoint06Abi, entryPoint07Abi, toPackedUserOperation } from "viem/account-abstraction";
import { describe, expect, it } from "vitest";
import type { BundleTransaction } from "../db/user-operation-bundles.ts";
import { extractUserOperations } from "./user-operations.ts";

const v06: Address = "0x5ff137d4b0fdcd49dca30c7cf57e578a026d2789";
const v07: Address = "0x0000000071727de22e5e9d8baf0edac6f37da032";
const entryPoints = { v06: [v06], v07: [v07], v08: [] };
const sender: Address = "0x1111111111111111111111111111111111111111";
const paymaster: Address = "0x2222222222222222222222222222222222222222";
const bundler: Address = "0x3333333333333333333333333333333333333333";
const factory: Address = "0x4444444444444444444444444444444444444444";
const hashOf = (n: number) => pad(`0x${n.toString(16)}`, { size: 32 });

function userOperationEvent(
  address: Address,
  n: number,
  nonce: bigint,
  options: { paymaster?: Address } = {},
) {
  return {
    address,
    topics: encodeEventTopics({
      abi: entryPoint06Abi,
      eventName: "UserOperationEvent",
      args: { userOpHash: hashOf(n), sender, paymaster: options.paymaster ?? `0x${"0".repeat(40)}` },
    }) as Hex[],
    data: encodeAbiParameters(
      [{ type: "uint256" }, { type: "bool" }, { type: "uint256" }, { type: "uint256" }],
      [nonce, true, 1000n + BigInt(n), 100n + BigInt(n)],
    ),
    logIndex: n,
  };
}

function bundle(
  to: Address,
  input: Hex,
  logs: BundleTransaction["logs"],
  innerCalls: BundleTransaction["innerCalls"] = [],
): BundleTransaction {
  return {
    hash: hashOf(99),
    blockNumber: 7,
    blockHash: hashOf(98),
    index: 2,
    from: bundler,
    to,
    input,
    innerCalls,
    logs,
  };
}

const v07Operation = {
  sender,
  nonce: 5n,
  factory,
  factoryData: "0xabcd" as Hex,
  callData: "0x1234" as Hex,
  callGasLimit: 200_000n,
  verificationGasLimit: 300_000n,
  preVerificationGas: 50_000n,
  maxFeePerGas: 7n,
  maxPriorityFeePerGas: 3n,
  paymaster,
  paymasterVerificationGasLimit: 40_000n,
  paymasterPostOpGasLimit: 20_000n,
  paymasterData: "0xbeef" as Hex,
  signature: "0x99" as Hex,
};

describe("extractUserOperations", () => {
  it("matches v0.7 events with their packed operation by sender and nonce and unpacks the gas fields", () => {
    const input = encodeFunctionData({
      abi: entryPoint07Abi,
      functionName: "handleOps",
      args: [[toPackedUserOperation(v07Operation)], bundler],
    });
    const deployed = {
      address: v07,
      topics: encodeEventTopics({
        abi: entryPoint07Abi,
        eventName: "AccountDeployed",
        args: { userOpHash: hashOf(1), sender },
      }) as Hex[],
      data: encodeAbiParameters([{ type: "address" }, { type: "address" }], [factory, paymaster]),
      logIndex: 0,
    };
    const [op] = extractUserOperations(
      [bundle(v07, input, [deployed, userOperationEvent(v07, 1, 5n, { paymaster })])],
      entryPoints,
    );
    expect(op).toMatchObject({
      hash: hashOf(1),
      entryPoint: v07,
      entryPointVersion: "0.7",
      sender,
      paymaster,
      nonce: 5n,
      success: true,
      actualGasCost: 1001n,
      actualGasUsed: 101n,
      factory,
      bundler,
      logIndex: 1,
      blockNumber: 7,
      transactionIndex: 2,
      initCode: `${factory}abcd`,
      callData: "0x1234",
      callGasLimit: 200_000n,
      verificationGasLimit: 300_000n,
      preVerificationGas: 50_000n,
      maxFeePerGas: 7n,
      maxPriorityFeePerGas: 3n,
      paymasterVerificationGasLimit: 40_000n,
      paymasterPostOpGasLimit: 20_000n,
      signature: "0x99",
      revertReason: null,
      aggregator: null,
    });
  });

  it("reads v0.6 fields as they are, and leaves input fields null when the bundle came through another contract", () => {
    const operation = {
      sender,
      nonce: 1n,
      initCode: "0x" as Hex,
      callData: "0x55" as Hex,
      callGasLimit: 1n,
      verificationGasLimit: 2n,
      preVerificationGas: 3n,
      maxFeePerGas: 4n,
      maxPriorityFeePerGas: 5n,
      paymasterAndData: "0x" as Hex,
      signature: "0x66" as Hex,
    };
    const input = encodeFunctionData({
      abi: entryPoint06Abi,
      functionName: "handleOps",
      args: [[operation], bundler],
    });
    const [direct] = extractUserOperations(
      [bundle(v06, input, [userOperationEvent(v06, 2, 1n)])],
      entryPoints,
    );
    expect(direct).toMatchObject({
      entryPointVersion: "0.6",
      paymaster: null,
      factory: null,
      callGasLimit: 1n,
      maxPriorityFeePerGas: 5n,
      paymasterVerificationGasLimit: null,
      signature: "0x66",
    });
    const [relayed] = extractUserOperations(
      [bundle(bundler, "0xdeadbeef", [userOperationEvent(v06, 2, 1n)])],
      entryPoints,
    );
    expect(relayed).toMatchObject({
      hash: hashOf(2),
      nonce: 1n,
      callData: null,
      signature: null,
      initCode: null,
    });
    // With the trace, the relayed bundle's inner call to the EntryPoint carries the operation's fields.
    const [traced] = extractUserOperations(
      [bundle(bundler, "0xdeadbeef", [userOperationEvent(v06, 2, 1n)], [{ to: v06, input }])],
      entryPoints,
    );
    expect(traced).toMatchObject({ hash: hashOf(2), callGasLimit: 1n, signature: "0x66" });
  });

  it("ignores entry points that are not configured and logs that do not decode", () => {
    const malformed = { ...userOperationEvent(v06, 3, 1n), data: "0x01" as Hex };
    expect(
      extractUserOperations([bundle(v06, "0x", [userOperationEvent(v07, 4, 1n), malformed])], {
        ...entryPoints,
        v07: [],
      }),
    ).toEqual([]);
  });
});
