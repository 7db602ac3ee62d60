import type { Address, Hash } from "viem";
import { BaseError } from "../errors.ts";
import { required } from "../required.ts";
import type { RpcClient } from "../rpc/client.ts";
import { debug_traceBlockByHash } from "../rpc/debug_traceBlockByHash.ts";
import { type CallTracerResult, debug_traceBlockByNumber } from "../rpc/debug_traceBlockByNumber.ts";
import {
  isHistoryUnavailable,
  isMethodNotSupported,
  RpcError,
  RpcInvalidAnswerError,
  type RpcResponseError,
} from "../rpc/errors.ts";
import { eth_getBlockByNumber } from "../rpc/eth_getBlockByNumber.ts";
import { eth_getBlockReceipts } from "../rpc/eth_getBlockReceipts.ts";
import { eth_getCode } from "../rpc/eth_getCode.ts";
import { eth_getTransactionReceipt } from "../rpc/eth_getTransactionReceipt.ts";
import { type ParityTrace, trace_block } from "../rpc/trace_block.ts";
import type { RpcFullBlock, RpcReceipt } from "../rpc/types.ts";
import { sleep } from "../sleep.ts";
import { CallTracerIgnoredError, ignoresCallTracer, type Tracer } from "./choose-tracer.ts";
import { detectProxies, type ProxyDetection } from "./detect-proxies.ts";
import {
  type InternalTransaction,
  mapCallTracerBlock,
  mapParityBlock,
  namedTransaction,
  transactionContextOf,
} from "./map-traces.ts";
import { rangeBlocks } from "./range-blocks.ts";
import { readTokenMetadata, type TokenReadings } from "./read-token-metadata.ts";
import {
  type RangeTransfers,
  type TokenCandidate,
  type TokenCandidatesOptions,
  tokenCandidatesOf,
} from "./token-candidates.ts";
import { validateRange } from "./validate-range.ts";

export type FetchRangeParameters = {
  from: bigint;
  to: bigint;
  /** Which tracer gives the internal transactions; `none` leaves them unknown. */
  tracer?: Tracer;
  /** How long callTracer may take over one transaction (a Go duration); the node's own limit without. */
  traceTimeout?: string;
  /** Tokens whose name, symbol and decimals were already read; grows as ranges are fetched. */
  describedTokens?: Set<Address>;
  /** Addresses already known to hold code; they are not asked for again. Grows as ranges are fetched. */
  knownContracts?: Set<Address>;
} & TokenCandidatesOptions;

export type FetchedRange = {
  from: bigint;
  to: bigint;
  /** The parent hash of block `from`: the hash the stored block below the range must have. */
  parentHash: Hash;
  /** The hash of block `to`, whose state is read (by hash, see StateBlock). */
  toHash: Hash;
  blocks: RpcFullBlock[];
  /** `receipts[i]` are the receipts of `blocks[i]`, in transaction order. */
  receipts: RpcReceipt[][];
  /** `internalTransactions[b][t]`: the frames of transaction t of block b; null without a tracer. */
  internalTransactions: InternalTransaction[][][] | null;
  /** Addresses in this range known to hold code at its last block. */
  contracts: Set<Address>;
  /** The range's token transfers, decoded once for the reads here and the rows of the transform. */
  tokenTransfers: RangeTransfers;
  /** The tokens that move in the range. */
  tokenCandidates: Map<Address, TokenCandidate>;
  /** What was read of them ahead of writing, at block `to` (see attachTokens). */
  tokenReadings: TokenReadings;
  /** Proxies created, upgraded or delegated in the range, read at the block of each event (see detectProxies). */
  proxies: ProxyDetection[];
};

export type FetchRangeReturnType = FetchedRange;

/**
 * The node no longer keeps what indexing a block needs: its transactions or receipts (pruned history), or
 * the state to trace it (a full node keeps the last 128 blocks' state). Asking again gets the same answer,
 * so the indexer stops with what the user can change.
 */
export class HistoryUnavailableError extends BaseError {
  override name = "HistoryUnavailableError";
  override readonly isUserError = true;
  /** The block the node failed, or the range's first block when the call named a hash. */
  readonly block: bigint;

  constructor(block: bigint, cause: RpcResponseError) {
    const traced = /trace/i.test(cause.method);
    super(
      traced
        ? `the node keeps no state to trace block ${block}: index from an archive node, start at a later block (--from or FIRST_BLOCK, into an empty database), or index without internal transactions (--tracer none or SEXTANT_TRACER=none)`
        : `the node no longer keeps block ${block}'s transactions or receipts (pruned history): index from a node that keeps all history, or start at a later block (--from or FIRST_BLOCK, into an empty database)`,
      { details: cause.shortMessage, cause },
    );
    this.block = block;
  }
}

/**
 * Fetches blocks `from..to` with their transactions, receipts and logs, checks every answer against
 * its block (see validateRange) and asks the node which transaction targets and log emitters hold code.
 * @throws {RpcInvalidAnswerError} when the answers contradict each other: refetch, never store.
 * @throws {CallTracerIgnoredError} when `tracer` is callTracer and the node answers without running it.
 * @throws {HistoryUnavailableError} when the node says, try after try, that it no longer keeps a block's
 * history (see isHistoryUnavailable).
 */
export async function fetchRange(
  client: RpcClient,
  parameters: FetchRangeParameters,
): Promise<FetchRangeReturnType> {
  for (let failures = 0; ; failures++) {
    try {
      return await fetchWholeRange(client, parameters);
    } catch (error) {
      if (!isHistoryUnavailable(error)) throw error;
      // Behind a load balancer that mixes archive and full nodes, another try may reach one that keeps the
      // history: only a node that answers so every time is taken at its word.
      if (failures + 1 < historyAttempts) {
        await sleep(historyRetryDelayMs * 2 ** failures);
        continue;
      }
      const [named] = error.params ?? [];
      // Calls by hash (a transaction's receipt, a block traced again by hash) name no number.
      const byNumber = typeof named === "string" && /^0x[0-9a-f]{1,16}$/i.test(named);
      throw new HistoryUnavailableError(byNumber ? BigInt(named) : parameters.from, error);
    }
  }
}

/** Tries of a range whose history the node says it lacks, 100 ms apart and then twice as long each time. */
const historyAttempts = 5;
const historyRetryDelayMs = 100;

async function fetchWholeRange(
  client: RpcClient,
  {
    from,
    to,
    tracer = "none",
    traceTimeout,
    knownContracts = new Set(),
    describedTokens = new Set(),
    wrappingContracts,
  }: FetchRangeParameters,
): Promise<FetchRangeReturnType> {
  const numbers: bigint[] = [];
  for (let n = from; n <= to; n++) numbers.push(n);
  // Blocks and receipts are asked for at once, by number; validateRange then proves they belong together.
  const [maybeBlocks, maybeReceipts, tracesByNumber] = await Promise.all([
    eth_getBlockByNumber(client, { blocks: numbers }),
    withoutBlockReceipts.has(client) ? null : receiptsByNumber(client, numbers),
    tracer === "callTracer"
      ? unnamedTraces.get(client) === "hash"
        ? null
        : debug_traceBlockByNumber(client, { blocks: numbers, timeout: traceTimeout })
      : tracer === "parity"
        ? trace_block(client, { blocks: numbers })
        : null,
  ]);
  const receiptLists = maybeReceipts ?? (await receiptsPerTransaction(client, maybeBlocks));
  const { blocks, receipts } = validateRange({ from, to, blocks: maybeBlocks, receipts: receiptLists });
  const { parentHash } = required(blocks[0], `block ${from}`);
  const toHash = required(blocks.at(-1)?.hash, `block ${to}`);
  const at = { number: to, hash: toHash };
  const traces =
    tracer === "callTracer"
      ? await callTracesOf(client, blocks, tracesByNumber as CallTracerResult[][] | null, traceTimeout)
      : tracesByNumber;
  const internalTransactions = traces && mapTraces(tracer, blocks, receipts, traces);

  const contracts = new Set<Address>();
  // Addresses whose code at the range's last block decides.
  const unknown = new Set<Address>();
  // Of those, what is taken as a contract when the node cannot be asked: log emitters run code, but an
  // EIP-7702 account runs its delegate's; a creation before Byzantium has no status in its receipt.
  const likelyContracts = new Set<Address>();
  for (const frame of internalTransactions?.flat(2) ?? []) {
    if (frame.createdContract && frame.error === null) contracts.add(frame.createdContract);
  }
  receipts.forEach((blockReceipts, b) => {
    blockReceipts.forEach((receipt, t) => {
      const created = receipt.contractAddress && lower(receipt.contractAddress);
      // Without a status, a trace tells (its successful creation is among the frames above).
      const traced = internalTransactions?.[b]?.[t] !== undefined;
      if (created && receipt.status == null && !traced) likelyContracts.add(created);
      else if (created && receipt.status != null && Number(receipt.status) === 1) contracts.add(created);
      for (const log of receipt.logs) likelyContracts.add(lower(log.address));
    });
  });
  for (const address of likelyContracts) unknown.add(address);
  for (const transaction of blocks.flatMap((block) => block.transactions)) {
    if (transaction.to && transaction.input.length > 2) unknown.add(lower(transaction.to));
  }
  for (const address of [...unknown]) {
    if (contracts.has(address) || knownContracts.has(address)) {
      unknown.delete(address);
      contracts.add(address);
    }
  }
  if (unknown.size > 0 && !withoutCode.has(client)) {
    const addresses = [...unknown];
    try {
      const codes = await eth_getCode(client, { addresses, block: at });
      addresses.forEach((address, i) => {
        if (holdsContractCode(codes[i])) contracts.add(address);
      });
    } catch (error) {
      if (!isMethodNotSupported(error)) throw error;
      withoutCode.add(client);
    }
  }
  // Some providers refuse eth_getCode; contracts are then known from creations and logs only.
  if (withoutCode.has(client)) for (const address of likelyContracts) contracts.add(address);
  const { transfers: tokenTransfers, candidates: tokenCandidates } = tokenCandidatesOf(blocks, receipts, {
    wrappingContracts,
  });
  const reads = [...tokenCandidates]
    .filter(([address, candidate]) => !describedTokens.has(address) || candidate.supplyChanged)
    .map(([address]) => ({ address, describe: !describedTokens.has(address) }));
  const [tokenReadings, proxies] = await Promise.all([
    readTokenMetadata(client, { block: at, tokens: reads }),
    detectProxies(client, { blocks, receipts, internalTransactions }),
  ]);
  // Only what a range read in full is known: a read that fails (the node left the block) fetches again.
  for (const address of contracts) knownContracts.add(address);
  for (const read of reads) describedTokens.add(read.address);
  return {
    from,
    to,
    parentHash,
    toHash,
    blocks,
    receipts,
    internalTransactions,
    contracts,
    tokenTransfers,
    tokenCandidates,
    tokenReadings,
    proxies,
  };
}

/**
 * Checks each block's traces belong to its transactions, then maps them to rows.
 * @throws {RpcInvalidAnswerError} when a trace names another block or transaction: refetch.
 */
function mapTraces(
  tracer: Tracer,
  blocks: RpcFullBlock[],
  receipts: RpcReceipt[][],
  traces: CallTracerResult[][] | ParityTrace[][],
): InternalTransaction[][][] {
  return rangeBlocks({ blocks, receipts }).map(({ block, transactions: paired }, b) => {
    const transactions = paired.map(transactionContextOf);
    const blockTraces = traces[b] ?? [];
    // callTracer results are checked where they are parsed, which recorded traces without their block share.
    if (tracer === "callTracer") return mapCallTracerBlock(blockTraces as CallTracerResult[], transactions);
    const entries = blockTraces as ParityTrace[];
    const foreign = entries.find(
      (entry) =>
        (entry.blockHash && entry.blockHash !== block.hash) ||
        (entry.transactionHash != null &&
          transactions[entry.transactionPosition ?? -1]?.hash !== entry.transactionHash),
    );
    if (foreign)
      throw new RpcInvalidAnswerError(
        `block ${block.number}: a trace of ${foreign.transactionHash} does not belong to it`,
      );
    return mapParityBlock(entries, transactions);
  });
}

/**
 * How a node's callTracer answers that name no transaction (see namedTransaction) are tied to their block:
 * `hash`, every block traced by hash; `count`, the node refuses that, so answers by number are checked by
 * count only. A node that names its transactions has no entry.
 */
const unnamedTraces = new WeakMap<RpcClient, "hash" | "count">();

/**
 * The callTracer results of each block, each tied to its block. An answer by number that names every
 * transaction (`txHash`) is checked against them in mapCallTracerBlock, which ties it to the block's
 * transactions (a sibling block with the very same transactions would pass). One that leaves the hashes
 * out could be another fork's block of the same height and transaction count (a load balancer's backend
 * on another fork), so its blocks are traced again by hash, and that node's later ranges by hash only.
 * A node that refuses the hash goes back to answers by number, checked by count only.
 *
 * @param byNumber - The answers by number, or null when the node is traced by hash only.
 * @param timeout - How long the node may trace one transaction (see FetchRangeParameters.traceTimeout).
 * @throws {RpcInvalidAnswerError} when an answer by hash does not trace every transaction, or a node
 *   traced by hash only refuses it: refetch.
 * @throws {CallTracerIgnoredError} when an answer shows the node did not run callTracer.
 */
async function callTracesOf(
  client: RpcClient,
  blocks: RpcFullBlock[],
  byNumber: CallTracerResult[][] | null,
  timeout: string | undefined,
): Promise<CallTracerResult[][]> {
  if (byNumber !== null) callTracerRan(blocks, byNumber);
  const unnamed = blocks.flatMap((block, b) =>
    block.transactions.length > 0 &&
    (byNumber === null || byNumber[b]?.some((result) => !namedTransaction(result)))
      ? [{ b, block }]
      : [],
  );
  const traces = byNumber ?? blocks.map(() => []);
  if (unnamed.length === 0 || (byNumber !== null && unnamedTraces.get(client) === "count")) return traces;
  let byHash: CallTracerResult[][];
  try {
    byHash = await debug_traceBlockByHash(client, {
      hashes: unnamed.map(({ block }) => block.hash),
      timeout,
    });
  } catch (error) {
    // Refused, as chooseTracer tells a tracer the node does not offer; a block it has no state for is no
    // refusal of the method.
    if (!(error instanceof RpcError) || error.retryable || isHistoryUnavailable(error)) throw error;
    unnamedTraces.set(client, "count");
    if (byNumber === null)
      throw new RpcInvalidAnswerError(`${error.shortMessage}: the range is fetched again, traced by number`);
    return byNumber;
  }
  callTracerRan(
    unnamed.map(({ block }) => block),
    byHash,
  );
  unnamed.forEach(({ b, block }, i) => {
    const results = byHash[i];
    if (results?.length !== block.transactions.length)
      throw new RpcInvalidAnswerError(
        `block ${block.number}: debug_traceBlockByHash traced ${results?.length ?? 0} of its ${block.transactions.length} transactions`,
      );
    traces[b] = results;
  });
  unnamedTraces.set(client, "hash");
  return traces;
}

/**
 * Checks the node ran callTracer for each block.
 * @throws {CallTracerIgnoredError} when an answer shows it did not (see ignoresCallTracer).
 */
function callTracerRan(blocks: RpcFullBlock[], answers: unknown[]): void {
  blocks.forEach((block, b) => {
    const answer = answers[b];
    if (ignoresCallTracer(answer)) throw new CallTracerIgnoredError(BigInt(block.number), answer);
  });
}

const withoutCode = new WeakSet<RpcClient>();
const withoutBlockReceipts = new WeakSet<RpcClient>();

/** `eth_getBlockReceipts` for every block, or null (remembered) when the node lacks the method. */
async function receiptsByNumber(
  client: RpcClient,
  numbers: bigint[],
): Promise<(RpcReceipt[] | null)[] | null> {
  try {
    return await eth_getBlockReceipts(client, { blocks: numbers });
  } catch (error) {
    if (!isMethodNotSupported(error)) throw error;
    withoutBlockReceipts.add(client);
    return null;
  }
}

/**
 * One `eth_getTransactionReceipt` per transaction, grouped back into blocks, for nodes without block receipts.
 * @throws {RpcInvalidAnswerError} when the node has no receipt for a transaction: refetch.
 */
async function receiptsPerTransaction(
  client: RpcClient,
  blocks: (RpcFullBlock | null)[],
): Promise<RpcReceipt[][]> {
  const hashes = blocks.flatMap((block) => block?.transactions.map((transaction) => transaction.hash) ?? []);
  const flat = await eth_getTransactionReceipt(client, { hashes });
  const missing = hashes.filter((_, i) => flat[i] === null);
  // A lagging backend answers so for a moment; a node that stopped indexing old transactions, for good.
  if (missing.length > 0)
    throw new RpcInvalidAnswerError(
      `eth_getTransactionReceipt has no receipt for ${missing.length} of ${hashes.length} transactions (${missing[0]} first); a node without eth_getBlockReceipts must index every transaction it serves (geth: --history.transactions=0, formerly --txlookuplimit=0)`,
    );
  let offset = 0;
  return blocks.map((block) => {
    const count = block?.transactions.length ?? 0;
    const own = flat.slice(offset, offset + count);
    offset += count;
    return own as RpcReceipt[];
  });
}

/** EIP-7702 delegation designators (`0xef0100` + address) give an account code without making it a contract. */
function holdsContractCode(code: string | null | undefined): boolean {
  return !!code && code !== "0x" && !(code.startsWith("0xef0100") && code.length === 48);
}

function lower(address: string): Address {
  return address.toLowerCase() as Address;
}
