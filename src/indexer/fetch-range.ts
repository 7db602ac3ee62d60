import type { Address } from "viem";
import type { RpcClient } from "../rpc/client.ts";
import { isMethodNotSupported } from "../rpc/errors.ts";
import { eth_getBlockByNumber } from "../rpc/eth_getBlockByNumber.ts";
import { eth_getBlockReceipts } from "../rpc/eth_getBlockReceipts.ts";
import { eth_getCode } from "../rpc/eth_getCode.ts";
import { eth_getTransactionReceipt } from "../rpc/eth_getTransactionReceipt.ts";
import type { RpcFullBlock, RpcReceipt } from "../rpc/types.ts";
import { validateRange } from "./validate-range.ts";

export type FetchRangeParameters = {
  from: bigint;
  to: bigint;
  /** Addresses already known to hold code; they are not asked for again. Grows as ranges are fetched. */
  knownContracts?: Set<Address>;
};

export type FetchedRange = {
  from: bigint;
  to: bigint;
  blocks: RpcFullBlock[];
  /** `receipts[i]` are the receipts of `blocks[i]`, in transaction order. */
  receipts: RpcReceipt[][];
  /** Addresses in this range known to hold code at its last block. */
  contracts: Set<Address>;
};

export type FetchRangeReturnType = FetchedRange;

/**
 * Fetches blocks `from..to` with their transactions, receipts and logs, checks every answer against
 * its block (see validateRange) and asks the node which transaction targets hold code.
 * @throws {RpcInvalidAnswerError} when the answers contradict each other: refetch, never store.
 */
export async function fetchRange(
  client: RpcClient,
  { from, to, knownContracts = new Set() }: FetchRangeParameters,
): Promise<FetchRangeReturnType> {
  const numbers: bigint[] = [];
  for (let n = from; n <= to; n++) numbers.push(n);
  // Blocks and receipts are asked for at once, by number; validateRange then proves they belong together.
  const [maybeBlocks, maybeReceipts] = await Promise.all([
    eth_getBlockByNumber(client, { blocks: numbers }),
    withoutBlockReceipts.has(client) ? null : receiptsByNumber(client, numbers),
  ]);
  const receiptLists = maybeReceipts ?? (await receiptsPerTransaction(client, maybeBlocks));
  const { blocks, receipts } = validateRange({ from, to, blocks: maybeBlocks, receipts: receiptLists });

  const contracts = new Set<Address>();
  const unknown = new Set<Address>();
  for (let b = 0; b < blocks.length; b++) {
    for (const receipt of receipts[b]) {
      if (receipt.contractAddress && receipt.status !== "0x0") contracts.add(lower(receipt.contractAddress));
      for (const log of receipt.logs) contracts.add(lower(log.address));
    }
    for (const transaction of blocks[b].transactions) {
      if (transaction.to && transaction.input.length > 2) unknown.add(lower(transaction.to));
    }
  }
  for (const address of [...unknown]) {
    if (contracts.has(address) || knownContracts.has(address)) {
      unknown.delete(address);
      contracts.add(address);
    }
  }
  if (unknown.size > 0 && !withoutCode.has(client)) {
    const addresses = [...unknown];
    try {
      const codes = await eth_getCode(client, { addresses, blockNumber: to });
      addresses.forEach((address, i) => {
        if (holdsContractCode(codes[i])) contracts.add(address);
      });
    } catch (error) {
      // Some providers refuse eth_getCode; contracts are then known from creations and logs only.
      if (!isMethodNotSupported(error)) throw error;
      withoutCode.add(client);
    }
  }
  for (const address of contracts) knownContracts.add(address);
  return { from, to, blocks, receipts, contracts };
}

const withoutCode = new WeakSet<RpcClient>();
const withoutBlockReceipts = new WeakSet<RpcClient>();

/** `eth_getBlockReceipts` for every block, or null (remembered) when the node lacks the method. */
async function receiptsByNumber(
  client: RpcClient,
  numbers: bigint[],
): Promise<(RpcReceipt[] | null)[] | null> {
  try {
    return await eth_getBlockReceipts(client, { blocks: numbers });
  } catch (error) {
    if (!isMethodNotSupported(error)) throw error;
    withoutBlockReceipts.add(client);
    return null;
  }
}

/** One `eth_getTransactionReceipt` per transaction, grouped back into blocks, for nodes without block receipts. */
async function receiptsPerTransaction(
  client: RpcClient,
  blocks: (RpcFullBlock | null)[],
): Promise<(RpcReceipt[] | null)[]> {
  const hashes = blocks.flatMap((block) => block?.transactions.map((transaction) => transaction.hash) ?? []);
  const flat = await eth_getTransactionReceipt(client, { hashes });
  let offset = 0;
  return blocks.map((block) => {
    const count = block?.transactions.length ?? 0;
    const own = flat.slice(offset, offset + count);
    offset += count;
    return own.some((receipt) => receipt === null) ? null : (own as RpcReceipt[]);
  });
}

/** Whether the node refused `eth_getCode`, so contracts are known only from creations and logs. */
export function lacksCodeLookup(client: RpcClient): boolean {
  return withoutCode.has(client);
}

/** EIP-7702 delegation designators (`0xef0100` + address) give an account code without making it a contract. */
function holdsContractCode(code: string | null | undefined): boolean {
  return !!code && code !== "0x" && !(code.startsWith("0xef0100") && code.length === 48);
}

function lower(address: string): Address {
  return address.toLowerCase() as Address;
}
