import type { Address } from "viem";
import type { Database, Queryable } from "./client.ts";
import { byteaParam } from "./table-rows.ts";

/**
 * An NFT instance whose metadata was not fetched yet, with its token's type and the number of times its
 * fetch failed in a way that can pass (see {@link deferInstanceMetadata}).
 */
export type UnfetchedInstance = { address: Address; tokenId: bigint; type: string; attempts: number };

/**
 * Up to `limit` instances whose metadata was never fetched: those never tried, oldest first, then those
 * deferred (see {@link deferInstanceMetadata}) whose time has come, by that time. An instance waits until
 * its token (and so its type) is stored.
 */
export async function readUnfetchedInstances(db: Queryable, limit: number): Promise<UnfetchedInstance[]> {
  const rows = await db.query<{ address: string; token_id: string; type: string; attempts: number }>(
    `SELECT '0x' || encode(i.token_address, 'hex') AS address, i.token_id::text AS token_id, t.type,
            i.metadata_attempts AS attempts
       FROM token_instances i JOIN tokens t ON t.address = i.token_address
      WHERE i.metadata_fetched_at IS NULL AND coalesce(i.metadata_retry_at, '-infinity') <= now()
      ORDER BY coalesce(i.metadata_retry_at, '-infinity'), i.first_seen_block, i.token_address, i.token_id
      LIMIT $1`,
    [limit],
  );
  return rows.map((row) => ({
    address: row.address as Address,
    tokenId: BigInt(row.token_id),
    type: row.type,
    attempts: Number(row.attempts),
  }));
}

export type DeferInstanceMetadataParameters = {
  address: Address;
  tokenId: bigint;
  /** How long the instance is left alone before it is asked again. */
  delayMs: number;
};

/**
 * Leaves an instance unfetched after a failure that can pass, to be asked again once `delayMs` has gone
 * by, and counts the failure.
 */
export async function deferInstanceMetadata(
  db: Database,
  { address, tokenId, delayMs }: DeferInstanceMetadataParameters,
): Promise<void> {
  await db.query(
    `UPDATE token_instances
        SET metadata_attempts = metadata_attempts + 1,
            metadata_retry_at = now() + $3::bigint * interval '1 millisecond'
      WHERE token_address = $1 AND token_id = $2::numeric`,
    [byteaParam(address), tokenId.toString(), Math.max(0, Math.round(delayMs))],
  );
}

export type StoreInstanceMetadataParameters = {
  address: Address;
  tokenId: bigint;
  tokenUri: string | null;
  /** The metadata as JSON text; null when it could not be had (then `error` says why). */
  metadataJson: string | null;
  error: string | null;
};

/** Records the outcome of fetching an instance's metadata; the instance is not fetched again. */
export async function storeInstanceMetadata(
  db: Database,
  { address, tokenId, tokenUri, metadataJson, error }: StoreInstanceMetadataParameters,
): Promise<void> {
  // `$4::text::jsonb`: typed as text, the JSON string reaches both drivers unchanged (postgres.js
  // would encode a string bound straight to jsonb a second time).
  await db.query(
    `UPDATE token_instances
        SET token_uri = $3, metadata = $4::text::jsonb, metadata_error = $5, metadata_fetched_at = now()
      WHERE token_address = $1 AND token_id = $2::numeric`,
    [byteaParam(address), tokenId.toString(), tokenUri, metadataJson, error],
  );
}
