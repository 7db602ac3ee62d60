import { type Hash, type Hex, zeroAddress } from "viem";
import type { RpcCall, RpcClient } from "./client.ts";
import { isStateUnavailable, RpcResponseError } from "./errors.ts";
import { toHexQuantity } from "./types.ts";

/**
 * The block a state read is made at. With its hash the read names that very block (EIP-1898), so the
 * answer is the state of the block that was fetched, whichever fork the node (or the backend a load
 * balancer picks) follows meanwhile: a node that no longer knows the block answers an error, and the
 * caller fetches again. Without a hash the read names the number.
 */
export type StateBlock = { number: bigint; hash?: Hash };

/** A state read: a method whose last parameter is a block (`eth_call`, `eth_getCode`, `eth_getStorageAt`). */
export type StateRead = RpcCall & { block: StateBlock };

/** Nodes that refused a block named by its hash (pre-EIP-1898): their reads name block numbers. */
const withoutBlockHash = new WeakSet<RpcClient>();

/** JSON-RPC's "invalid params", what a node that cannot parse a block object answers. */
const invalidParams = -32602;

/**
 * Asks the node once whether it takes a block named by its hash: the zero address's balance at `genesis`,
 * by hash and by number. A node that fails the read by hash, with whatever error (Ganache answers an
 * internal error, not invalid params, so readState alone would ask again forever), but answers it by number
 * has its state reads name block numbers. Both failing says nothing (a node without the genesis state).
 */
export async function probeBlockHashes(client: RpcClient, genesis: Required<StateBlock>): Promise<void> {
  const refusesHash = async () => {
    const [byHash, byNumber] = await client.batchAccepting<Hex>(
      [
        { method: "eth_getBalance", params: [zeroAddress, { blockHash: genesis.hash }] },
        { method: "eth_getBalance", params: [zeroAddress, toHexQuantity(genesis.number)] },
      ],
      () => true,
    );
    return byHash instanceof RpcResponseError && !(byNumber instanceof RpcResponseError);
  };
  // Twice, so that a node's passing fault does not turn hashes off for good.
  if (!withoutBlockHash.has(client) && (await refusesHash()) && (await refusesHash()))
    withoutBlockHash.add(client);
}

/**
 * Sends state reads, batched, each at its block (by hash where the node takes it, see StateBlock). A read
 * the node answers with "no state for that block" (a full node past its pruning window, anvil past its
 * recent states) is asked again at the node's head, so what needs old state gets the node's best answer
 * instead of stopping the indexer. Errors `accept` takes come back in their place.
 */
export async function readState<T>(
  client: RpcClient,
  reads: StateRead[],
  accept: (error: RpcResponseError) => boolean = () => false,
): Promise<(T | RpcResponseError)[]> {
  const byHash = !withoutBlockHash.has(client);
  const answers = await client.batchAccepting<T>(
    reads.map((read) => atBlock(read, byHash)),
    (error) => accept(error) || isStateUnavailable(error) || (byHash && error.code === invalidParams),
  );
  // anvil answers "no state" with the same code: such a read is asked at the head below instead.
  const refused = positionsOf(
    answers,
    (error, i) =>
      byHash &&
      error.code === invalidParams &&
      !isStateUnavailable(error) &&
      reads[i]?.block.hash !== undefined,
  );
  if (refused.length > 0) {
    const byNumber = await readState<T>(
      client,
      refused.map((i) => {
        const read = reads[i] as StateRead;
        return { ...read, block: { number: read.block.number } };
      }),
      accept,
    );
    // The same reads by number went through: the node does not take block hashes.
    if (byNumber.some((answer) => !(answer instanceof RpcResponseError) || answer.code !== invalidParams))
      withoutBlockHash.add(client);
    refused.forEach((i, j) => {
      answers[i] = byNumber[j] as T | RpcResponseError;
    });
  }
  // Any other invalid-params answer fails the reads, as it would have without the block hashes.
  const failed = answers.find(
    (answer) => answer instanceof RpcResponseError && !accept(answer) && !isStateUnavailable(answer),
  );
  if (failed) throw failed;
  const pruned = positionsOf(answers, (error) => isStateUnavailable(error) && !accept(error));
  if (pruned.length === 0) return answers;
  const atHead = await client.batchAccepting<T>(
    pruned.map((i) => {
      const { method, params } = reads[i] as StateRead;
      return { method, params: [...params, "latest"] };
    }),
    accept,
  );
  pruned.forEach((i, j) => {
    answers[i] = atHead[j] as T | RpcResponseError;
  });
  return answers;
}

function atBlock({ method, params, block }: StateRead, byHash: boolean): RpcCall {
  const named = byHash && block.hash !== undefined ? { blockHash: block.hash } : toHexQuantity(block.number);
  return { method, params: [...params, named] };
}

function positionsOf<T>(
  answers: (T | RpcResponseError)[],
  which: (error: RpcResponseError, position: number) => boolean,
): number[] {
  return answers.flatMap((answer, i) => (answer instanceof RpcResponseError && which(answer, i) ? [i] : []));
}
