import { type Address, zeroAddress } from "viem";
import { decodeTokenTransfer, type TokenTransfer, type TokenTransferType } from "../decode/token-transfer.ts";
import type { RpcFullBlock, RpcReceipt } from "../rpc/types.ts";
import { rangeBlocks } from "./range-blocks.ts";

/** A token whose transfers appear in a range: the event forms it used, and what its state reads need. */
export type TokenCandidate = {
  /**
   * Each event form it used in the range, with the first block it used it in. A `Deposit` or `Withdrawal`
   * is no form: it would make a wrapped NFT's contract an ERC-404 (tokenType).
   */
  forms: Map<TokenTransferType, number>;
  /** Its first transfer in the range. */
  firstBlock: number;
  /** Whether it minted or burned in the range, which changes its supply. */
  supplyChanged: boolean;
  /**
   * Its `Deposit` and `Withdrawal` transfers kept in the range, by key (`transferKey`) with their block, which
   * attachTokens drops where the token turns out not to be an ERC-20 in that block.
   */
  wrappingTransfers: { key: string; block: number }[];
};

/** Each token-transfer-shaped log of a range, decoded, keyed by `transferKey`. */
export type RangeTransfers = Map<string, TokenTransfer | "malformed">;

/** The key of a log in RangeTransfers. */
export function transferKey(blockNumber: number, logIndex: number): string {
  return `${blockNumber}/${logIndex}`;
}

export type TokenCandidatesOptions = {
  /**
   * The contracts (lowercase) whose `Deposit` and `Withdrawal` are transfers; every contract's when
   * absent, as Blockscout counts them unless WETH_TOKEN_TRANSFERS_FILTERING_ENABLED.
   */
  wrappingContracts?: ReadonlySet<string>;
};

/**
 * Decodes a range's token transfers once (the transform reuses them) and finds the tokens that move in
 * them, keyed by lowercase address. A `Deposit` or `Withdrawal` is left out, as Blockscout leaves it out,
 * when its transaction states the same move with an ERC-20 `Transfer` of the same token (a wrapper that
 * emits both), and when its token emitted an ERC-721 or ERC-1155 transfer earlier in the range or in the same
 * block: wrapping moves balances only of ERC-20 tokens, and a token is not an ERC-20 from its first NFT transfer on.
 * A wrap before that block is kept as a range of one block would keep it, whatever range holds the two.
 */
export function tokenCandidatesOf(
  blocks: RpcFullBlock[],
  receipts: RpcReceipt[][],
  { wrappingContracts }: TokenCandidatesOptions = {},
): { transfers: RangeTransfers; candidates: Map<Address, TokenCandidate> } {
  const transfers: RangeTransfers = new Map();
  const decoded: { number: number; key: string; transfer: TokenTransfer }[] = [];
  for (const { block, transactions } of rangeBlocks({ blocks, receipts })) {
    const number = Number(block.number);
    for (const { receipt } of transactions) {
      const own: { key: string; transfer: TokenTransfer }[] = [];
      for (const log of receipt.logs) {
        const transfer = decodeTokenTransfer({
          address: log.address,
          topics: log.topics as string[],
          data: log.data,
        });
        if (transfer === null) continue;
        const key = transferKey(number, Number(log.logIndex));
        if (transfer === "malformed") transfers.set(key, transfer);
        else if (!transfer.wrapping || (wrappingContracts?.has(transfer.token) ?? true))
          own.push({ key, transfer });
      }
      const stated = own.filter(({ transfer }) => transfer.type === "ERC-20" && !transfer.wrapping);
      for (const entry of own) {
        const { transfer } = entry;
        const repeated =
          transfer.wrapping &&
          stated.some(
            ({ transfer: other }) =>
              other.token === transfer.token &&
              other.from === transfer.from &&
              other.to === transfer.to &&
              other.amounts[0] === transfer.amounts[0],
          );
        if (!repeated) decoded.push({ number, ...entry });
      }
    }
  }
  const firstNonFungible = new Map<Address, number>();
  for (const { number, transfer } of decoded)
    if (transfer.type !== "ERC-20" && !firstNonFungible.has(transfer.token))
      firstNonFungible.set(transfer.token, number);
  const candidates = new Map<Address, TokenCandidate>();
  for (const { number, key, transfer } of decoded) {
    if (transfer.wrapping && (firstNonFungible.get(transfer.token) ?? Number.POSITIVE_INFINITY) <= number)
      continue;
    transfers.set(key, transfer);
    const candidate: TokenCandidate = candidates.get(transfer.token) ?? {
      forms: new Map(),
      firstBlock: number,
      supplyChanged: false,
      wrappingTransfers: [],
    };
    if (transfer.wrapping) candidate.wrappingTransfers.push({ key, block: number });
    else if (!candidate.forms.has(transfer.type)) candidate.forms.set(transfer.type, number);
    if (transfer.from === zeroAddress || transfer.to === zeroAddress) candidate.supplyChanged = true;
    candidates.set(transfer.token, candidate);
  }
  return { transfers, candidates };
}
