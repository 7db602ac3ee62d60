import type { Hex } from "viem";
import type { RpcClient } from "./client.ts";
import { toHexQuantity } from "./types.ts";

/** A call frame of geth's `callTracer`. */
export type CallFrame = {
  type: string;
  from: Hex;
  to?: Hex;
  value?: Hex;
  gas?: Hex;
  gasUsed?: Hex;
  input?: Hex;
  output?: Hex;
  error?: string;
  revertReason?: string;
  calls?: CallFrame[];
};

/** One transaction's trace; some nodes name no transaction (see namedTransaction in map-traces.ts). */
export type CallTracerResult = { txHash?: Hex; result: CallFrame };

export type DebugTraceBlockByNumberParameters = {
  blocks: bigint[];
  /** How long the node may trace one transaction (a Go duration, `"30s"`); the node's own limit without. */
  timeout?: string;
};
export type DebugTraceBlockByNumberReturnType = CallTracerResult[][];

/** The tracer's options, the same for every block-tracing method; see DebugTraceBlockByNumberParameters. */
export function callTracerOptions(timeout?: string): { tracer: "callTracer"; timeout?: string } {
  return timeout === undefined ? { tracer: "callTracer" } : { tracer: "callTracer", timeout };
}

/** Traces every transaction of each block with geth's `callTracer`, batched. */
export async function debug_traceBlockByNumber(
  client: RpcClient,
  { blocks, timeout }: DebugTraceBlockByNumberParameters,
): Promise<DebugTraceBlockByNumberReturnType> {
  return client.batch<CallTracerResult[]>(
    blocks.map((block) => ({
      method: "debug_traceBlockByNumber",
      params: [toHexQuantity(block), callTracerOptions(timeout)],
    })),
  );
}
