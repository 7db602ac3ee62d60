import { type Address, zeroAddress } from "viem";
import { decodeTokenTransfer, type TokenTransfer, type TokenTransferType } from "../decode/token-transfer.ts";
import type { RpcFullBlock, RpcReceipt } from "../rpc/types.ts";
import { rangeBlocks } from "./range-blocks.ts";

/** A token whose transfers appear in a range: the event forms it used, and what its state reads need. */
export type TokenCandidate = {
  /** Each event form it used in the range, with the first block it used it in. */
  forms: Map<TokenTransferType, number>;
  /** Its first transfer in the range. */
  firstBlock: number;
  /** Whether it minted or burned in the range, which changes its supply. */
  supplyChanged: boolean;
};

/** Each token-transfer-shaped log of a range, decoded, keyed by `transferKey`. */
export type RangeTransfers = Map<string, TokenTransfer | "malformed">;

/** The key of a log in RangeTransfers. */
export function transferKey(blockNumber: number, logIndex: number): string {
  return `${blockNumber}/${logIndex}`;
}

/**
 * Decodes a range's token transfers once (the transform reuses them) and finds the tokens that move in
 * them, keyed by lowercase address.
 */
export function tokenCandidatesOf(
  blocks: RpcFullBlock[],
  receipts: RpcReceipt[][],
): { transfers: RangeTransfers; candidates: Map<Address, TokenCandidate> } {
  const transfers: RangeTransfers = new Map();
  const candidates = new Map<Address, TokenCandidate>();
  for (const { block, transactions } of rangeBlocks({ blocks, receipts })) {
    const number = Number(block.number);
    for (const log of transactions.flatMap(({ receipt }) => receipt.logs)) {
      const transfer = decodeTokenTransfer({
        address: log.address,
        topics: log.topics as string[],
        data: log.data,
      });
      if (transfer === null) continue;
      transfers.set(transferKey(number, Number(log.logIndex)), transfer);
      if (transfer === "malformed") continue;
      const candidate = candidates.get(transfer.token) ?? {
        forms: new Map(),
        firstBlock: number,
        supplyChanged: false,
      };
      if (!candidate.forms.has(transfer.type)) candidate.forms.set(transfer.type, number);
      if (transfer.from === zeroAddress || transfer.to === zeroAddress) candidate.supplyChanged = true;
      candidates.set(transfer.token, candidate);
    }
  }
  return { transfers, candidates };
}
