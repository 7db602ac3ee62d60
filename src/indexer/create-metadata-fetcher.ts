import type { BlockList } from "node:net";
import { decodeFunctionResult, encodeFunctionData, type Hex } from "viem";
import type { Database } from "../db/client.ts";
import {
  deferInstanceMetadata,
  readUnfetchedInstances,
  storeInstanceMetadata,
  type UnfetchedInstance,
} from "../db/token-instances.ts";
import { BaseError } from "../errors.ts";
import type { Logger } from "../logger.ts";
import { required } from "../required.ts";
import { retry } from "../retry.ts";
import type { RpcCall, RpcClient } from "../rpc/client.ts";
import { isMethodNotSupported, RpcResponseError, RpcTimeoutError } from "../rpc/errors.ts";
import { eth_blockNumber } from "../rpc/eth_blockNumber.ts";
import { isContractFailure } from "../rpc/eth_call.ts";
import { anySignal } from "../signals.ts";
import { sleep } from "../sleep.ts";
import {
  defaultIpfsGateway,
  type FetchTokenMetadataParameters,
  type FetchTokenMetadataReturnType,
  fetchTokenMetadata,
} from "./fetch-token-metadata.ts";
import { retryForever } from "./retry.ts";

/** Parameters of {@link createMetadataFetcher}. */
export type CreateMetadataFetcherParameters = {
  db: Database;
  client: RpcClient;
  logger: Logger;
  /** Base URL of the IPFS HTTP gateway `ipfs://` URIs are fetched through. */
  ipfsGateway?: string;
  /** Instances whose metadata is fetched at once. */
  concurrency?: number;
  /** Longest wait for one HTTP answer, body included. */
  timeoutMs?: number;
  /** Largest metadata body read. */
  maxBytes?: number;
  /** Attempts after the first for failures that can pass: timeouts, 408, 429, 5xx, network errors. */
  retries?: number;
  /** Delay before the first retry; doubles with each further one. */
  retryDelayMs?: number;
  /**
   * Wait before an instance whose URI or metadata could not be had for a reason that can pass (the node
   * gave up on the call or the client on the node; a timeout, 408, 429 or 5xx still there once `retries`
   * are spent) is asked again in a later round; it doubles with each further such failure, up to
   * `maxLaterDelayMs`.
   */
  laterDelayMs?: number;
  maxLaterDelayMs?: number;
  /** Such failures of one instance before the last one is recorded as its error. */
  laterAttempts?: number;
  /** Instances taken from the database per round. */
  batchSize?: number;
  /**
   * Wait between rounds when nothing is left to fetch, or after a round that failed for a reason that
   * does not pass (a node or a database that is away is waited for as the indexer waits for it).
   */
  pollIntervalMs?: number;
  /** The fetch implementation (tests); see fetchTokenMetadata. */
  fetch?: FetchTokenMetadataParameters["fetch"];
  /** Addresses token URIs may not lead to: the reserved ranges when absent, none with null (see fetchTokenMetadata). */
  refused?: BlockList | null;
};

/** Return type of {@link createMetadataFetcher}. */
export type CreateMetadataFetcherReturnType = {
  /**
   * Fetches one batch of instances without metadata and returns how many were stored; `signal` stops the
   * fetches and cuts the waits between retries short. It settles once all of its work has: a failure
   * stops the round's other fetches and is thrown after them.
   */
  runOnce(signal?: AbortSignal): Promise<number>;
  /** Repeats `runOnce`, resting when nothing is left, until `signal` aborts. */
  run(signal: AbortSignal): Promise<void>;
};

const tokenUriAbi = [
  {
    type: "function",
    name: "tokenURI",
    stateMutability: "view",
    inputs: [{ name: "tokenId", type: "uint256" }],
    outputs: [{ name: "", type: "string" }],
  },
  {
    type: "function",
    name: "uri",
    stateMutability: "view",
    inputs: [{ name: "id", type: "uint256" }],
    outputs: [{ name: "", type: "string" }],
  },
] as const;

// Blockscout cuts stored errors at 255 characters; a node's revert text can be long.
const maxErrorLength = 255;

type PendingInstance = UnfetchedInstance;

/**
 * A metadata fetch that failed in a way that can pass (a timeout, 408, 429, 5xx, the network), so it is
 * retried.
 */
class MetadataUnavailableError extends BaseError {
  override name = "MetadataUnavailableError";
  override readonly retryable = true;
}

/** The URI, or why there is none: for good (`error`), or for now (`transient`, asked again later). */
type UriResult = { uri: string } | { error: string } | { transient: string };

type InstanceUri = { instance: PendingInstance; uri: UriResult };

type Outcome = { tokenUri: string | null } & ({ metadata: Record<string, unknown> } | { error: string });

/**
 * Creates the background NFT metadata fetcher. Each round takes the oldest token instances whose
 * metadata was never fetched, asks their contracts for the URI (`uri(id)` for ERC-1155, `tokenURI(id)`
 * otherwise) in one JSON-RPC batch, fetches the metadata with bounded concurrency (retrying failures
 * that can pass), and stores per instance the URI and either the metadata or the reason it could not
 * be had. An instance is fetched once: a recorded error is final, as Blockscout records it. A failure
 * that can pass (the `eth_call` or the metadata's server timed out, a 408, 429 or 5xx) records nothing:
 * the instance is asked again in a later round, and only after `laterAttempts` such failures is the last
 * one recorded.
 *
 * A call that failed counts against its instance only if the node answers another one after it. When
 * the node itself is unreachable, answers nothing or answers every call with an error (a rate limit),
 * the round fails and nothing is recorded or counted, so an outage never turns into a pile of stored
 * errors nor defers the instances; `run` waits for the node and tries again.
 *
 * @example
 * const fetcher = createMetadataFetcher({ db, client, logger, ipfsGateway: "https://ipfs.io/ipfs/" });
 * const controller = new AbortController();
 * const running = fetcher.run(controller.signal);
 * // ...
 * controller.abort();
 * await running;
 */
export function createMetadataFetcher({
  db,
  client,
  logger,
  ipfsGateway = defaultIpfsGateway,
  concurrency = 4,
  timeoutMs = 5_000,
  maxBytes = 1_000_000,
  retries = 2,
  retryDelayMs = 1_000,
  laterDelayMs = 60_000,
  maxLaterDelayMs = 6 * 3_600_000,
  laterAttempts = 10,
  batchSize = 50,
  pollIntervalMs = 2_000,
  fetch: fetchImpl,
  refused,
}: CreateMetadataFetcherParameters): CreateMetadataFetcherReturnType {
  async function readUris(instances: PendingInstance[]): Promise<InstanceUri[]> {
    let answers: (Hex | RpcResponseError)[];
    try {
      // A contract's own failure is its instance's answer; a call the node gave up on is asked again.
      answers = await client.batchAccepting<Hex>(instances.map(uriCallOf), isFinalCallError);
    } catch (error) {
      // A call the node still gives up on, or one so slow the client stops waiting for the batch, fails
      // the whole batch; asking one by one tells which. A node out of reach fails the round instead, and
      // so does one that answers nothing at all, found out at once: each call sent to it alone would
      // wait out the client's timeout, to no end.
      if (!isAboutOneCall(error)) throw error;
      // Asked first too: a node back from an outage between a call's failure and the probe after it would
      // have its outage held against the instance. Answering before the calls, it answered them as well.
      await nodeAnswers();
      const uris = await allOrFirstFailure(
        instances.map(async (instance) => {
          const { method, params } = uriCallOf(instance);
          try {
            return { instance, uri: decodeUri(instance, await client.request<Hex>(method, params)) };
          } catch (error) {
            if (isAboutOneCall(error)) return { instance, uri: describeCallError(instance, error) };
            throw error;
          }
        }),
      );
      // The node may have stopped answering since: a call's failure is held against its instance only
      // while the node answers others.
      if (uris.some(({ uri }) => "transient" in uri)) await nodeAnswers();
      return uris;
    }
    return instances.map((instance, i) => {
      const answer = required(answers[i], `the URI answer for ${instance.address}`);
      return {
        instance,
        uri:
          answer instanceof RpcResponseError
            ? describeCallError(instance, answer)
            : decodeUri(instance, answer),
      };
    });
  }

  /**
   * Throws unless the node answers a call every node answers at once. A node that is away fails the
   * probe as it failed the calls (no answer, a refused connection, a 5xx, a rate limit); one that is
   * there answers, and the calls that failed are their contracts' doing.
   */
  async function nodeAnswers(): Promise<void> {
    await eth_blockNumber(client);
  }

  async function fetchWithRetries(
    uri: string,
    instance: PendingInstance,
    signal: AbortSignal,
  ): Promise<FetchTokenMetadataReturnType> {
    try {
      return await retry(
        async () => {
          const result = await fetchTokenMetadata(uri, {
            ipfsGateway,
            timeoutMs,
            maxBytes,
            // ERC-1155 alone defines the `{id}` placeholder.
            tokenId: instance.type === "ERC-1155" ? instance.tokenId : undefined,
            fetch: fetchImpl,
            refused,
            signal,
          });
          if ("error" in result && result.retryable) throw new MetadataUnavailableError(result.error);
          return result;
        },
        { attempts: retries + 1, delayMs: retryDelayMs, signal },
      );
    } catch (error) {
      // Still failing once the retries are spent: left to a later round.
      if (error instanceof MetadataUnavailableError) return { error: error.shortMessage, retryable: true };
      throw error;
    }
  }

  async function store(instance: PendingInstance, outcome: Outcome): Promise<void> {
    await storeInstanceMetadata(db, {
      address: instance.address,
      tokenId: instance.tokenId,
      tokenUri: outcome.tokenUri?.replaceAll("\0", "") ?? null,
      metadataJson: "metadata" in outcome ? JSON.stringify(storable(outcome.metadata)) : null,
      error: "error" in outcome ? truncate(outcome.error.replaceAll("\0", "")) : null,
    });
  }

  async function runOnce(signal?: AbortSignal): Promise<number> {
    const instances = await readUnfetchedInstances(db, batchSize);
    if (instances.length === 0) return 0;
    let failed = 0;
    let deferred = 0;
    const uris = await readUris(instances);
    await forEachBounded(uris, concurrency, signal, async ({ instance, uri }, roundSignal) => {
      let outcome: Outcome | { tokenUri: string | null; transient: string };
      if ("transient" in uri) outcome = { tokenUri: null, transient: uri.transient };
      else if ("error" in uri) outcome = { tokenUri: null, error: uri.error };
      else {
        const result = await fetchWithRetries(uri.uri, instance, roundSignal);
        if ("metadata" in result) outcome = { tokenUri: uri.uri, metadata: result.metadata };
        // Still a timeout, 408, 429 or 5xx once this round's retries are spent: a later round may get it.
        else if (result.retryable) outcome = { tokenUri: uri.uri, transient: result.error };
        else outcome = { tokenUri: uri.uri, error: result.error };
      }
      if ("transient" in outcome) {
        if (instance.attempts + 1 < laterAttempts) {
          const delayMs = Math.min(maxLaterDelayMs, laterDelayMs * 2 ** instance.attempts);
          await deferInstanceMetadata(db, { address: instance.address, tokenId: instance.tokenId, delayMs });
          deferred++;
          return;
        }
        outcome = { tokenUri: outcome.tokenUri, error: outcome.transient };
      }
      if ("error" in outcome) failed++;
      await store(instance, outcome);
    });
    logger.debug({ instances: instances.length, failed, deferred }, "fetched NFT metadata");
    return instances.length;
  }

  return {
    runOnce,
    async run(signal) {
      while (!signal.aborted) {
        let processed = 0;
        try {
          // A node or a database that is away is waited for with growing pauses, logged once and then
          // now and then, as the indexer waits for it; anything else ends the round, to be tried later.
          processed = await retryForever(() => runOnce(signal), { what: "NFT metadata", logger, signal });
        } catch (error) {
          if (signal.aborted) return;
          const message = error instanceof BaseError ? error.shortMessage : (error as Error).message;
          logger.warn({ error: message }, "NFT metadata round failed, retrying later");
        }
        if (processed > 0) continue;
        try {
          await sleep(pollIntervalMs, signal);
        } catch {
          return;
        }
      }
    },
  };
}

/** The `eth_call` asking an instance's contract for its URI. */
function uriCallOf({ address, type, tokenId }: PendingInstance): RpcCall {
  const data = encodeFunctionData({ abi: tokenUriAbi, functionName: uriFunction(type), args: [tokenId] });
  return { method: "eth_call", params: [{ to: address, data }, "latest"] };
}

function uriFunction(type: string): "uri" | "tokenURI" {
  return type === "ERC-1155" ? "uri" : "tokenURI";
}

function decodeUri(instance: PendingInstance, answer: Hex): UriResult {
  const functionName = uriFunction(instance.type);
  try {
    const uri = decodeFunctionResult({ abi: tokenUriAbi, functionName, data: answer });
    return uri.trim() === "" ? { error: "no uri" } : { uri };
  } catch {
    // No code at the address, or a function answering something that is not a string.
    return { error: `${functionName} returned no string` };
  }
}

/**
 * An `eth_call` error that is the instance's answer for good: the contract failed (reverted, ran out of
 * gas, ...) or the node offers no `eth_call`.
 */
function isFinalCallError(error: RpcResponseError): boolean {
  return isContractFailure(error) || isMethodNotSupported(error) || !error.retryable;
}

/**
 * A failure of one call rather than of the node: an error object in its place, or no answer in time (a
 * node may take long over one contract's call and be quick with every other).
 */
function isAboutOneCall(error: unknown): error is RpcResponseError | RpcTimeoutError {
  return error instanceof RpcResponseError || error instanceof RpcTimeoutError;
}

function describeCallError(instance: PendingInstance, error: RpcResponseError | RpcTimeoutError): UriResult {
  const functionName = uriFunction(instance.type);
  if (error instanceof RpcTimeoutError) return { transient: `${functionName} timed out` };
  if (error.code === 3 || /revert/i.test(error.nodeMessage)) return { error: `${functionName} reverted` };
  // "execution aborted (timeout = 5s)", a busy node's internal error: another call may well answer.
  if (!isFinalCallError(error)) return { transient: `${functionName} failed: ${error.nodeMessage}` };
  return { error: `${functionName} failed: ${error.nodeMessage}` };
}

function truncate(text: string): string {
  return text.length > maxErrorLength ? `${text.slice(0, maxErrorLength - 3)}...` : text;
}

// A surrogate without its pair: JSON.parse makes one of an escape such as "\ud800".
const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * PostgreSQL's jsonb refuses U+0000 and a lone surrogate (JSON.stringify writes it as an escape that
 * jsonb rejects), both of which hostile or sloppy metadata may contain: U+0000 is dropped, a lone
 * surrogate becomes U+FFFD, as a UTF-8 decoder turns bytes that are no text into it.
 */
function storableText(text: string): string {
  return text.replaceAll("\0", "").replace(loneSurrogate, "\uFFFD");
}

function storable(value: unknown): unknown {
  if (typeof value === "string") return storableText(value);
  if (Array.isArray(value)) return value.map(storable);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [storableText(key), storable(item)]),
    );
  }
  return value;
}

/**
 * Runs `work` on every item with at most `limit` running at once, until `signal` aborts. The first
 * failure aborts the signal `work` is given and is thrown once every run has settled: a round that
 * failed has nothing left running when the next one reads the same instances again.
 */
async function forEachBounded<T>(
  items: T[],
  limit: number,
  signal: AbortSignal | undefined,
  work: (item: T, signal: AbortSignal) => Promise<void>,
): Promise<void> {
  const failed = new AbortController();
  const { signal: stop, dispose } = anySignal([signal, failed.signal]);
  let failure: { error: unknown } | undefined;
  // The workers share one iterator, so each takes the next item not yet taken.
  const queue = items.values();
  const worker = async () => {
    try {
      for (const item of queue) {
        stop.throwIfAborted();
        await work(item, stop);
      }
    } catch (error) {
      failure ??= { error };
      failed.abort(error);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker)).finally(dispose);
  if (failure) throw failure.error;
}

/** The values of all `tasks` in order, or, once every one has settled, the first failure among them. */
async function allOrFirstFailure<T>(tasks: Promise<T>[]): Promise<T[]> {
  const settled = await Promise.allSettled(tasks);
  const failure = settled.find((outcome) => outcome.status === "rejected");
  if (failure) throw failure.reason;
  return settled.map((outcome) => (outcome as PromiseFulfilledResult<T>).value);
}
