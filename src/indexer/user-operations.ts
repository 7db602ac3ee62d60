import {
  type Abi,
  type Address,
  decodeEventLog,
  decodeFunctionData,
  type Hex,
  hexToBigInt,
  size,
  slice,
  zeroAddress,
} from "viem";
import {
  entryPoint06Abi,
  entryPoint06Address,
  entryPoint07Abi,
  entryPoint07Address,
  entryPoint08Abi,
  entryPoint08Address,
} from "viem/account-abstraction";
import type { RangeRows } from "../db/tables.ts";
import type { BundleLog, BundleTransaction } from "../db/user-operation-bundles.ts";
import type { FetchedRange } from "./fetch-range.ts";
import { rangeBlocks } from "./range-blocks.ts";

/** The EntryPoint addresses indexed per version group; an empty list turns the group off. */
export type EntryPoints = { v06: readonly Address[]; v07: readonly Address[]; v08: readonly Address[] };

export type EntryPointGroup = keyof EntryPoints;

/** The canonical deployments, at the same address on every chain. */
export const canonicalEntryPoints: EntryPoints = {
  v06: [entryPoint06Address],
  v07: [entryPoint07Address],
  v08: [entryPoint08Address],
};

const groups: Record<EntryPointGroup, { version: "0.6" | "0.7" | "0.8"; abi: Abi }> = {
  v06: { version: "0.6", abi: entryPoint06Abi },
  v07: { version: "0.7", abi: entryPoint07Abi },
  v08: { version: "0.8", abi: entryPoint08Abi },
};

/**
 * One user operation: the `UserOperationEvent` fields, its factory (`AccountDeployed`) and revert data
 * (`UserOperationRevertReason`), and the fields of the operation as the bundle's `handleOps` input carried
 * it. Those are null when the bundle reached the EntryPoint through another contract. Addresses and
 * hashes are lowercase.
 */
export type UserOperationRecord = {
  hash: Hex;
  transactionHash: Hex;
  transactionIndex: number;
  blockNumber: number;
  blockHash: Hex;
  logIndex: number;
  entryPoint: Address;
  entryPointVersion: "0.6" | "0.7" | "0.8";
  sender: Address;
  paymaster: Address | null;
  nonce: bigint;
  success: boolean;
  actualGasCost: bigint;
  actualGasUsed: bigint;
  factory: Address | null;
  /** The bundle transaction's sender. */
  bundler: Address;
  /** The signature aggregator of a `handleAggregatedOps` bundle. */
  aggregator: Address | null;
  /** The account call's revert data, when it reverted. */
  revertReason: Hex | null;
  initCode: Hex | null;
  callData: Hex | null;
  callGasLimit: bigint | null;
  verificationGasLimit: bigint | null;
  preVerificationGas: bigint | null;
  maxFeePerGas: bigint | null;
  maxPriorityFeePerGas: bigint | null;
  paymasterAndData: Hex | null;
  /** v0.7 and later pack these into `paymasterAndData`. */
  paymasterVerificationGasLimit: bigint | null;
  paymasterPostOpGasLimit: bigint | null;
  signature: Hex | null;
};

type InputFields = Pick<
  UserOperationRecord,
  | "aggregator"
  | "initCode"
  | "callData"
  | "callGasLimit"
  | "verificationGasLimit"
  | "preVerificationGas"
  | "maxFeePerGas"
  | "maxPriorityFeePerGas"
  | "paymasterAndData"
  | "paymasterVerificationGasLimit"
  | "paymasterPostOpGasLimit"
  | "signature"
>;

const noInput: InputFields = {
  aggregator: null,
  initCode: null,
  callData: null,
  callGasLimit: null,
  verificationGasLimit: null,
  preVerificationGas: null,
  maxFeePerGas: null,
  maxPriorityFeePerGas: null,
  paymasterAndData: null,
  paymasterVerificationGasLimit: null,
  paymasterPostOpGasLimit: null,
  signature: null,
};

/** Lowercase entry-point address → its version group. */
export function entryPointGroups(entryPoints: EntryPoints): Map<string, EntryPointGroup> {
  const map = new Map<string, EntryPointGroup>();
  for (const group of Object.keys(groups) as EntryPointGroup[]) {
    for (const address of entryPoints[group]) map.set(address.toLowerCase(), group);
  }
  return map;
}

/**
 * Reads the user operations of `transactions` from the logs of the configured entry points, matching
 * each `UserOperationEvent` with its operation in the bundle's input by sender and nonce (unique within
 * a bundle: the EntryPoint would reject the second use of a nonce). Logs that do not decode are skipped.
 */
export function extractUserOperations(
  transactions: Iterable<BundleTransaction>,
  entryPoints: EntryPoints,
): UserOperationRecord[] {
  const byAddress = entryPointGroups(entryPoints);
  const records: UserOperationRecord[] = [];
  for (const transaction of transactions) {
    const factories = new Map<string, Address>();
    const revertReasons = new Map<string, Hex>();
    const events: { log: BundleLog; group: EntryPointGroup; args: UserOperationEventArgs }[] = [];
    for (const log of transaction.logs) {
      const group = byAddress.get(log.address.toLowerCase());
      if (group === undefined) continue;
      const decoded = decode(groups[group].abi, log);
      if (decoded?.eventName === "UserOperationEvent") {
        events.push({ log, group, args: decoded.args as unknown as UserOperationEventArgs });
      } else if (decoded?.eventName === "AccountDeployed") {
        const args = decoded.args as unknown as { userOpHash: Hex; factory: Address };
        factories.set(args.userOpHash.toLowerCase(), args.factory.toLowerCase() as Address);
      } else if (decoded?.eventName === "UserOperationRevertReason") {
        const args = decoded.args as unknown as { userOpHash: Hex; revertReason: Hex };
        revertReasons.set(args.userOpHash.toLowerCase(), args.revertReason);
      }
    }
    if (events.length === 0) continue;
    // Each operation's own fields, keyed by entry point, sender and nonce, from every call that reached an
    // entry point: the transaction itself, or inner calls when another contract relayed the bundle.
    const inputs = new Map<string, InputFields>();
    const calls = [
      ...(transaction.to === null ? [] : [{ to: transaction.to, input: transaction.input }]),
      ...transaction.innerCalls,
    ];
    for (const call of calls) {
      const to = call.to.toLowerCase();
      const group = byAddress.get(to);
      if (group === undefined) continue;
      for (const [key, fields] of bundleInputs(group, call.input as Hex)) inputs.set(`${to}:${key}`, fields);
    }
    for (const { log, group, args } of events) {
      const hash = args.userOpHash.toLowerCase() as Hex;
      const entryPoint = log.address.toLowerCase() as Address;
      const sender = args.sender.toLowerCase() as Address;
      const paymaster = args.paymaster.toLowerCase() as Address;
      records.push({
        hash,
        transactionHash: transaction.hash.toLowerCase() as Hex,
        transactionIndex: transaction.index,
        blockNumber: transaction.blockNumber,
        blockHash: transaction.blockHash.toLowerCase() as Hex,
        logIndex: log.logIndex,
        entryPoint,
        entryPointVersion: groups[group].version,
        sender,
        paymaster: paymaster === zeroAddress ? null : paymaster,
        nonce: args.nonce,
        success: args.success,
        actualGasCost: args.actualGasCost,
        actualGasUsed: args.actualGasUsed,
        factory: factories.get(hash) ?? null,
        bundler: transaction.from.toLowerCase() as Address,
        revertReason: revertReasons.get(hash) ?? null,
        ...(inputs.get(`${entryPoint}:${sender}:${args.nonce}`) ?? noInput),
      });
    }
  }
  return records;
}

type UserOperationEventArgs = {
  userOpHash: Hex;
  sender: Address;
  paymaster: Address;
  nonce: bigint;
  success: boolean;
  actualGasCost: bigint;
  actualGasUsed: bigint;
};

function decode(abi: Abi, log: BundleLog) {
  const topics = log.topics.filter((topic): topic is string => topic !== null) as [Hex, ...Hex[]];
  if (topics.length === 0) return null;
  try {
    return decodeEventLog({ abi, topics, data: log.data as Hex });
  } catch {
    // A look-alike log (wrong topic count or data) says nothing reliable about an operation.
    return null;
  }
}

type PackedOperation = {
  sender: Address;
  nonce: bigint;
  initCode: Hex;
  callData: Hex;
  paymasterAndData: Hex;
  signature: Hex;
  preVerificationGas: bigint;
  // v0.6
  callGasLimit?: bigint;
  verificationGasLimit?: bigint;
  maxFeePerGas?: bigint;
  maxPriorityFeePerGas?: bigint;
  // v0.7 and later
  accountGasLimits?: Hex;
  gasFees?: Hex;
};

/** The operations of a `handleOps` or `handleAggregatedOps` input, keyed by `sender:nonce`. */
function bundleInputs(group: EntryPointGroup, input: Hex): Map<string, InputFields> {
  const fields = new Map<string, InputFields>();
  let call: { functionName: string; args?: readonly unknown[] };
  try {
    call = decodeFunctionData({ abi: groups[group].abi, data: input });
  } catch {
    return fields;
  }
  const batches: { ops: readonly PackedOperation[]; aggregator: Address | null }[] = [];
  if (call.functionName === "handleOps") {
    batches.push({ ops: (call.args as unknown as [readonly PackedOperation[]])[0], aggregator: null });
  } else if (call.functionName === "handleAggregatedOps") {
    for (const batch of (
      call.args as [readonly { userOps: readonly PackedOperation[]; aggregator: Address }[]]
    )[0])
      batches.push({ ops: batch.userOps, aggregator: batch.aggregator.toLowerCase() as Address });
  }
  for (const { ops, aggregator } of batches) {
    for (const op of ops) {
      fields.set(`${op.sender.toLowerCase()}:${op.nonce}`, { aggregator, ...unpack(op) });
    }
  }
  return fields;
}

/** v0.7 packs two 16-byte quantities into each of `accountGasLimits`, `gasFees` and `paymasterAndData`. */
function unpack(op: PackedOperation): Omit<InputFields, "aggregator"> {
  const common = {
    initCode: op.initCode,
    callData: op.callData,
    preVerificationGas: op.preVerificationGas,
    paymasterAndData: op.paymasterAndData,
    signature: op.signature,
  };
  if (op.accountGasLimits === undefined || op.gasFees === undefined) {
    return {
      ...common,
      callGasLimit: op.callGasLimit ?? null,
      verificationGasLimit: op.verificationGasLimit ?? null,
      maxFeePerGas: op.maxFeePerGas ?? null,
      maxPriorityFeePerGas: op.maxPriorityFeePerGas ?? null,
      paymasterVerificationGasLimit: null,
      paymasterPostOpGasLimit: null,
    };
  }
  const half = (packed: Hex, start: number) => hexToBigInt(slice(packed, start, start + 16));
  const hasPaymasterGas = size(op.paymasterAndData) >= 52;
  return {
    ...common,
    verificationGasLimit: half(op.accountGasLimits, 0),
    callGasLimit: half(op.accountGasLimits, 16),
    maxPriorityFeePerGas: half(op.gasFees, 0),
    maxFeePerGas: half(op.gasFees, 16),
    paymasterVerificationGasLimit: hasPaymasterGas ? half(op.paymasterAndData, 20) : null,
    paymasterPostOpGasLimit: hasPaymasterGas ? half(op.paymasterAndData, 36) : null,
  };
}

/**
 * The transactions of a fetched range that emitted logs of a configured entry point, in the form
 * {@link extractUserOperations} reads.
 */
export function bundleTransactionsOf(range: FetchedRange, entryPoints: EntryPoints): BundleTransaction[] {
  const byAddress = entryPointGroups(entryPoints);
  const bundles: BundleTransaction[] = [];
  if (byAddress.size === 0) return bundles;
  for (const { block, transactions } of rangeBlocks(range)) {
    for (const {
      transaction,
      index,
      receipt: { logs },
      frames,
    } of transactions) {
      if (!logs.some((log) => byAddress.has(log.address.toLowerCase()))) continue;
      const innerCalls = (frames ?? [])
        .filter((frame) => frame.index > 0 && frame.type === "call" && frame.error === null)
        .filter((frame) => frame.to !== null && byAddress.has(frame.to))
        .map((frame) => ({ to: frame.to as string, input: frame.input }));
      bundles.push({
        hash: transaction.hash,
        blockNumber: Number(block.number),
        blockHash: block.hash,
        index,
        from: transaction.from,
        to: transaction.to ?? null,
        input: transaction.input,
        innerCalls,
        logs: logs.map((log) => ({
          address: log.address,
          topics: log.topics as string[],
          data: log.data,
          logIndex: Number(log.logIndex),
        })),
      });
    }
  }
  return bundles;
}

/** Adds the `user_operations` rows of `records`. */
export function pushUserOperationRows(
  rows: Pick<RangeRows, "userOperations">,
  records: readonly UserOperationRecord[],
): void {
  for (const op of records) {
    rows.userOperations.push({
      hash: op.hash,
      transaction_hash: op.transactionHash,
      transaction_index: op.transactionIndex,
      block_number: op.blockNumber,
      block_hash: op.blockHash,
      log_index: op.logIndex,
      entry_point: op.entryPoint,
      entry_point_version: op.entryPointVersion,
      sender: op.sender,
      paymaster: op.paymaster,
      nonce: op.nonce,
      success: op.success,
      actual_gas_cost: op.actualGasCost,
      actual_gas_used: op.actualGasUsed,
      factory: op.factory,
      bundler: op.bundler,
      aggregator: op.aggregator,
      revert_reason: op.revertReason,
      init_code: op.initCode,
      call_data: op.callData,
      call_gas_limit: op.callGasLimit,
      verification_gas_limit: op.verificationGasLimit,
      pre_verification_gas: op.preVerificationGas,
      max_fee_per_gas: op.maxFeePerGas,
      max_priority_fee_per_gas: op.maxPriorityFeePerGas,
      paymaster_and_data: op.paymasterAndData,
      paymaster_verification_gas_limit: op.paymasterVerificationGasLimit,
      paymaster_post_op_gas_limit: op.paymasterPostOpGasLimit,
      signature: op.signature,
    });
  }
}
