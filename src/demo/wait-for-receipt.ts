import { type Hash, type PublicClient, type TransactionReceipt, TransactionReceiptNotFoundError } from "viem";
import { sleep } from "../sleep.ts";

// Only a stuck node reaches it; a loaded 2-core machine can take many seconds to mine a busy block.
const receiptTimeoutMs = 60_000;

/** Parameters of {@link waitForReceipt}. */
export type WaitForReceiptParameters = { publicClient: PublicClient; hash: Hash };

/** Return type of {@link waitForReceipt}. */
export type WaitForReceiptReturnType = TransactionReceipt;

/**
 * Polls `eth_getTransactionReceipt` until the node has the receipt, whatever its status. Not viem's
 * `waitForTransactionReceipt`, which looks again only when it sees a new block: the demo sends nothing
 * while it waits, and on a loaded CI machine one such wait ran out its whole minute.
 */
export async function waitForReceipt({
  publicClient,
  hash,
}: WaitForReceiptParameters): Promise<WaitForReceiptReturnType> {
  const deadline = Date.now() + receiptTimeoutMs;
  for (;;) {
    try {
      return await publicClient.getTransactionReceipt({ hash });
    } catch (error) {
      if (!(error instanceof TransactionReceiptNotFoundError)) throw error;
    }
    if (Date.now() > deadline) throw new Error(`no receipt for ${hash} within ${receiptTimeoutMs} ms`);
    await sleep(10);
  }
}
