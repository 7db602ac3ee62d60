import type { Address, Hex } from "viem";
import type { RpcClient } from "../../src/rpc/client.ts";
import { until } from "./until.ts";

/** A transaction as `eth_sendTransaction` takes it from one of the node's unlocked accounts. */
export type TransactParameters = { from: Address; to?: Address; data: Hex };

/**
 * Sends a transaction from an unlocked account and waits for its receipt; throws when it reverted.
 * Returns the address it created, if any.
 */
export async function transact(client: RpcClient, transaction: TransactParameters): Promise<Address | null> {
  const hash = await client.request<Hex>("eth_sendTransaction", [transaction]);
  // Anvil mines each transaction at once, but its receipt can take a moment to appear.
  const receipt = await until(
    "a receipt",
    () =>
      client.request<{ status: Hex; contractAddress: Address | null } | null>("eth_getTransactionReceipt", [
        hash,
      ]),
    { intervalMs: 10 },
  );
  if (receipt.status !== "0x1") throw new Error(`transaction ${hash} reverted`);
  return receipt.contractAddress;
}
