import type { Hash } from "viem";
import type { RpcClient } from "./client.ts";
import { isMethodNotSupported } from "./errors.ts";
import { eth_getTransactionReceipt } from "./eth_getTransactionReceipt.ts";
import type { RpcReceipt } from "./types.ts";

export type EthGetBlockReceiptsParameters = {
  /** Each block's hash and the hashes of its transactions (used when the node lacks the method). */
  blocks: { hash: Hash; transactionHashes: Hash[] }[];
};

/** Each block's receipts in transaction order; `null` where the node had no answer for the block. */
export type EthGetBlockReceiptsReturnType = (RpcReceipt[] | null)[];

const unsupported = new WeakSet<RpcClient>();

/**
 * Fetches all receipts of each block with `eth_getBlockReceipts` (by block hash, so a reorg cannot
 * mix two blocks), falling back to one `eth_getTransactionReceipt` per transaction on nodes that do not
 * offer it. The fallback is remembered per client.
 */
export async function eth_getBlockReceipts(
  client: RpcClient,
  { blocks }: EthGetBlockReceiptsParameters,
): Promise<EthGetBlockReceiptsReturnType> {
  const withTransactions = blocks.filter((block) => block.transactionHashes.length > 0);
  let receipts: (RpcReceipt[] | null)[];
  if (!unsupported.has(client)) {
    try {
      receipts = await client.batch<RpcReceipt[] | null>(
        withTransactions.map((block) => ({ method: "eth_getBlockReceipts", params: [block.hash] })),
      );
      return fillEmpty(blocks, withTransactions, receipts);
    } catch (error) {
      if (!isMethodNotSupported(error)) throw error;
      unsupported.add(client);
    }
  }
  const flat = await eth_getTransactionReceipt(client, {
    hashes: withTransactions.flatMap((block) => block.transactionHashes),
  });
  receipts = [];
  let offset = 0;
  for (const block of withTransactions) {
    const own = flat.slice(offset, offset + block.transactionHashes.length);
    offset += block.transactionHashes.length;
    receipts.push(own.some((receipt) => receipt === null) ? null : (own as RpcReceipt[]));
  }
  return fillEmpty(blocks, withTransactions, receipts);
}

function fillEmpty(
  blocks: EthGetBlockReceiptsParameters["blocks"],
  withTransactions: EthGetBlockReceiptsParameters["blocks"],
  receipts: (RpcReceipt[] | null)[],
): EthGetBlockReceiptsReturnType {
  const byHash = new Map(withTransactions.map((block, i) => [block.hash, receipts[i]]));
  return blocks.map((block) =>
    block.transactionHashes.length === 0 ? [] : (byHash.get(block.hash) ?? null),
  );
}
