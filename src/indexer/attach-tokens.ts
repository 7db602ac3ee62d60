import type { Address } from "viem";
import type { Database } from "../db/client.ts";
import { byteaText } from "../db/table-rows.ts";
import type { RpcClient } from "../rpc/client.ts";
import { readTokenMetadata, type TokenMetadata, type TokenRead } from "./read-token-metadata.ts";
import type { TokenCandidate } from "./token-candidates.ts";
import type { RangeRows } from "./transform-range.ts";

export type AttachTokensParameters = {
  client: RpcClient;
  db: Database;
  rows: RangeRows;
  /** Tokens first seen above this block are being replaced (a reorganization) and count as new. */
  keptUpTo?: bigint;
};

/**
 * Fills the range's token rows: a token new to the database is read (name, symbol, decimals) at its
 * first transfer and its supply at its last mint or burn in the range (else at its first transfer); a
 * known token is read again only when a mint or burn changed its supply. Reads happen at the blocks of
 * those events, so the stored rows do not depend on how the chain was cut into ranges.
 */
export async function attachTokens({ client, db, rows, keptUpTo }: AttachTokensParameters): Promise<void> {
  const candidates = [...rows.tokenCandidates];
  const stale = keptUpTo === undefined ? [] : await staleSupplies(db, keptUpTo);
  if (candidates.length === 0 && stale.length === 0) return;
  const stored = await db.query<{ address: string }>(
    `SELECT '0x' || encode(address, 'hex') AS address FROM tokens
     WHERE address = ANY($1::text[]::bytea[]) AND first_seen_block <= $2`,
    [candidates.map(([address]) => byteaText(address)), (keptUpTo ?? 9_223_372_036_854_775_807n).toString()],
  );
  const known = new Set(stored.map((row) => row.address));
  const reads: TokenRead[] = [];
  for (const [address, candidate] of candidates) {
    const isNew = !known.has(address);
    if (!isNew && candidate.supplyBlock === null) continue;
    reads.push({
      address,
      describeAt: isNew ? BigInt(candidate.firstBlock) : null,
      supplyAt: BigInt(candidate.supplyBlock ?? candidate.firstBlock),
    });
  }
  // Supplies read in blocks a reorganization orphans are read again where a fresh index would read them.
  const restated = stale.filter((token) => rows.tokenCandidates.get(token.address)?.supplyBlock == null);
  for (const token of restated)
    reads.push({ address: token.address, describeAt: null, supplyAt: token.supplyBlock });
  // Most reads were made while the range was fetched; only what is missing (after a reorganization,
  // say) is read now.
  const ahead = rows.tokenReadings;
  const fits = (read: TokenRead) => {
    const reading = ahead.get(read.address);
    return (
      reading !== undefined &&
      reading.supplyAt === read.supplyAt &&
      (read.describeAt === null || reading.describedAt === read.describeAt)
    );
  };
  const missing = await readTokenMetadata(
    client,
    reads.filter((read) => !fits(read)),
  );
  const metadata = new Map([...ahead, ...missing]);
  const types = new Map(stale.map((token) => [token.address, token.type]));
  for (const read of reads) {
    const candidate = rows.tokenCandidates.get(read.address);
    const token = metadata.get(read.address);
    rows.tokens.push({
      address: byteaText(read.address),
      type: candidate
        ? tokenType(candidate.forms, read.describeAt === null ? undefined : token)
        : types.get(read.address),
      name: token?.name,
      symbol: token?.symbol,
      decimals: token?.decimals,
      total_supply: token?.totalSupply,
      first_seen_block: candidate?.firstBlock ?? read.supplyAt,
      read_at_block: read.supplyAt,
    });
  }
  for (const [address, candidate] of candidates) {
    if (reads.some((read) => read.address === address)) continue;
    // Known and unchanged supply: the row only carries the forms seen, which may make it ERC-404.
    rows.tokens.push({
      address: byteaText(address as Address),
      type: tokenType(candidate.forms),
      name: null,
      symbol: null,
      decimals: null,
      total_supply: null,
      first_seen_block: candidate.firstBlock,
      read_at_block: -1,
    });
  }
}

/**
 * Tokens kept by a reorganization whose supply was read above `keptUpTo`, with the block a fresh index
 * reads it at: their last kept mint or burn, else their first transfer.
 */
async function staleSupplies(db: Database, keptUpTo: bigint) {
  const rows = await db.query<{ address: Address; type: string; supply_block: number }>(
    `SELECT '0x' || encode(t.address, 'hex') AS address, t.type,
       COALESCE((SELECT max(x.block_number) FROM token_transfers x
                 WHERE x.token_address = t.address AND x.block_number <= $1
                   AND (x.from_address = $2 OR x.to_address = $2)), t.first_seen_block) AS supply_block
     FROM tokens t WHERE t.read_at_block > $1 AND t.first_seen_block <= $1`,
    [keptUpTo.toString(), Buffer.alloc(20)],
  );
  return rows.map((row) => ({ address: row.address, type: row.type, supplyBlock: BigInt(row.supply_block) }));
}

/**
 * A token's type from the transfer events it emitted and, for a token read for the first time, what it
 * says of itself: ERC-1155 events decide; both ERC-20 and ERC-721 Transfer forms make ERC-404, and so do
 * ERC-721 transfers from a contract with decimals, or ERC-20 transfers from one that declares the
 * ERC-721 interface (an ERC-404 whose NFTs have not moved yet).
 */
export function tokenType(
  forms: TokenCandidate["forms"],
  reading?: Pick<TokenMetadata, "decimals" | "supportsErc721">,
): string {
  if (forms.has("ERC-1155")) return "ERC-1155";
  if (forms.has("ERC-20") && forms.has("ERC-721")) return "ERC-404";
  if (forms.has("ERC-721")) return (reading?.decimals ?? 0) > 0 ? "ERC-404" : "ERC-721";
  return reading?.supportsErc721 === true ? "ERC-404" : "ERC-20";
}

/** The upsert that merges a range's token rows into stored ones (see attachTokens). */
export const tokensOnConflict = `ON CONFLICT (address) DO UPDATE SET
  type = CASE
    WHEN tokens.type <> excluded.type AND tokens.type IN ('ERC-20', 'ERC-721', 'ERC-404')
      AND excluded.type IN ('ERC-20', 'ERC-721', 'ERC-404') THEN 'ERC-404'
    ELSE tokens.type END,
  total_supply = CASE WHEN excluded.read_at_block > tokens.read_at_block THEN excluded.total_supply ELSE tokens.total_supply END,
  read_at_block = GREATEST(tokens.read_at_block, excluded.read_at_block)`;
