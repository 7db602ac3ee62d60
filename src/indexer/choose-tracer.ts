import { BaseError } from "../errors.ts";
import type { RpcClient } from "../rpc/client.ts";
import { debug_traceBlockByNumber } from "../rpc/debug_traceBlockByNumber.ts";
import { isHistoryUnavailable, RpcError } from "../rpc/errors.ts";
import { trace_block } from "../rpc/trace_block.ts";
import { web3_clientVersion } from "../rpc/web3_clientVersion.ts";

/** Where internal transactions come from: geth's callTracer, Parity's trace_block, or nowhere. */
export type Tracer = "callTracer" | "parity" | "none";

export type ChooseTracerParameters = {
  /** `auto` asks the node; anything else is taken as configured. */
  configured: Tracer | "auto";
  /** A block to try the tracers on; one with transactions shows whether the node runs callTracer. */
  probeBlock: bigint;
};

/**
 * Picks the tracer the node offers. anvil gets `trace_block`: its `debug_traceBlockByNumber` costs grow
 * with the square of a block's transaction count. Other nodes get callTracer when they run it, else
 * Parity traces, else none (internal transactions are then recorded as missing, not as absent).
 */
export async function chooseTracer(
  client: RpcClient,
  { configured, probeBlock }: ChooseTracerParameters,
): Promise<Tracer> {
  if (configured !== "auto") return configured;
  // A node without web3_clientVersion is simply not anvil; a passing fault is the caller's to retry.
  const version = await web3_clientVersion(client).catch((error) => {
    if (error instanceof RpcError && !error.retryable) return "";
    throw error;
  });
  const candidates: Tracer[] = /anvil/i.test(version) ? ["parity", "callTracer"] : ["callTracer", "parity"];
  for (const tracer of candidates) {
    try {
      if (tracer === "parity") await trace_block(client, { blocks: [probeBlock] });
      else {
        const [answer] = await debug_traceBlockByNumber(client, { blocks: [probeBlock] });
        // A node that answers without running callTracer does not offer it either.
        if (ignoresCallTracer(answer)) continue;
      }
      return tracer;
    } catch (error) {
      // A node without the probe block's state may well run the tracer on the blocks it keeps.
      if (!(error instanceof RpcError) || error.retryable || isHistoryUnavailable(error)) throw error;
    }
  }
  return "none";
}

/** How a node says, for each transaction, that it has no tracer of the name asked for. */
const tracerMissing = /tracer not found|unknown tracer/i;

/**
 * Whether a block's `debug_traceBlockBy*` answer shows the node did not run callTracer: an entry holds
 * struct logs (a node that ignores the `tracer` option: Besu before its 2025 tracer support sends bare
 * `{ gas, failed, returnValue, structLogs }` objects) or says the tracer is missing (some Erigon forks answer
 * each transaction with "tracer not found"). Anything else (call frames, a transaction that could not be
 * traced, a missing answer) is for the caller to check or ask again.
 */
export function ignoresCallTracer(answer: unknown): boolean {
  return Array.isArray(answer) && answer.some(showsNoCallTracer);
}

function showsNoCallTracer(entry: unknown): boolean {
  if (typeof entry !== "object" || entry === null) return false;
  const { result, error, structLogs } = entry as { result?: unknown; error?: unknown; structLogs?: unknown };
  if (structLogs !== undefined) return true;
  if (typeof result === "object" && result !== null && "structLogs" in result) return true;
  const message = typeof error === "string" ? error : (error as { message?: unknown } | undefined)?.message;
  return typeof message === "string" && tracerMissing.test(message);
}

/**
 * The node answered `debug_traceBlockBy*` for a block with transactions without running callTracer (see
 * ignoresCallTracer). Asking again gets the same answer; the indexer chooses its tracer again when it
 * chose this one itself, and stops when it was configured.
 */
export class CallTracerIgnoredError extends BaseError {
  override name = "CallTracerIgnoredError";
  override readonly isUserError = true;
  /** The block whose answer showed it, a probe for choosing again. */
  readonly block: bigint;

  constructor(block: bigint, answer: unknown) {
    super(
      `the node does not run callTracer: its trace of block ${block} holds struct logs or names no such tracer; set SEXTANT_TRACER to parity or none`,
      // The fields of an entry, not the entry: struct logs run to megabytes.
      { details: `first entry's fields: ${Object.keys((answer as object[])[0] ?? {}).join(", ")}` },
    );
    this.block = block;
  }
}
