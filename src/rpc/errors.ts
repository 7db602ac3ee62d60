import { BaseError } from "../errors.ts";

/** Any failure to get an answer from the node; each kind says whether asking again can help. */
export class RpcError extends BaseError {
  override name = "RpcError";
}

/** The connection failed, was reset, or the node answered with something that is not JSON-RPC. */
export class RpcTransportError extends RpcError {
  override name = "RpcTransportError";
  override readonly retryable = true;
}

/** The request took longer than the configured timeout. */
export class RpcTimeoutError extends RpcError {
  override name = "RpcTimeoutError";
  override readonly retryable = true;
}

export type RpcHttpErrorParameters = {
  status: number;
  body: string;
  /** The answer's `Retry-After` header: seconds, or an HTTP date. */
  retryAfter?: string | null;
};

/**
 * The longest `Retry-After` obeyed: a provider asking for an hour still gets asked again each minute, so
 * the indexer notices its return without a restart.
 */
const longestRetryAfterMs = 60_000;

/** The node answered with an HTTP error; 408, 429 and 5xx are worth retrying, the rest are not. */
export class RpcHttpError extends RpcError {
  override name = "RpcHttpError";
  override readonly retryable: boolean;
  readonly status: number;

  constructor({ status, body, retryAfter }: RpcHttpErrorParameters) {
    const asked = retryAfter ? millisecondsUntilRetry(retryAfter) : undefined;
    super(`node answered HTTP ${status}`, {
      details: body.slice(0, 300),
      retryAfterMs: asked === undefined ? undefined : Math.min(asked, longestRetryAfterMs),
    });
    this.status = status;
    this.retryable = status === 408 || status === 429 || status >= 500;
  }
}

/** A `Retry-After` value in milliseconds from now, or undefined when it is neither form RFC 9110 allows. */
function millisecondsUntilRetry(value: string): number | undefined {
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/**
 * JSON-RPC codes that say the request itself is wrong, so asking again gets the same answer: parse
 * error, invalid request, invalid params, EIP-1474's "transaction rejected", and "execution reverted".
 */
const requestErrorCodes = new Set([-32700, -32600, -32602, -32003, 3]);

/**
 * How nodes and providers say they do not offer a method or feature (geth: "tracer not found" for a tracer
 * it lacks). A bare "not found" is not one of them: geth's "header not found" means the block is not there
 * yet.
 */
const refusalWording =
  /does not exist|not (supported|enabled|whitelisted|allowed)|unsupported|(method|tracer)\b[^.]*\bnot (found|available)/i;

function refusesMethod({ code, message }: { code: number; message: string }): boolean {
  return code === -32601 || code === -32004 || refusalWording.test(message);
}

export type RpcResponseErrorParameters = {
  method: string;
  /** The call's parameters, so that a caller can tell which of a batch's calls failed. */
  params?: unknown[];
  code: number;
  message: string;
  data?: unknown;
};

/**
 * The node answered the call with a JSON-RPC error object. It is retryable unless the request is wrong
 * (invalid params, reverted), the node does not offer the method (see isMethodNotSupported) or it no
 * longer keeps the block's history (see isHistoryUnavailable).
 */
export class RpcResponseError extends RpcError {
  override name = "RpcResponseError";
  override readonly retryable: boolean;
  readonly code: number;
  readonly method: string;
  readonly params: unknown[] | undefined;
  /** The node's own words, without the method and code. */
  readonly nodeMessage: string;

  constructor({ method, params, code, message, data }: RpcResponseErrorParameters) {
    super(`${method} failed: ${message} (code ${code})`, {
      details: data === undefined ? undefined : JSON.stringify(data).slice(0, 300),
    });
    this.code = code;
    this.method = method;
    this.params = params;
    this.nodeMessage = message;
    // Nodes answer a call they could serve a moment later with an error object: "header not found" from a
    // backend behind the announced head, -32603 under load, -32005 "limit exceeded". Only a wrong request,
    // a method the node lacks or history it dropped gets the same answer every time.
    this.retryable =
      !requestErrorCodes.has(code) &&
      !refusesMethod({ code, message }) &&
      !historyGone({ method, code, message });
  }
}

/**
 * How nodes say a batch asked for more than they answer at once: geth cuts a batch's answer past 25 MB
 * ("response too large", -32003), answers entries left when its write timeout passes with "request timed
 * out" (-32002), and refuses a batch of more calls than it takes with one "batch too large"; providers
 * word their limits on a batch's size or count alike.
 */
const batchTooLargeWording =
  /response too large|request timed out|batch (size )?(is )?too (large|big)|batch[^.]*\bexceed|too many (requests|calls)[^.]*batch/i;

/**
 * Whether `error`, the answer to a call sent in a batch, says the batch was too much to answer whole. Only
 * the node's own word counts: a batch the client stopped waiting for may as well be a node that hangs,
 * which smaller batches would only wait for many times over; a revert is the call's own failure.
 */
export function saysBatchTooLarge(error: unknown): boolean {
  if (error instanceof RpcHttpError) return error.status === 413;
  return (
    error instanceof RpcResponseError &&
    error.code !== 3 &&
    !/revert/i.test(error.nodeMessage) &&
    batchTooLargeWording.test(error.nodeMessage)
  );
}

/**
 * A batch the node could not answer whole (see `saysBatchTooLarge`): the client sends its calls again in
 * smaller batches rather than the same batch again.
 */
export class RpcBatchTooLargeError extends RpcError {
  override name = "RpcBatchTooLargeError";
}

/** The node answered, but with data that contradicts itself or the request; refetching may help. */
export class RpcInvalidAnswerError extends RpcError {
  override name = "RpcInvalidAnswerError";
  override readonly retryable = true;
}

/**
 * JSON-RPC's "method not found" family: the node does not offer this method at all, so the caller falls
 * back to another. Such errors are never retryable.
 */
export function isMethodNotSupported(error: unknown): boolean {
  return error instanceof RpcResponseError && refusesMethod({ code: error.code, message: error.nodeMessage });
}

/**
 * How nodes say they no longer keep the state of an old block: geth and its forks past their pruning
 * window ("missing trie node", "historical state ... is not available"), Erigon and Reth ("state not
 * available", "pruned"), anvil past its recent states ("BlockOutOfRangeError").
 */
const stateUnavailableWording =
  /missing trie node|historical state|state (is )?not available|state unavailable|prun(ed|ing)|BlockOutOfRange/i;

/** The node keeps no state for the block a read asked about; asking again at that block will not help. */
export function isStateUnavailable(error: unknown): boolean {
  return error instanceof RpcResponseError && stateUnavailableWording.test(error.nodeMessage);
}

/** Calls that need a block's body or receipts, which a node with pruned history (EIP-4444) has dropped. */
const blockMethods = new Set([
  "eth_getBlockByNumber",
  "eth_getBlockByHash",
  "eth_getBlockReceipts",
  "eth_getTransactionReceipt",
]);

/** Calls that replay a block, which need the state before it. */
const traceMethods = new Set(["debug_traceBlockByNumber", "debug_traceBlockByHash", "trace_block"]);

/** EIP-4444's code for a block whose body and receipts the node dropped (geth: "pruned history unavailable"). */
const prunedHistoryCode = 4444;

function historyGone({ method, code, message }: { method: string; code: number; message: string }): boolean {
  if (traceMethods.has(method)) return code === prunedHistoryCode || stateUnavailableWording.test(message);
  return blockMethods.has(method) && (code === prunedHistoryCode || /prun(ed|ing)/i.test(message));
}

/**
 * The node no longer keeps what a call about an old block needs, for good: the block's body or receipts
 * (pruned history, code 4444) or the state to trace it (a full node past its window: geth's "required
 * historical state unavailable", "missing trie node"). Only an archive node, or blocks the node keeps,
 * get another answer.
 */
export function isHistoryUnavailable(error: unknown): error is RpcResponseError {
  return (
    error instanceof RpcResponseError &&
    historyGone({ method: error.method, code: error.code, message: error.nodeMessage })
  );
}
