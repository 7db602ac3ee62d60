import type { Hash } from "viem";
import type { RpcClient } from "./client.ts";
import type { RpcReceipt } from "./types.ts";

export type EthGetTransactionReceiptParameters = { hashes: Hash[] };
export type EthGetTransactionReceiptReturnType = (RpcReceipt | null)[];

/** Fetches receipts one transaction at a time (batched), for nodes without `eth_getBlockReceipts`. */
export async function eth_getTransactionReceipt(
  client: RpcClient,
  { hashes }: EthGetTransactionReceiptParameters,
): Promise<EthGetTransactionReceiptReturnType> {
  return client.batch<RpcReceipt | null>(
    hashes.map((hash) => ({ method: "eth_getTransactionReceipt", params: [hash] })),
  );
}
