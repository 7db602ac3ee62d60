import type { RpcClient } from "../rpc/client.ts";
import { debug_traceBlockByNumber } from "../rpc/debug_traceBlockByNumber.ts";
import { RpcError } from "../rpc/errors.ts";
import { trace_block } from "../rpc/trace_block.ts";
import { web3_clientVersion } from "../rpc/web3_clientVersion.ts";

/** Where internal transactions come from: geth's callTracer, Parity's trace_block, or nowhere. */
export type Tracer = "callTracer" | "parity" | "none";

export type ChooseTracerParameters = {
  /** `auto` asks the node; anything else is taken as configured. */
  configured: Tracer | "auto";
  /** A block to try the tracers on. */
  probeBlock: bigint;
};

/**
 * Picks the tracer the node offers. anvil gets `trace_block`: its `debug_traceBlockByNumber` costs grow
 * with the square of a block's transaction count. Other nodes get callTracer when they answer it, else
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
      if (tracer === "callTracer") await debug_traceBlockByNumber(client, { blocks: [probeBlock] });
      else await trace_block(client, { blocks: [probeBlock] });
      return tracer;
    } catch (error) {
      if (!(error instanceof RpcError) || error.retryable) throw error;
    }
  }
  return "none";
}
