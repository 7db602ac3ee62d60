import type { Address } from "viem";
import type { Database } from "./client.ts";
import { byteaText, int8Max } from "./table-rows.ts";

/** Which of `addresses` are stored tokens first seen at or below `keptUpTo` (any block when absent). */
export async function readKnownTokens(
  db: Database,
  addresses: readonly string[],
  keptUpTo = int8Max,
): Promise<Set<string>> {
  const rows = await db.query<{ address: string }>(
    `SELECT '0x' || encode(address, 'hex') AS address FROM tokens
     WHERE address = ANY($1::text[]::bytea[]) AND first_seen_block <= $2`,
    [addresses.map((address) => byteaText(address)), keptUpTo.toString()],
  );
  return new Set(rows.map((row) => row.address));
}

/** A kept token whose supply was read in a block a reorganization orphaned. */
export type StaleSupply = { address: Address; type: string; supplyBlock: bigint };

/**
 * Tokens kept by a reorganization whose supply was read above `keptUpTo`, with the block a fresh index
 * reads it at: their last kept mint or burn, else their first transfer.
 */
export async function readStaleSupplies(db: Database, keptUpTo: bigint): Promise<StaleSupply[]> {
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
