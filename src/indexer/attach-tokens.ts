import type { Address } from "viem";
import type { Database } from "../db/client.ts";
import { removeRows } from "../db/table-rows.ts";
import type { StoredTokenType } from "../db/token-types.ts";
import { readKnownTokens, readStaleSupplies } from "../db/tokens.ts";
import type { RpcClient } from "../rpc/client.ts";
import { readTokenMetadata, type TokenMetadata, type TokenRead } from "./read-token-metadata.ts";
import { type TokenCandidate, transferKey } from "./token-candidates.ts";
import type { TransformedRange } from "./transform-range.ts";

export type AttachTokensParameters = {
  client: RpcClient;
  db: Database;
  /**
   * The range's rows and its last block, where state is read (by hash where known); empty for a chain cut
   * back to `to`.
   */
  range: Pick<TransformedRange, "rows" | "to" | "tokenCandidates" | "tokenReadings"> &
    Partial<Pick<TransformedRange, "toHash">>;
  /** Tokens first seen above this block are being replaced (a reorganization) and count as new. */
  keptUpTo?: bigint;
};

/**
 * Fills the range's token rows: a token new to the database is described (name, symbol, decimals,
 * ERC-165) and its supply read; a known token is read again only when a mint or burn changed its supply.
 * Everything is read at the range's last block, so a range costs the node one past state however many
 * blocks its mints are spread over (a state is loaded per request; anvil takes 15–50 ms for each).
 * Supplies and descriptions then depend on where ranges end only for tokens that change them without a
 * mint or burn; `read_at_block` records the block. The `Deposit` and `Withdrawal` transfers of a token
 * that is not an ERC-20 in their block, which only the stored type tells for a known token, are taken out of
 * the rows.
 */
export async function attachTokens({ client, db, range, keptUpTo }: AttachTokensParameters): Promise<void> {
  const { rows, to, toHash } = range;
  const candidates = [...range.tokenCandidates];
  const stale = keptUpTo === undefined ? [] : await readStaleSupplies(db, keptUpTo);
  if (candidates.length === 0 && stale.length === 0) return;
  const known = await readKnownTokens(
    db,
    candidates.map(([address]) => address),
    keptUpTo,
  );
  const reads: TokenRead[] = [];
  for (const [address, candidate] of candidates) {
    const isNew = !known.has(address);
    if (isNew || candidate.supplyChanged) reads.push({ address, describe: isNew });
  }
  // Supplies read in blocks a reorganization orphans are read again, at this range's end.
  for (const token of stale) {
    if (!range.tokenCandidates.get(token.address)?.supplyChanged)
      reads.push({ address: token.address, describe: false });
  }
  // Most reads were made while the range was fetched; only what is missing (after a reorganization,
  // say) is read now.
  const ahead = range.tokenReadings;
  const fits = (read: TokenRead) => {
    const reading = ahead.get(read.address);
    return reading !== undefined && (!read.describe || reading.described);
  };
  const missing = await readTokenMetadata(client, {
    block: { number: to, hash: toHash },
    tokens: reads.filter((read) => !fits(read)),
  });
  const metadata = new Map([...ahead, ...missing]);
  // The stored type decides for a known token: one stored as ERC-20 that emits ERC-721 or ERC-1155 forms
  // here had its wrapping transfers from the first of them on left out by tokenCandidatesOf already. A token
  // new here has in a block the type of the forms it used up to that block, as a range ending there would
  // give it, and before its first form the type that form gives it (no form at all: an ERC-20).
  const typeAt = (address: Address, candidate: TokenCandidate, block: number) => {
    const stored = known.get(address);
    if (stored !== undefined) return stored;
    const upTo = Math.max(block, Math.min(...candidate.forms.values()));
    const used = new Map([...candidate.forms].filter(([, first]) => first <= upTo));
    return tokenType(used, metadata.get(address));
  };
  dropWrappingOfNonFungibles(rows, candidates, typeAt);
  const types = new Map(stale.map((token) => [token.address, token.type]));
  for (const read of reads) {
    const candidate = range.tokenCandidates.get(read.address);
    const token = metadata.get(read.address);
    const promotion = candidate && read.describe ? promotionWithin(candidate.forms, token) : undefined;
    rows.tokens.push({
      address: read.address,
      type: candidate
        ? tokenType(candidate.forms, read.describe ? token : undefined)
        : types.get(read.address),
      name: token?.name,
      symbol: token?.symbol,
      decimals: token?.decimals,
      total_supply: token?.totalSupply,
      first_seen_block: candidate?.firstBlock ?? Number(to),
      read_at_block: Number(to),
      promoted_at_block: promotion?.block,
      type_before_promotion: promotion?.typeBefore,
    });
  }
  for (const [address, candidate] of candidates) {
    if (reads.some((read) => read.address === address)) continue;
    // Known and unchanged supply: the row only carries the forms seen, which may make it ERC-404.
    rows.tokens.push({
      address,
      type: tokenType(candidate.forms),
      name: null,
      symbol: null,
      decimals: null,
      total_supply: null,
      first_seen_block: candidate.firstBlock,
      read_at_block: -1,
      promoted_at_block: null,
      type_before_promotion: null,
    });
  }
}

/**
 * Removes the `Deposit` and `Withdrawal` transfers (with their address rows) of tokens that are not
 * ERC-20s in their block, whose balances those events do not move: so that a wrapped NFT's contract keeps its
 * holders, and its type (its token row, with no transfer left in the range, cannot change the stored type:
 * storeTokensAndTypes).
 */
function dropWrappingOfNonFungibles(
  rows: AttachTokensParameters["range"]["rows"],
  candidates: [Address, TokenCandidate][],
  typeAt: (address: Address, candidate: TokenCandidate, block: number) => StoredTokenType,
): void {
  const dropped = new Set(
    candidates.flatMap(([address, candidate]) =>
      candidate.wrappingTransfers
        .filter(({ block }) => typeAt(address, candidate, block) !== "ERC-20")
        .map(({ key }) => key),
    ),
  );
  if (dropped.size === 0) return;
  const transfers = rows.tokenTransfers.values;
  removeRows(rows.tokenTransfers, (i) =>
    dropped.has(transferKey(Number(transfers.block_number[i]), Number(transfers.log_index[i]))),
  );
  const links = rows.addressTokenTransfers.values;
  removeRows(rows.addressTokenTransfers, (i) =>
    dropped.has(transferKey(Number(links.block_number[i]), Number(links.log_index[i]))),
  );
}

/**
 * A token's type from the transfer events it emitted and, for a token read for the first time, what it
 * says of itself: ERC-1155 events decide; both ERC-20 and ERC-721 Transfer forms make ERC-404, and so do
 * ERC-721 transfers from a contract with decimals, or ERC-20 transfers from one that declares the
 * ERC-721 interface (an ERC-404 whose NFTs have not moved yet). ERC-404's `ERC20Transfer` and
 * `ERC721Transfer` count as the ERC-20 and ERC-721 forms (decodeTokenTransfer), so a token emitting
 * both is ERC-404 as one emitting both Transfer forms is. A token seen only through `Deposit` and
 * `Withdrawal` (no form) is an ERC-20: those events move balances only of ERC-20 tokens.
 */
export function tokenType(
  forms: TokenCandidate["forms"],
  reading?: Pick<TokenMetadata, "decimals" | "supportsErc721">,
): StoredTokenType {
  if (forms.size === 0) return "ERC-20";
  if (forms.has("ERC-1155")) return "ERC-1155";
  if (forms.has("ERC-20") && forms.has("ERC-721")) return "ERC-404";
  if (forms.has("ERC-721")) return (reading?.decimals ?? 0) > 0 ? "ERC-404" : "ERC-721";
  return reading?.supportsErc721 === true ? "ERC-404" : "ERC-20";
}

/**
 * Where a token new in the range became ERC-1155 or ERC-404 within it: the first block of the form that
 * made it so (its first ERC-1155 event, or the Transfer form it used second), and the type the forms
 * before that block gave it. None when it had that type from its first block (every form there, or what
 * it says of itself), or never.
 */
function promotionWithin(
  forms: TokenCandidate["forms"],
  reading: Pick<TokenMetadata, "decimals" | "supportsErc721"> | undefined,
): { block: number; typeBefore: StoredTokenType } | undefined {
  const multi = forms.get("ERC-1155");
  if (multi !== undefined) {
    const before = new Map([...forms].filter(([form, block]) => form !== "ERC-1155" && block < multi));
    return before.size === 0 ? undefined : { block: multi, typeBefore: tokenType(before, reading) };
  }
  const fungible = forms.get("ERC-20");
  const collectible = forms.get("ERC-721");
  if (fungible === undefined || collectible === undefined || fungible === collectible) return undefined;
  const [first, second] =
    fungible < collectible ? (["ERC-20", collectible] as const) : (["ERC-721", fungible] as const);
  const typeBefore = tokenType(new Map([[first, 0]]), reading);
  return typeBefore === "ERC-404" ? undefined : { block: second, typeBefore };
}
