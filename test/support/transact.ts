import type { Address, Hex } from "viem";
import type { RpcClient } from "../../src/rpc/client.ts";
import { until } from "./until.ts";

/** What the tests read of a receipt. */
export type Receipt = {
  status: Hex;
  blockNumber: Hex;
  contractAddress: Address | null;
  logs: { address: Address; logIndex: Hex }[];
};

/**
 * A transaction as `eth_sendTransaction` takes it from one of the node's unlocked (or impersonated)
 * accounts: hex quantities, and any other field the node accepts (`gasPrice`, `authorizationList`, ...).
 */
export type TransactParameters = { from: Address; to?: Address; data?: Hex; value?: Hex; gas?: Hex } & Record<
  string,
  unknown
>;

/** Waits for the receipt of a sent transaction, whatever its status. */
export function waitForReceipt(client: RpcClient, hash: Hex): Promise<Receipt> {
  // Anvil answers before mining, and on a busy machine the receipt can take a moment to appear.
  return until("a receipt", () => client.request<Receipt | null>("eth_getTransactionReceipt", [hash]), {
    intervalMs: 10,
  });
}

/** Sends a transaction and waits for its receipt, whatever its status. */
export async function sendTransaction(
  client: RpcClient,
  transaction: TransactParameters,
): Promise<Receipt & { hash: Hex }> {
  const hash = await client.request<Hex>("eth_sendTransaction", [transaction]);
  return { hash, ...(await waitForReceipt(client, hash)) };
}

/** Sends a transaction and waits for its receipt; throws when it reverted. */
export async function transact(
  client: RpcClient,
  transaction: TransactParameters,
): Promise<Receipt & { hash: Hex }> {
  const receipt = await sendTransaction(client, transaction);
  if (receipt.status !== "0x1") throw new Error(`transaction ${receipt.hash} reverted`);
  return receipt;
}
