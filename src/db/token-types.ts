import type { Queryable } from "./client.ts";
import { transferDirections } from "./direction.ts";
import { byteaText, insertRows } from "./table-rows.ts";
import type { RangeRows } from "./tables.ts";

/**
 * Every type the indexer gives a token (tokenType): the values of `tokens.type` and of the rows stamped
 * with it.
 */
export const storedTokenTypes = ["ERC-20", "ERC-721", "ERC-1155", "ERC-404"] as const;

export type StoredTokenType = (typeof storedTokenTypes)[number];

/** The NFT types, in the order endpoint 11 groups collections by. */
export const nftTokenTypes = ["ERC-721", "ERC-1155", "ERC-404"] as const satisfies readonly StoredTokenType[];

/**
 * The upsert that merges a range's token rows into stored ones, as `tokenType` merges the forms of one
 * range, so that a type never depends on where ranges begin: ERC-1155 events make ERC-1155 whatever came
 * before, the ERC-20 and ERC-721 forms together make ERC-404, and nothing else changes a type. A supply
 * read at a later block wins.
 */
const tokensOnConflict = `ON CONFLICT (address) DO UPDATE SET
  type = CASE
    WHEN excluded.type = 'ERC-1155' THEN 'ERC-1155'
    WHEN tokens.type <> excluded.type AND tokens.type IN ('ERC-20', 'ERC-721', 'ERC-404')
      AND excluded.type IN ('ERC-20', 'ERC-721', 'ERC-404') THEN 'ERC-404'
    ELSE tokens.type END,
  total_supply = CASE WHEN excluded.read_at_block > tokens.read_at_block THEN excluded.total_supply ELSE tokens.total_supply END,
  read_at_block = GREATEST(tokens.read_at_block, excluded.read_at_block)`;

/**
 * Stores the range's tokens and gives each of the range's transfer rows (and their per-address rows)
 * its token's type as stored, so that a type filter is an index range scan (balances take the type from
 * the transfers, see applyTokenBalanceChanges). A token whose type the range changed (an ERC-20 or
 * ERC-721 that turns out to be an ERC-404, or any that emits ERC-1155 events) has its stored transfers
 * and balances restamped, and the block of the range's first transfer in the form that changed it is
 * kept with its former type, for a reorganization that orphans that block (takeBackPromotions).
 */
export async function storeTokensAndTypes(tx: Queryable, rows: RangeRows): Promise<void> {
  const transfers = rows.tokenTransfers.values;
  const tokenOf = transfers.token_address.map((address) => address?.toLowerCase() ?? "");
  const moving = new Set(tokenOf);
  const tokenRows = rows.tokens.values;
  const rowAddresses = tokenRows.address.map((address) => address?.toLowerCase() ?? "");
  const before = await readTokenTypes(tx, [...new Set([...moving, ...rowAddresses])]);
  // A row of a token with no transfer in the range only carries a supply read again (after a
  // reorganization, or for a non-ERC-20 whose Deposit and Withdrawal were dropped, see attachTokens):
  // the stored type stands, the one given before a reorganization took a promotion back, and no
  // wrapping event makes a wrapped NFT's contract an ERC-404.
  tokenRows.type = tokenRows.type.map((type, i) => {
    const address = rowAddresses[i] as string;
    return moving.has(address) ? type : (before.get(address) ?? type);
  });
  await insertRows(tx, rows.tokens, { onConflict: tokensOnConflict });
  const after = await readTokenTypes(tx, [...moving]);
  const promoted = [...moving].flatMap((address) => {
    const type = before.get(address);
    return type !== undefined && after.get(address) !== type ? [[address, type] as const] : [];
  });
  if (promoted.length > 0) {
    // The first block of the form that changed the type: an ERC-1155 event, or the Transfer form the
    // token had not used.
    const promotedAt = promoted.map(([address, type]) => {
      const changedBy = (form: string | null | undefined) =>
        after.get(address) === "ERC-1155"
          ? form === "ERC-1155"
          : form !== type && (form === "ERC-20" || form === "ERC-721");
      let first = Number.POSITIVE_INFINITY;
      tokenOf.forEach((token, i) => {
        if (token === address && changedBy(transfers.token_type[i]))
          first = Math.min(first, Number(transfers.block_number[i]));
      });
      return first;
    });
    await tx.query(
      `UPDATE tokens t SET promoted_at_block = c.block, type_before_promotion = c.type
       FROM unnest($1::text[]::bytea[], $2::bigint[], $3::text[]) AS c(address, block, type)
       WHERE t.address = c.address`,
      [promoted.map(([address]) => byteaText(address)), promotedAt, promoted.map(([, type]) => type)],
    );
    await restampTokenTypes(
      tx,
      promoted.map(([address]) => [address, after.get(address) as string]),
    );
  }
  transfers.token_contract_type = tokenOf.map((address) => after.get(address));
  const typeAt = new Map(
    transfers.block_number.map((block, i) => [
      `${block}/${transfers.log_index[i]}`,
      transfers.token_contract_type[i],
    ]),
  );
  const links = rows.addressTokenTransfers.values;
  links.token_contract_type = links.block_number.map((block, i) =>
    typeAt.get(`${block}/${links.log_index[i]}`),
  );
}

/**
 * Gives back their former type to the tokens promoted (to ERC-404 or ERC-1155) in blocks above `above`, which a
 * reorganization orphans, and restamps their kept rows. Runs after the orphaned transfers and balances
 * are taken back, so only kept rows are restamped.
 */
export async function takeBackPromotions(tx: Queryable, above: bigint): Promise<void> {
  const demoted = await tx.query<{ address: string; type: string }>(
    `UPDATE tokens SET type = type_before_promotion, promoted_at_block = NULL, type_before_promotion = NULL
     WHERE promoted_at_block > $1
     RETURNING '0x' || encode(address, 'hex') AS address, type`,
    [above.toString()],
  );
  await restampTokenTypes(
    tx,
    demoted.map(({ address, type }) => [address, type]),
  );
}

/**
 * Stamps every stored transfer, per-address transfer link, balance and holding of each token with its new
 * type: when it becomes ERC-404 or ERC-1155 (and again if a reorganization takes that back).
 */
async function restampTokenTypes(tx: Queryable, types: [address: string, type: string][]): Promise<void> {
  if (types.length === 0) return;
  const params = [types.map(([address]) => byteaText(address)), types.map(([, type]) => type)];
  await tx.query(
    `UPDATE address_token_transfers a SET token_contract_type = c.type
     FROM unnest($1::text[]::bytea[], $2::text[]) AS c(address, type)
     JOIN token_transfers t ON t.token_address = c.address
     WHERE a.address IN (t.from_address, t.to_address) AND a.direction IN (${transferDirections.join(", ")})
       AND a.block_number = t.block_number AND a.log_index = t.log_index`,
    params,
  );
  for (const table of ["token_transfers", "token_balances", "token_holders"]) {
    await tx.query(
      `UPDATE ${table} t SET token_contract_type = c.type
       FROM unnest($1::text[]::bytea[], $2::text[]) AS c(address, type)
       WHERE t.token_address = c.address`,
      params,
    );
  }
}

/** Stored types of the tokens at `addresses` (lowercase `0x` hex), keyed the same way. */
export async function readTokenTypes(tx: Queryable, addresses: string[]): Promise<Map<string, string>> {
  if (addresses.length === 0) return new Map();
  const rows = await tx.query<{ address: string; type: string }>(
    `SELECT '0x' || encode(address, 'hex') AS address, type FROM tokens
     WHERE address = ANY($1::text[]::bytea[])`,
    [addresses.map((address) => byteaText(address))],
  );
  return new Map(rows.map((row) => [row.address, row.type]));
}
