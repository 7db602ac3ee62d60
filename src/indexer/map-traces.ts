import { type Address, type Hex, zeroHash } from "viem";
import { BaseError } from "../errors.ts";
import type { CallFrame } from "../rpc/debug_traceBlockByNumber.ts";
import { RpcInvalidAnswerError } from "../rpc/errors.ts";
import type { ParityTrace } from "../rpc/trace_block.ts";

/** Kind of an internal transaction, as Blockscout's API v2 names it (`call_type` for calls, else `type`). */
export type InternalTransactionType =
  | "call"
  | "delegatecall"
  | "staticcall"
  | "callcode"
  | "create"
  | "create2"
  | "selfdestruct";

/**
 * One frame of a transaction's execution, the same row whichever tracer reported it: the same chain
 * traced with geth's `callTracer` and with Parity's `trace_block` gives deep-equal rows.
 *
 * Where the tracers disagree the row follows Blockscout's importer: a frame that failed, or sits inside
 * one that failed, has no `gasUsed`, `output` or `createdContract`.
 */
export type InternalTransaction = {
  /** Index of the transaction in its block. */
  transactionIndex: number;
  /** Lowercase. */
  transactionHash: Hex;
  /** Depth-first position inside the transaction (Parity's list order); 0 is the top-level frame. */
  index: number;
  /** Parity's trace address: `[]` for the top frame, `[0]` its first child, `[0, 1]` that child's second. */
  traceAddress: number[];
  type: InternalTransactionType;
  /** Lowercase; for `selfdestruct` the destroyed contract. */
  from: Address;
  /** Lowercase; null for creates (see `createdContract`), the beneficiary for `selfdestruct`. */
  to: Address | null;
  /** Lowercase address a successful create deployed; null otherwise. */
  createdContract: Address | null;
  /** Wei sent; for `selfdestruct` the balance passed to the beneficiary. */
  value: bigint;
  /**
   * Gas the frame was given; for the top frame the transaction's gas limit. Null for `selfdestruct`,
   * which Parity reports without gas.
   */
  gas: bigint | null;
  /** Gas the frame used; for the top frame the receipt's `gasUsed`. Null when `error` is set, and for `selfdestruct`. */
  gasUsed: bigint | null;
  /** Call data, or the init code of a create; `0x` for `selfdestruct`. */
  input: Hex;
  /** Returned data, or the deployed code of a create. Null when `error` is set, and for `selfdestruct`. */
  output: Hex | null;
  /** Why the frame failed, normalized by {@link normalizeTraceError}; `parent reverted` when an enclosing frame failed. */
  error: string | null;
  /**
   * What the frame reverted with when its own error is `reverted` (an `Error(string)`, `Panic(uint256)` or
   * custom error, `0x` when it gave none); null otherwise. Kept apart from `output`, which stays null for
   * failed frames as in Blockscout, so that the transaction's revert reason can be decoded.
   */
  revertOutput: Hex | null;
};

/** What a transaction and its receipt say about it, to anchor the top frame of its trace. */
export type TransactionContext = {
  hash: Hex;
  /** The transaction's gas limit. */
  gas: bigint;
  /** The receipt's `gasUsed`. */
  gasUsed: bigint;
};

/** The context of a transaction's top frame: its hash and gas limit, and its receipt's `gasUsed`. */
export function transactionContextOf({
  transaction,
  receipt,
}: {
  transaction: { hash: Hex; gas: Hex | string };
  receipt: { gasUsed: Hex | string };
}): TransactionContext {
  return { hash: transaction.hash, gas: BigInt(transaction.gas), gasUsed: BigInt(receipt.gasUsed) };
}

/**
 * One transaction of `debug_traceBlockByNumber(n, { tracer: "callTracer" })`, in block order: its call
 * tree, or why the node could not trace it. Older geth versions send `result` without `txHash`.
 */
export type CallTracerEntry =
  | { txHash?: Hex; result: CallFrame; error?: undefined }
  | { txHash?: Hex; result?: undefined; error: string };

/** Return type of {@link mapCallTracerBlock}: one array of frames per transaction, in block order. */
export type MapCallTracerBlockReturnType = InternalTransaction[][];

/** Return type of {@link mapParityBlock}: one array of frames per transaction, in block order. */
export type MapParityBlockReturnType = InternalTransaction[][];

/** Error of a frame that succeeded itself inside a frame that failed; Blockscout says "Parent reverted". */
export const parentRevertedError = "parent reverted";

/**
 * The transaction a callTracer result names, or undefined where it names none: older geth, Erigon and
 * reth leave `txHash` out, op-geth sends the zero hash for blocks from before Bedrock.
 */
export function namedTransaction(entry: { txHash?: Hex }): Hex | undefined {
  return entry.txHash && entry.txHash !== zeroHash ? entry.txHash : undefined;
}

/**
 * Maps a block's `callTracer` answer to internal transactions.
 *
 * @param results - The node's answer, one entry per transaction in block order.
 * @param transactions - The block's transactions with their receipts' `gasUsed`, in block order. An entry
 *   may be missing (recorded traces without their block): the top frame then keeps the tracer's own gas
 *   figures, which differ between tracers, and the hash comes from `txHash`.
 * @throws {RpcInvalidAnswerError} when the node could not trace a transaction, or its answer does not
 *   match `transactions`: refetch.
 *
 * @example
 * const results = await client.request("debug_traceBlockByNumber", [n, { tracer: "callTracer" }]);
 * const frames = mapCallTracerBlock(results, contexts);
 * frames[0][0].type; // "call"
 */
export function mapCallTracerBlock(
  results: readonly CallTracerEntry[],
  transactions?: readonly (TransactionContext | undefined)[],
): MapCallTracerBlockReturnType {
  if (transactions && transactions.length !== results.length) {
    throw new RpcInvalidAnswerError(
      `callTracer traced ${results.length} transactions of a block that has ${transactions.length}`,
    );
  }
  return results.map((entry, t) => {
    const context = transactions?.[t];
    const hash = transactionHashOf(namedTransaction(entry), context, t);
    if (entry.result === undefined) {
      // A partial answer would be stored as if the transaction made no inner calls; Blockscout refetches too.
      // A transaction that takes the node longer than its limit to trace does so at every attempt.
      const raise = /timeout/i.test(String(entry.error))
        ? " (raise the node's limit with --trace-timeout or ETHEREUM_JSONRPC_DEBUG_TRACE_TRANSACTION_TIMEOUT)"
        : "";
      throw new RpcInvalidAnswerError(
        `callTracer could not trace transaction ${hash}: ${entry.error}${raise}`,
      );
    }
    const frames: RawFrame[] = [];
    flattenCallFrame(entry.result, [], frames);
    return finishTransaction(frames, t, hash, context);
  });
}

/**
 * Maps a block's Parity-style `trace_block` answer (erigon, reth, nethermind, anvil) to internal
 * transactions. Block and withdrawal `reward` entries, and any other type but `call`, `create` and
 * `suicide`, are skipped.
 *
 * @param traces - The node's flat list: each transaction's frames depth-first, transactions in block order.
 * @param transactions - The block's transactions with their receipts' `gasUsed`, in block order; it also
 *   sets how many arrays are returned. Without it, or where an entry is missing, the top frame keeps the
 *   tracer's own gas figures (Parity subtracts the intrinsic gas from both).
 * @throws {RpcInvalidAnswerError} when a trace names a transaction that is not at its position, a
 *   transaction's frames do not start with its top-level frame, or (with `transactions`) a transaction has
 *   none: refetch.
 *
 * @example
 * const frames = mapParityBlock(await client.request("trace_block", [n]), contexts);
 * frames[2].map((frame) => frame.traceAddress); // [[], [0], [0, 0], [1]]
 */
export function mapParityBlock(
  traces: readonly ParityTrace[],
  transactions?: readonly (TransactionContext | undefined)[],
): MapParityBlockReturnType {
  // A group is opened by its transaction's first frame, so it is never empty.
  const groups: { hash: Hex; frames: [RawFrame, ...RawFrame[]] }[] = [];
  for (const trace of traces) {
    const t = trace.transactionPosition;
    if (t == null) continue; // block and withdrawal rewards
    const frame = parityFrame(trace);
    if (!frame) continue;
    if (transactions && t >= transactions.length) {
      throw new RpcInvalidAnswerError(
        `a trace names transaction ${t} of a block that has ${transactions.length} transactions`,
      );
    }
    const group = groups[t];
    if (group) group.frames.push(frame);
    else
      groups[t] = {
        hash: transactionHashOf(trace.transactionHash ?? undefined, transactions?.[t], t),
        frames: [frame],
      };
  }
  const count = transactions?.length ?? groups.length;
  const mapped: InternalTransaction[][] = [];
  for (let t = 0; t < count; t++) {
    const group = groups[t];
    if (!group) {
      // Every transaction is at least its top-level call or creation: none means a node that has not traced
      // the block (anvil answers [] for a block it lacks, erigon null), not a transaction without frames.
      if (transactions)
        throw new RpcInvalidAnswerError(`the traces have no frame of transaction ${t} of the block`);
      mapped.push([]);
      continue;
    }
    if (group.frames[0].traceAddress.length > 0) {
      throw new RpcInvalidAnswerError(
        `the traces of transaction ${group.hash} do not start with its top-level call`,
      );
    }
    mapped.push(finishTransaction(group.frames, t, group.hash, transactions?.[t]));
  }
  return mapped;
}

/**
 * Maps a tracer's error text to one canonical, lowercase form, so that geth's `execution reverted` and
 * Parity's `Reverted` are stored alike. Known texts (geth, OpenEthereum/Parity, erigon, nethermind, and
 * revm as anvil and reth report it) become: `reverted`, `out of gas`, `invalid opcode`,
 * `invalid jump destination`, `stack underflow`, `stack limit reached`, `write protection`,
 * `max call depth exceeded`, `insufficient balance for transfer`, `contract address collision`,
 * `return data out of bounds`, `max code size exceeded`, `max initcode size exceeded`,
 * `invalid code: must not begin with 0xef`, `precompile failed`, `nonce uint64 overflow`. Any other text is
 * kept, lowercased (revm's `CamelCase` status names split into words).
 *
 * @example
 * normalizeTraceError("Reverted"); // "reverted"
 * normalizeTraceError("contract creation code storage out of gas"); // "out of gas"
 */
export function normalizeTraceError(text: string): string {
  const trimmed = text.trim();
  for (const [pattern, canonical] of canonicalErrors) if (pattern.test(trimmed)) return canonical;
  const words = /^[A-Z][A-Za-z0-9]*$/.test(trimmed)
    ? trimmed.replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    : trimmed;
  return words.toLowerCase();
}

/**
 * Error texts of each node family and the canonical form they become. Details that only one tracer gives
 * (geth's "stack underflow (0 <=> 6)", "invalid opcode: opcode 0xfe not defined") are dropped, else the
 * same failure would read differently per tracer. Sources: geth core/vm/errors.go; OpenEthereum's trace
 * error names (also erigon's and nethermind's trace_* answers); revm-inspectors' `as_error_msg`, whose
 * other statuses arrive as Rust debug names such as `OutOfFunds`.
 */
const canonicalErrors: [RegExp, string][] = [
  [/^(execution reverted|reverted|revert)\b/i, "reverted"],
  [/out of gas|^outofgas$|oog$/i, "out of gas"],
  [/^(invalid opcode|bad instruction|opcodenotfound|invalidfeopcode|notactivated)\b/i, "invalid opcode"],
  [/^(invalid jump destination|bad jump destination|invalidjump)$/i, "invalid jump destination"],
  [/^(stack underflow|stackunderflow)\b/i, "stack underflow"],
  [/^(stack limit reached|out of stack|stackoverflow)\b/i, "stack limit reached"],
  [
    /^(write protection|mutable call in static context|statechangeduringstaticcall|callnotallowedinsidestatic)$/i,
    "write protection",
  ],
  [/^(max call depth exceeded|calltoodeep)$/i, "max call depth exceeded"],
  [/^(insufficient balance for transfer|outoffunds)$/i, "insufficient balance for transfer"],
  [/^(contract address collision|createcollision)$/i, "contract address collision"],
  [/^(return data out of bounds|out of bounds|outofoffset)$/i, "return data out of bounds"],
  [/^(max code size exceeded|createcontractsizelimit)$/i, "max code size exceeded"],
  [/^(max initcode size exceeded|createinitcodesizelimit)$/i, "max initcode size exceeded"],
  [
    /^(invalid code: must not begin with 0xef|createcontractstartingwithef)$/i,
    "invalid code: must not begin with 0xef",
  ],
  [/^(precompiled? failed|built-in failed|precompileerror)$/i, "precompile failed"],
  [/^(nonce uint64 overflow|nonceoverflow)$/i, "nonce uint64 overflow"],
];

/** A frame as one tracer reported it, before the rules both tracers share. Quantities are hex text. */
type RawFrame = {
  traceAddress: number[];
  type: InternalTransactionType;
  from: string;
  to: string | undefined;
  createdContract: string | undefined;
  value: string | undefined;
  gas: string | undefined;
  gasUsed: string | undefined;
  input: string | undefined;
  output: string | undefined;
  error: string | undefined;
};

const callTracerTypes = new Map<string, InternalTransactionType>([
  ["CALL", "call"],
  ["DELEGATECALL", "delegatecall"],
  ["STATICCALL", "staticcall"],
  ["CALLCODE", "callcode"],
  ["CREATE", "create"],
  ["CREATE2", "create2"],
  ["SELFDESTRUCT", "selfdestruct"],
]);

const parityCallTypes = new Map<string, InternalTransactionType>([
  ["call", "call"],
  ["delegatecall", "delegatecall"],
  ["staticcall", "staticcall"],
  ["callcode", "callcode"],
]);

/**
 * Appends a call tree depth-first (the order Parity lists frames in). A frame of an unknown type is
 * skipped with its subtree, as Blockscout does; its siblings keep their positions in `traceAddress`.
 */
function flattenCallFrame(frame: CallFrame, traceAddress: number[], into: RawFrame[]): void {
  const type = callTracerTypes.get(frame.type.toUpperCase());
  if (!type) return;
  const create = type === "create" || type === "create2";
  into.push({
    traceAddress,
    type,
    from: frame.from,
    // callTracer puts a create's new address in `to`.
    to: create ? undefined : frame.to,
    createdContract: create ? frame.to : undefined,
    value: frame.value,
    gas: frame.gas,
    gasUsed: frame.gasUsed,
    input: frame.input,
    output: frame.output,
    error: frame.error,
  });
  frame.calls?.forEach((call, i) => {
    flattenCallFrame(call, [...traceAddress, i], into);
  });
}

/** Reads one Parity trace entry; null for types that are not frames of a transaction. */
function parityFrame(trace: ParityTrace): RawFrame | null {
  const { action, traceAddress } = trace;
  const result = trace.result ?? undefined;
  const error = trace.error;
  if (trace.type === "call") {
    const type = parityCallTypes.get(action.callType ?? "call");
    if (!type) return null;
    return {
      traceAddress,
      type,
      from: action.from ?? "",
      to: action.to,
      createdContract: undefined,
      value: action.value,
      gas: action.gas,
      gasUsed: result?.gasUsed,
      input: action.input,
      output: result?.output,
      error,
    };
  }
  if (trace.type === "create") {
    return {
      traceAddress,
      // Older OpenEthereum sends no creationMethod and cannot tell CREATE2 from CREATE.
      type: action.creationMethod === "create2" ? "create2" : "create",
      from: action.from ?? "",
      to: undefined,
      createdContract: result?.address,
      value: action.value,
      gas: action.gas,
      gasUsed: result?.gasUsed,
      input: action.init,
      output: result?.code,
      error,
    };
  }
  if (trace.type === "suicide") {
    return {
      traceAddress,
      type: "selfdestruct",
      from: action.address ?? "",
      to: action.refundAddress,
      createdContract: undefined,
      value: action.balance,
      gas: undefined,
      gasUsed: undefined,
      input: undefined,
      output: undefined,
      error,
    };
  }
  return null;
}

/**
 * Applies the rules that make both tracers' rows equal, in depth-first order:
 * - the top frame's `gas` is the transaction's gas limit and its `gasUsed` the receipt's: Parity subtracts
 *   the intrinsic gas from both, anvil's callTracer does the same for `gas` (0 for a plain transfer) and
 *   reports the block's cumulative gas as `gasUsed`;
 * - a failed frame has no `gasUsed`, `output` or `createdContract`: Parity sends no result for most
 *   failures while geth always sends `gasUsed`, and Blockscout drops all three for failed frames
 *   ("we don't save reverted trace outputs"); what a reverted frame returned goes to `revertOutput`;
 * - a frame inside a failed frame gets the error `parent reverted` (its own error, if any, wins) and loses
 *   the same fields, as Blockscout's internal transaction fetcher marks them;
 * - `selfdestruct` has no gas figures (Parity gives none; Blockscout keeps none), input `0x`, no output.
 */
function finishTransaction(
  frames: RawFrame[],
  transactionIndex: number,
  transactionHash: Hex,
  context: TransactionContext | undefined,
): InternalTransaction[] {
  // Depth-first order puts each frame's parent last among the frames seen one level up.
  const failedAtDepth: boolean[] = [];
  return frames.map((frame, index) => {
    const depth = frame.traceAddress.length;
    const ownError = frame.error ? normalizeTraceError(frame.error) : null;
    const error = ownError ?? (depth > 0 && failedAtDepth[depth - 1] ? parentRevertedError : null);
    failedAtDepth[depth] = error !== null;
    const selfdestruct = frame.type === "selfdestruct";
    const top = depth === 0 && context !== undefined;
    return {
      transactionIndex,
      transactionHash,
      index,
      traceAddress: frame.traceAddress,
      type: frame.type,
      from: lowerAddress(frame.from),
      to: frame.to ? lowerAddress(frame.to) : null,
      createdContract: frame.createdContract && error === null ? lowerAddress(frame.createdContract) : null,
      value: quantity(frame.value) ?? 0n,
      gas: top ? context.gas : selfdestruct ? null : quantity(frame.gas),
      gasUsed: error !== null || selfdestruct ? null : top ? context.gasUsed : quantity(frame.gasUsed),
      input: selfdestruct ? "0x" : ((frame.input as Hex | undefined) ?? "0x"),
      // callTracer leaves `output` out when it is empty; Parity sends "0x".
      output: error !== null || selfdestruct ? null : ((frame.output as Hex | undefined) ?? "0x"),
      error,
      // Both tracers send the revert data (Parity in `result.output`); callTracer leaves an empty one out.
      revertOutput: ownError === "reverted" ? ((frame.output as Hex | undefined) ?? "0x") : null,
    };
  });
}

function transactionHashOf(
  named: Hex | undefined,
  context: TransactionContext | undefined,
  index: number,
): Hex {
  const hash = (named ?? context?.hash)?.toLowerCase() as Hex | undefined;
  if (hash === undefined) {
    throw new BaseError(`the trace of transaction ${index} names no transaction hash and none was given`);
  }
  if (context && context.hash.toLowerCase() !== hash) {
    throw new RpcInvalidAnswerError(`the trace of transaction ${index} is for ${hash}, not ${context.hash}`);
  }
  return hash;
}

function quantity(value: string | undefined): bigint | null {
  if (value === undefined || value === null) return null;
  return value === "0x" ? 0n : BigInt(value);
}

function lowerAddress(address: string): Address {
  return address.toLowerCase() as Address;
}
