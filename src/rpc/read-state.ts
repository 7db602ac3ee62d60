import type { RpcCall, RpcClient } from "./client.ts";
import { isStateUnavailable, type RpcResponseError } from "./errors.ts";

/**
 * Sends state reads whose last parameter is a block (`eth_call`, `eth_getCode`, `eth_getStorageAt`),
 * batched. A read the node answers with "no state for that block" (a full node past its pruning window,
 * anvil past its recent states) is asked again at the node's head, so what needs old state gets the
 * node's best answer instead of stopping the indexer. Errors `accept` takes come back in their place.
 */
export async function readState<T>(
  client: RpcClient,
  calls: RpcCall[],
  accept: (error: RpcResponseError) => boolean = () => false,
): Promise<(T | RpcResponseError)[]> {
  const answers = await client.batchAccepting<T>(
    calls,
    (error) => accept(error) || isStateUnavailable(error),
  );
  const pruned = answers.flatMap((answer, i) =>
    isStateUnavailable(answer) && !accept(answer as RpcResponseError) ? [i] : [],
  );
  if (pruned.length === 0) return answers;
  const atHead = await client.batchAccepting<T>(
    pruned.map((i) => {
      const { method, params } = calls[i] as RpcCall;
      return { method, params: [...params.slice(0, -1), "latest"] };
    }),
    accept,
  );
  pruned.forEach((i, j) => {
    answers[i] = atHead[j] as T | RpcResponseError;
  });
  return answers;
}
