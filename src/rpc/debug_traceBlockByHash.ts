import type { Hash } from "viem";
import type { RpcClient } from "./client.ts";
import { type CallTracerResult, callTracerOptions } from "./debug_traceBlockByNumber.ts";

export type DebugTraceBlockByHashParameters = {
  hashes: Hash[];
  /** How long the node may trace one transaction (see DebugTraceBlockByNumberParameters). */
  timeout?: string;
};
export type DebugTraceBlockByHashReturnType = CallTracerResult[][];

/**
 * Traces every transaction of each block, named by its hash, with geth's `callTracer`, batched. The answer
 * is that very block's, whichever fork the node follows: a node that does not know the block answers an
 * error.
 */
export async function debug_traceBlockByHash(
  client: RpcClient,
  { hashes, timeout }: DebugTraceBlockByHashParameters,
): Promise<DebugTraceBlockByHashReturnType> {
  return client.batch<CallTracerResult[]>(
    hashes.map((hash) => ({
      method: "debug_traceBlockByHash",
      params: [hash, callTracerOptions(timeout)],
    })),
  );
}
