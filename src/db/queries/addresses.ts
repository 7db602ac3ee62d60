import type { Queryable } from "../client.ts";
import { byteaText } from "../table-rows.ts";
import { hexColumn } from "./keyset.ts";

export type AddressInfo = { is_contract: boolean };

export type FindAddressesReturnType = Map<string, AddressInfo>;

/**
 * What is known of each address, keyed by lowercase hex; unknown addresses are absent. One query for
 * all the addresses of a page.
 */
export async function findAddresses(
  db: Queryable,
  hashes: Iterable<string>,
): Promise<FindAddressesReturnType> {
  const unique = [...new Set(hashes)];
  if (unique.length === 0) return new Map();
  const rows = await db.query<{ hash: string; is_contract: boolean }>(
    `SELECT ${hexColumn("hash", "hash")}, is_contract FROM addresses WHERE hash = ANY($1::text[]::bytea[])`,
    [unique.map((hash) => byteaText(hash))],
  );
  return new Map(rows.map((row) => [row.hash, { is_contract: row.is_contract }]));
}
