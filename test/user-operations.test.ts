import {
  type Address,
  createPublicClient,
  createWalletClient,
  decodeErrorResult,
  encodeFunctionData,
  getAddress,
  type Hex,
  http,
  type PublicClient,
  parseAbi,
  parseEther,
  parseEventLogs,
  parseGwei,
} from "viem";
import {
  entryPoint06Abi,
  entryPoint07Abi,
  entryPoint08Abi,
  getUserOperationHash,
  toPackedUserOperation,
  type UserOperation,
} from "viem/account-abstraction";
import { mnemonicToAccount } from "viem/accounts";
import { anvil as anvilChain } from "viem/chains";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findUserOperations } from "../src/db/queries/user-operations.ts";
import { type Anvil, startAnvil } from "../src/demo/anvil.ts";
import {
  type RunUserOperationsReturnType,
  runUserOperations,
  type SentUserOperation,
} from "../src/demo/user-operations.ts";
import { createRpcClient, type RpcClient } from "../src/rpc/client.ts";
import { databaseKinds } from "./support/databases.ts";
import { at, only } from "./support/elements.ts";
import { type IndexedChain, indexIntoNewDatabase } from "./support/indexed-chain.ts";

let anvil: Anvil;
let client: RpcClient;
let publicClient: PublicClient;
let demo: RunUserOperationsReturnType;
let sent: SentUserOperation[];

const abis = { "0.6": entryPoint06Abi, "0.7": entryPoint07Abi, "0.8": entryPoint08Abi } as const;

beforeAll(async () => {
  anvil = await startAnvil();
  client = createRpcClient({ url: anvil.rpcUrl });
  publicClient = createPublicClient({ transport: http(anvil.rpcUrl) });
  demo = await runUserOperations({ rpcUrl: anvil.rpcUrl });
  sent = Object.values(demo.examples).flatMap(
    ({ deploy, transfer, tokenTransfer, bundle, reverted, relayed, sponsored }) => [
      deploy,
      transfer,
      tokenTransfer,
      ...bundle,
      reverted,
      relayed,
      ...(sponsored ? [sponsored] : []),
    ],
  );
});

afterAll(async () => {
  await anvil?.stop();
});

const lower = (hex: string | null) => hex?.toLowerCase() ?? null;

describe("the demo's user operations", () => {
  it("are real: the EntryPoints sit at their canonical addresses and hash the operations as sent", async () => {
    expect(demo.entryPoints).toEqual({
      v06: "0x5FF137D4b0FDCD49DcA30c7CF57E578a026d2789",
      v07: "0x0000000071727De22E5E9d8BAf0edAc6f37da032",
      v08: "0x4337084D9E255Ff0702461CF8895CE9E3b5Ff108",
    });
    // Seven per version (one relayed by a contract), and v0.7's operation paid for by its paymaster.
    expect(sent).toHaveLength(22);
    expect(sent.filter((op) => op.paymaster !== null).map((op) => op.entryPointVersion)).toEqual(["0.7"]);
    for (const op of sent) {
      const onChain = await publicClient.readContract({
        address: op.entryPoint,
        abi: abis[op.entryPointVersion] as typeof entryPoint06Abi,
        functionName: "getUserOpHash",
        args: [op.submitted as never],
      });
      expect(onChain, op.description).toBe(op.userOpHash);
    }
  });
});

describe.each(databaseKinds)("user operations indexed into %s", (kind) => {
  let chain: IndexedChain;

  beforeAll(async () => {
    chain = await indexIntoNewDatabase(kind, client, {
      entryPoints: {
        v06: [demo.entryPoints.v06],
        v07: [demo.entryPoints.v07],
        v08: [demo.entryPoints.v08],
      },
    });
  });

  afterAll(async () => {
    await chain?.close();
  });

  it("stores every operation field by field as sent and as the EntryPoint reported it", async () => {
    const { count } = only(
      await chain.test.db.query<{ count: number }>("SELECT count(*)::int AS count FROM user_operations"),
    );
    expect(count).toBe(sent.length);
    for (const op of sent) {
      const receipt = await publicClient.getTransactionReceipt({ hash: op.transactionHash });
      const event = at(
        parseEventLogs({
          abi: entryPoint06Abi,
          logs: receipt.logs,
          eventName: "UserOperationEvent",
          args: { userOpHash: op.userOpHash },
        }),
        0,
        `UserOperationEvent of ${op.description}`,
      );
      const rows = await findUserOperations(chain.test.db, op.transactionHash);
      const row = rows.find((candidate) => candidate.hash === op.userOpHash);
      const unpacked = op.userOperation;
      expect(row, op.description).toEqual({
        hash: op.userOpHash,
        transaction_hash: op.transactionHash,
        transaction_index: receipt.transactionIndex,
        block_number: Number(op.blockNumber),
        block_hash: receipt.blockHash,
        log_index: event.logIndex,
        entry_point: lower(op.entryPoint),
        entry_point_version: op.entryPointVersion,
        sender: lower(op.sender),
        paymaster: lower(op.paymaster),
        nonce: op.nonce.toString(),
        success: op.success,
        actual_gas_cost: event.args.actualGasCost.toString(),
        actual_gas_used: event.args.actualGasUsed.toString(),
        factory: lower(op.factory),
        bundler: lower(demo.bundler),
        aggregator: null,
        revert_reason: op.success ? null : expect.stringMatching(/^0x08c379a0/),
        init_code: lower(
          op.entryPointVersion === "0.6" ? (unpacked.initCode as Hex) : (op.submitted.initCode as Hex),
        ),
        call_data: op.callData,
        call_gas_limit: unpacked.callGasLimit.toString(),
        verification_gas_limit: unpacked.verificationGasLimit.toString(),
        pre_verification_gas: unpacked.preVerificationGas.toString(),
        max_fee_per_gas: unpacked.maxFeePerGas.toString(),
        max_priority_fee_per_gas: unpacked.maxPriorityFeePerGas.toString(),
        paymaster_and_data: lower(
          op.entryPointVersion === "0.6"
            ? (unpacked.paymasterAndData as Hex)
            : (op.submitted.paymasterAndData as Hex),
        ),
        paymaster_verification_gas_limit: unpacked.paymasterVerificationGasLimit?.toString() ?? null,
        paymaster_post_op_gas_limit: unpacked.paymasterPostOpGasLimit?.toString() ?? null,
        signature: unpacked.signature,
      });
      expect(event.args.success).toBe(op.success);
      expect(row?.transaction_hash).toBe(receipt.transactionHash);
    }
  });

  it("names the factory only for the operations that deployed their account", () => {
    const deploying = sent.filter((op) => op.factory !== null);
    expect(deploying).toHaveLength(6);
    for (const key of ["v06", "v07", "v08"] as const) {
      expect(demo.examples[key].deploy.factory).toBe(demo.factories[key]);
      expect(demo.examples[key].bundle[0].factory).toBe(demo.factories[key]);
    }
  });

  it("lists a bundle's operations in execution order and keeps the reverted call's reason", async () => {
    for (const key of ["v06", "v07", "v08"] as const) {
      const { bundle, reverted } = demo.examples[key];
      const rows = await findUserOperations(
        chain.test.db,
        bundle[0].transactionHash.toUpperCase().replace("0X", "0x"),
      );
      expect(rows.map((row) => row.hash)).toEqual(bundle.map((op) => op.userOpHash));
      const failed = at(await findUserOperations(chain.test.db, reverted.transactionHash), 0);
      expect(failed.success).toBe(false);
      expect(
        decodeErrorResult({
          abi: [{ type: "error", name: "Error", inputs: [{ name: "message", type: "string" }] }],
          data: failed.revert_reason as Hex,
        }).args,
      ).toEqual(["ERC20: transfer amount exceeds balance"]);
    }
    expect(await findUserOperations(chain.test.db, `0x${"ab".repeat(32)}`)).toEqual([]);
  });
});

describe.each(databaseKinds)("user operations on %s through a reorganization", (kind) => {
  it("drops the operations of orphaned blocks and keeps the others", async () => {
    const reorgAnvil = await startAnvil();
    const reorgClient = createRpcClient({ url: reorgAnvil.rpcUrl });
    let chain: IndexedChain | undefined;
    try {
      const ops = await runUserOperations({ rpcUrl: reorgAnvil.rpcUrl });
      chain = await indexIntoNewDatabase(kind, reorgClient);
      const orphaned = [ops.examples.v08.bundle[0], ops.examples.v08.reverted];
      const head = await reorgClient.request<Hex>("eth_blockNumber", []);
      const depth = Number(BigInt(head) - ops.examples.v08.bundle[0].blockNumber) + 1;
      await reorgClient.request("anvil_reorg", [depth, []]);
      await reorgClient.request("anvil_mine", ["0x1"]);
      await chain.indexer.catchUp();
      await chain.indexer.catchUp();
      for (const op of orphaned) {
        expect(await findUserOperations(chain.test.db, op.transactionHash), op.description).toEqual([]);
      }
      const kept = await findUserOperations(chain.test.db, ops.examples.v08.tokenTransfer.transactionHash);
      expect(kept.map((row) => row.hash)).toEqual([ops.examples.v08.tokenTransfer.userOpHash]);
      const { count } = only(
        await chain.test.db.query<{ count: number }>(
          "SELECT count(*)::int AS count FROM user_operations WHERE block_number >= $1",
          [Number(ops.examples.v08.bundle[0].blockNumber)],
        ),
      );
      expect(count).toBe(0);
    } finally {
      await chain?.close();
      await reorgAnvil.stop();
    }
  });
});

describe.each(databaseKinds)("a user operation that relays a bundle to another entry point (%s)", (kind) => {
  it("indexes both operations with their fields and tells one bundle per entry point", async () => {
    const nestedAnvil = await startAnvil();
    let chain: IndexedChain | undefined;
    try {
      const ops = await runUserOperations({ rpcUrl: nestedAnvil.rpcUrl });
      const transport = http(nestedAnvil.rpcUrl);
      const node = createPublicClient({ transport, cacheTime: 0 });
      const mnemonic = "test test test test test test test test test test test junk";
      // The demo's owner of the simple accounts, and its bundler.
      const owner = mnemonicToAccount(mnemonic, { addressIndex: 7 });
      const bundler = mnemonicToAccount(mnemonic, { addressIndex: 8 });
      const chainId = await node.getChainId();
      const wallet = createWalletClient({
        account: bundler,
        chain: { ...anvilChain, id: chainId },
        transport,
      });
      const accountAbi = parseAbi(["function execute(address dest, uint256 value, bytes func)"]);
      const nonceAbi = parseAbi(["function getNonce(address sender, uint192 key) view returns (uint256)"]);
      const { baseFeePerGas } = await node.getBlock();
      const maxPriorityFeePerGas = parseGwei("1");
      const fees = { maxFeePerGas: (baseFeePerGas ?? 0n) * 2n + maxPriorityFeePerGas, maxPriorityFeePerGas };
      const signed = async <Version extends "0.6" | "0.7">(
        version: Version,
        entryPoint: Address,
        operation: UserOperation<Version>,
      ) => {
        const hash = getUserOperationHash({
          chainId,
          entryPointAddress: entryPoint,
          entryPointVersion: version,
          userOperation: operation as UserOperation,
        });
        return {
          hash,
          operation: { ...operation, signature: await owner.signMessage({ message: { raw: hash } }) },
        };
      };
      const nonceOf = (entryPoint: Address, sender: Address) =>
        node.readContract({
          address: entryPoint,
          abi: nonceAbi,
          functionName: "getNonce",
          args: [sender, 0n],
        });

      // v0.6's operation sends 0.001 ETH; v0.7's operation hands it to v0.6's EntryPoint in a bundle.
      const inner06 = ops.accounts.v06[0];
      const inner = await signed("0.6", ops.entryPoints.v06, {
        sender: inner06,
        nonce: await nonceOf(ops.entryPoints.v06, inner06),
        initCode: "0x",
        callData: encodeFunctionData({
          abi: accountAbi,
          functionName: "execute",
          args: [ops.deployer, parseEther("0.001"), "0x"],
        }),
        callGasLimit: 100_000n,
        verificationGasLimit: 150_000n,
        preVerificationGas: 60_000n,
        ...fees,
        paymasterAndData: "0x",
        signature: "0x",
      });
      const innerBundle = encodeFunctionData({
        abi: entryPoint06Abi,
        functionName: "handleOps",
        // Its fields are all set above; the type leaves v0.6's `initCode` optional.
        args: [[inner.operation as never], bundler.address],
      });
      const outer07 = ops.accounts.v07[0];
      const outer = await signed("0.7", ops.entryPoints.v07, {
        sender: outer07,
        nonce: await nonceOf(ops.entryPoints.v07, outer07),
        callData: encodeFunctionData({
          abi: accountAbi,
          functionName: "execute",
          args: [ops.entryPoints.v06, 0n, innerBundle],
        }),
        callGasLimit: 1_000_000n,
        verificationGasLimit: 150_000n,
        preVerificationGas: 60_000n,
        ...fees,
        signature: "0x",
      });
      const transactionHash = await wallet.sendTransaction({
        to: ops.entryPoints.v07,
        data: encodeFunctionData({
          abi: entryPoint07Abi,
          functionName: "handleOps",
          args: [[toPackedUserOperation(outer.operation)], bundler.address],
        }),
        gas: 3_000_000n,
      });
      const receipt = await node.waitForTransactionReceipt({ hash: transactionHash });
      const events = parseEventLogs({
        abi: entryPoint06Abi,
        logs: receipt.logs,
        eventName: "UserOperationEvent",
      });
      expect(events.map((event) => [event.args.userOpHash, event.args.success])).toEqual([
        [inner.hash, true],
        [outer.hash, true],
      ]);

      chain = await indexIntoNewDatabase(kind, createRpcClient({ url: nestedAnvil.rpcUrl }));
      const rows = await findUserOperations(chain.test.db, transactionHash);
      expect(rows.map((row) => [row.hash, row.entry_point, row.call_data, row.call_gas_limit])).toEqual([
        [inner.hash, ops.entryPoints.v06.toLowerCase(), inner.operation.callData, "100000"],
        [outer.hash, ops.entryPoints.v07.toLowerCase(), outer.operation.callData, "1000000"],
      ]);

      const response = await chain.app.inject(`/api/v2/transactions/${transactionHash}/summary`);
      expect(response.statusCode).toBe(200);
      const told = (
        response.json() as {
          data: {
            summaries: {
              summary_template: string;
              summary_template_variables: Record<string, { type: string; value: unknown }>;
            }[];
          };
        }
      ).data.summaries.map(({ summary_template, summary_template_variables }) =>
        summary_template.replace(/\{(\w+)\}/g, (_, name: string) => {
          const variable = summary_template_variables[name];
          return variable?.type === "address"
            ? (variable.value as { hash: string }).hash
            : String(variable?.value);
        }),
      );
      expect(told.slice(0, 4)).toEqual([
        `Bundle 1 user operation through ${getAddress(ops.entryPoints.v06)}`,
        `Executed user operation ${inner.hash} of ${getAddress(inner06)}`,
        `Bundle 1 user operation through ${getAddress(ops.entryPoints.v07)}`,
        `Executed user operation ${outer.hash} of ${getAddress(outer07)}`,
      ]);
    } finally {
      await chain?.close();
      await nestedAnvil.stop();
    }
  });
});
