import type { Hex } from "viem";
import type { RpcClient } from "./client.ts";
import { toHexQuantity } from "./types.ts";

/** One entry of a Parity-style `trace_block` answer. */
export type ParityTrace = {
  type: "call" | "create" | "suicide" | "reward" | string;
  action: Record<string, Hex | string | undefined>;
  result?: Record<string, Hex | undefined> | null;
  error?: string;
  traceAddress: number[];
  subtraces: number;
  transactionHash?: Hex | null;
  transactionPosition?: number | null;
  blockHash?: Hex;
  blockNumber?: number;
};

export type TraceBlockParameters = { blocks: bigint[] };
export type TraceBlockReturnType = ParityTrace[][];

/** Fetches the Parity-style traces of each block (erigon, reth, nethermind, anvil), batched. */
export async function trace_block(
  client: RpcClient,
  { blocks }: TraceBlockParameters,
): Promise<TraceBlockReturnType> {
  return client.batch<ParityTrace[]>(
    blocks.map((block) => ({ method: "trace_block", params: [toHexQuantity(block)] })),
  );
}
