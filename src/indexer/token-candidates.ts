import { type Address, zeroAddress } from "viem";
import { decodeTokenTransfer, type TokenTransferType } from "../decode/token-transfer.ts";
import type { RpcFullBlock, RpcReceipt } from "../rpc/types.ts";

/** A token whose transfers appear in a range: the event forms it used and the blocks to read it at. */
export type TokenCandidate = {
  forms: Set<TokenTransferType>;
  /** Its first transfer in the range. */
  firstBlock: number;
  /** Its last mint or burn in the range, when the supply changed. */
  supplyBlock: number | null;
};

/** The tokens that move in a range's logs, keyed by lowercase address. */
export function tokenCandidatesOf(
  blocks: RpcFullBlock[],
  receipts: RpcReceipt[][],
): Map<Address, TokenCandidate> {
  const candidates = new Map<Address, TokenCandidate>();
  blocks.forEach((block, b) => {
    const number = Number(block.number);
    for (const log of receipts[b].flatMap((receipt) => receipt.logs)) {
      const transfer = decodeTokenTransfer({
        address: log.address,
        topics: log.topics as string[],
        data: log.data,
      });
      if (transfer === null || transfer === "malformed") continue;
      const candidate = candidates.get(transfer.token) ?? {
        forms: new Set(),
        firstBlock: number,
        supplyBlock: null,
      };
      candidate.forms.add(transfer.type);
      if (transfer.from === zeroAddress || transfer.to === zeroAddress) candidate.supplyBlock = number;
      candidates.set(transfer.token, candidate);
    }
  });
  return candidates;
}
