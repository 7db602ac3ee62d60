import type { Address } from "viem";
import type { Database } from "./client.ts";
import { byteaText, int8Max } from "./table-rows.ts";
import type { StoredTokenType } from "./token-types.ts";

/**
 * The type of each of `addresses` that is a stored token first seen at or below `keptUpTo` (any block when
 * absent), keyed by lowercase address: the type it had at `keptUpTo`, since a promotion in the blocks above
 * is taken back (takeBackPromotions) when they are replaced.
 */
export async function readKnownTokens(
  db: Database,
  addresses: readonly string[],
  keptUpTo = int8Max,
): Promise<Map<string, StoredTokenType>> {
  const rows = await db.query<{ address: string; type: StoredTokenType }>(
    `SELECT '0x' || encode(address, 'hex') AS address,
       CASE WHEN promoted_at_block > $2 THEN type_before_promotion ELSE type END AS type
     FROM tokens WHERE address = ANY($1::text[]::bytea[]) AND first_seen_block <= $2`,
    [addresses.map((address) => byteaText(address)), keptUpTo.toString()],
  );
  return new Map(rows.map((row) => [row.address, row.type]));
}

/** A kept token whose supply was read in a block a reorganization orphaned. */
export type StaleSupply = { address: Address; type: string };

/** Tokens kept by a reorganization whose supply was read above `keptUpTo`. */
export async function readStaleSupplies(db: Database, keptUpTo: bigint): Promise<StaleSupply[]> {
  return db.query<StaleSupply>(
    `SELECT '0x' || encode(address, 'hex') AS address, type
     FROM tokens WHERE read_at_block > $1 AND first_seen_block <= $1`,
    [keptUpTo.toString()],
  );
}
