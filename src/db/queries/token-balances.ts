import type { Queryable } from "../client.ts";
import { byteaParam, byteaText, tokenTypeLiteral } from "../table-rows.ts";
import { nftTokenTypes, storedTokenTypes } from "../token-types.ts";
import {
  type BalanceRowSql,
  belowDoubleRounding,
  hexColumn,
  resumeValueSql,
  storedBalanceSql,
  storedValueSql,
} from "./keyset.ts";

/** A token as the API renders it, with the exact number of its holders. */
export type TokenRow = {
  address: string;
  type: string;
  name: string | null;
  symbol: string | null;
  decimals: number | null;
  total_supply: string | null;
  holders_count: number;
};

export type FindTokensReturnType = Map<string, TokenRow>;

/** The NFT side of a token instance as stored: metadata, or why it could not be had. */
export type InstanceColumns = {
  /** false when no token_instances row exists for the id (never seen in a transfer's instance list). */
  has_instance: boolean;
  metadata: Record<string, unknown> | null;
  metadata_error: string | null;
  /** Only one unit of the id exists and one holder has it (Blockscout's `is_unique`); null for no id. */
  is_unique: boolean | null;
};

/**
 * The tokens at the given lowercase hex addresses, keyed by address, each with its holders count (the
 * distinct holders with a balance above zero, any id, kept by applyTokenBalanceChanges). One query for
 * all the tokens of a page.
 */
export async function findTokens(db: Queryable, addresses: Iterable<string>): Promise<FindTokensReturnType> {
  const unique = [...new Set(addresses)];
  if (unique.length === 0) return new Map();
  const rows = await db.query<TokenRow>(
    `SELECT ${hexColumn("t.address", "address")}, t.type, t.name, t.symbol, t.decimals, t.total_supply,
       t.holders_count
     FROM tokens t
     WHERE t.address = ANY($1::text[]::bytea[])`,
    [unique.map((address) => byteaText(address))],
  );
  return new Map(rows.map((row) => [row.address, { ...row, holders_count: Number(row.holders_count) }]));
}

/** The type of the token at a lowercase hex address, or null when it is not a known token. */
export async function findTokenType(db: Queryable, address: string): Promise<string | null> {
  const [row] = await db.query<{ type: string }>("SELECT type FROM tokens WHERE address = $1", [
    byteaParam(address),
  ]);
  return row?.type ?? null;
}

/**
 * SQL for Blockscout's `is_unique` of the id `tokenId` from its instance row `instance`: exactly one
 * unit of the id exists and one holder has it, read from the counters kept with the balances
 * (applyTokenBalanceChanges), so that no page probes an id's balances. Null for no id (a fungible
 * balance, id -1, or a transfer without ids); false for an id without an instance row.
 */
export function isUniqueSql(instance: string, tokenId: string): string {
  return `CASE WHEN ${tokenId} IS NULL OR ${tokenId} < 0 THEN NULL
      ELSE COALESCE(${instance}.holders = 1 AND ${instance}.units = 1, false) END`;
}

const instanceColumns = (alias: string) =>
  `ti.token_address IS NOT NULL AS has_instance, ti.metadata, ti.metadata_error,
   ${isUniqueSql("ti", `${alias}.token_id`)} AS is_unique`;

export type AddressTokenRow = InstanceColumns & {
  token_address: string;
  /** -1 for a fungible balance and for an ERC-721 holding (counted, not listed by id). */
  token_id: string;
  value: string;
  type: string;
};

export type AddressTokensCursor = {
  value: string | null;
  /** Ties on value: token address then id, both descending. */
  token_address: string | null;
  token_id: string | null;
};

export type ListAddressTokensParameters = {
  address: string;
  /** Token types to keep; empty keeps all. */
  types: string[];
  cursor: AddressTokensCursor;
  limit: number;
};

/**
 * One page of the current balances (above zero) of an address, largest first: a fungible balance per
 * token, an ERC-721 holding per token (value = ids held) and one row per id for ERC-1155 and ERC-404 ids.
 * Ties are broken by token address then id, descending. An ERC-721 holding is its token_holders row.
 */
export async function listAddressTokens(
  db: Queryable,
  { address, types, cursor, limit }: ListAddressTokensParameters,
): Promise<AddressTokenRow[]> {
  const params: unknown[] = [byteaParam(address), limit];
  let after = (_value: string, _token: string, _id: string) => "TRUE";
  if (cursor.token_address !== null && cursor.token_id !== null) {
    const token = `$${params.push(byteaParam(cursor.token_address))}::bytea`;
    const id = `$${params.push(cursor.token_id)}::numeric`;
    const row = { token, tokenId: id, holder: "$1" };
    // Without its value, the row's own: an id's or a fungible balance, or an ERC-721 holding.
    const resume =
      cursor.value !== null
        ? resumeValueSql(`$${params.push(cursor.value)}::numeric`, cursor.value, () => row)
        : storedValueSql(
            storedBalanceSql(row),
            `SELECT h.ids_value FROM token_holders h
             WHERE h.holder = $1 AND h.token_address = ${token} AND ${id} = -1 AND h.ids_value > 0
               AND h.token_contract_type = 'ERC-721'`,
          );
    after = (value, tokenAddress, tokenId) =>
      `(${value}, ${tokenAddress}, ${tokenId}) < (${resume}, ${token}, ${id})`;
  } else if (cursor.value !== null) {
    const below = `$${params.push(belowDoubleRounding(cursor.value))}::numeric`;
    after = (value) => `${value} < ${below}`;
  }
  // Three kinds of rows, each read in page order by an index of its own and cut at a page, then merged:
  // the page costs the same for a holding of 10 ids or of 100,000. The balances' indexes hold the
  // token's type after the holder, so each kind reads one range per type it can show (as literals: a
  // prepared statement's generic plan for a parameter list could not leave out the types excluded) and
  // never walks the holder's rows of another type. A kind the types cannot have is left out.
  const kept = (kindTypes: readonly string[], excluded: string[]) => {
    if (types.length === 0) return kindTypes;
    return types.some((type) => !excluded.includes(type))
      ? kindTypes.filter((type) => types.includes(type))
      : [];
  };
  const fungibleTypes = kept(storedTokenTypes, ["ERC-721", "ERC-1155"]);
  const idTypes = kept(
    storedTokenTypes.filter((type) => type !== "ERC-721"),
    ["ERC-20", "ERC-721"],
  );
  // A holder's balances of one type, fungible (id -1) or per id, in page order.
  const balanceRanges = (kindTypes: readonly string[], ids: string, order: string) =>
    kindTypes.map(
      (type) =>
        `(SELECT b.token_address, b.token_id, b.value, b.token_contract_type AS type, b.holder
          FROM token_balances b
          WHERE b.holder = $1 AND b.token_contract_type = ${tokenTypeLiteral(type)} AND ${ids} AND b.value > 0
            AND ${after("b.value", "b.token_address", "b.token_id")}
          ORDER BY ${order} LIMIT $2)`,
    );
  const kinds = [
    ...balanceRanges(fungibleTypes, "b.token_id < 0", "b.value DESC, b.token_address DESC"),
    ...(types.length === 0 || types.includes("ERC-721")
      ? [
          `(SELECT h.token_address, -1 AS token_id, h.ids_value AS value, h.token_contract_type AS type, h.holder
            FROM token_holders h
            WHERE h.holder = $1 AND h.token_contract_type = 'ERC-721'
              AND ${after("h.ids_value", "h.token_address", "-1")}
            ORDER BY h.ids_value DESC, h.token_address DESC LIMIT $2)`,
        ]
      : []),
    ...balanceRanges(idTypes, "b.token_id >= 0", "b.value DESC, b.token_address DESC, b.token_id DESC"),
  ];
  if (kinds.length === 0) return [];
  return db.query<AddressTokenRow>(
    `WITH held AS (
       ${kinds.join("\n       UNION ALL\n       ")}
     )
     SELECT ${hexColumn("h.token_address", "token_address")}, h.token_id::text AS token_id, h.value::text AS value,
       h.type, ${instanceColumns("h")}
     FROM held h
     LEFT JOIN token_instances ti ON ti.token_address = h.token_address AND ti.token_id = h.token_id
     ORDER BY h.value DESC, h.token_address DESC, h.token_id DESC
     LIMIT $2`,
    params,
    { orderedScans: true },
  );
}

export type NftCollectionRow = InstanceColumns & {
  token_address: string;
  type: string;
  /** Ids of the collection the address holds. */
  amount: string;
  token_id: string;
  value: string;
};

export type NftCollectionsCursor = { token_address: string | null; token_type: string | null };

export type ListNftCollectionsParameters = {
  address: string;
  /** NFT types to keep; empty keeps all three. */
  types: string[];
  cursor: NftCollectionsCursor;
  /** Collections per page. */
  limit: number;
  /** Instances listed per collection, highest id first. */
  instances: number;
};

const typeRank = `CASE t.type WHEN 'ERC-721' THEN 0 WHEN 'ERC-1155' THEN 1 ELSE 2 END`;

/** Position of an NFT type in the collections order: ERC-721, ERC-1155, ERC-404. */
export function nftTypeRank(type: string): number {
  return (nftTokenTypes as readonly string[]).indexOf(type);
}

/**
 * One page of the NFT collections an address holds ids of (ERC-721, then ERC-1155, then ERC-404, token
 * address ascending within), as one row per listed instance: each collection with its `instances`
 * highest ids. A cursor with only a token address resumes after that token in its type's group. The
 * collections and their counts are the address's token_holders rows: no id is counted per page.
 */
export async function listNftCollections(
  db: Queryable,
  { address, types, cursor, limit, instances }: ListNftCollectionsParameters,
): Promise<NftCollectionRow[]> {
  const kept = nftTokenTypes.filter((type) => types.length === 0 || types.includes(type));
  if (kept.length === 0) return [];
  const params: unknown[] = [byteaParam(address), limit, instances];
  // Which of a type's collections come after the cursor: all of them, those after its token, or none.
  let after = (_rank: number) => "TRUE";
  const cursorRank = cursor.token_type === null ? null : nftTypeRank(cursor.token_type);
  if (cursor.token_address !== null) {
    const token = `$${params.push(byteaParam(cursor.token_address))}::bytea`;
    const rank =
      cursorRank === null
        ? `COALESCE((SELECT ${typeRank} FROM tokens t WHERE t.address = ${token}), 3)`
        : `$${params.push(cursorRank)}::int`;
    // A bound of the index range, computed once: none (null) ends the type's range before it is read.
    after = (typeRankOf) =>
      `h.token_address > CASE WHEN ${rank} = ${typeRankOf} THEN ${token} WHEN ${rank} < ${typeRankOf} THEN '\\x'::bytea END`;
  } else if (cursorRank !== null) {
    const rank = `$${params.push(cursorRank)}::int`;
    after = (typeRankOf) => `${typeRankOf} > ${rank}`;
  }
  // Each type's collections are a range of the holder's holdings, read by token address and cut at a page,
  // then the types in their order: a page costs the same for a holder of 10 collections or of 100,000.
  const ranges = kept.map((type) => {
    const rank = nftTypeRank(type);
    return `(SELECT h.token_address, h.token_contract_type AS type, ${rank} AS type_rank, h.ids AS amount
       FROM token_holders h
       WHERE h.holder = $1 AND h.token_contract_type = ${tokenTypeLiteral(type)} AND ${after(rank)}
       ORDER BY h.token_address LIMIT $2)`;
  });
  return db.query<NftCollectionRow>(
    `WITH page AS (
       SELECT * FROM (${ranges.join(" UNION ALL ")}) c ORDER BY c.type_rank, c.token_address LIMIT $2
     )
     SELECT ${hexColumn("p.token_address", "token_address")}, p.type, p.amount::text AS amount,
       i.token_id::text AS token_id, i.value::text AS value, ${instanceColumns("i")}
     FROM page p
     CROSS JOIN LATERAL (
       SELECT b.token_address, b.token_id, b.value, b.holder, p.type
       FROM token_balances b
       WHERE b.holder = $1 AND b.token_address = p.token_address AND b.value > 0 AND b.token_id >= 0
       ORDER BY b.token_id DESC
       LIMIT $3
     ) i
     LEFT JOIN token_instances ti ON ti.token_address = i.token_address AND ti.token_id = i.token_id
     ORDER BY p.type_rank, p.token_address, i.token_id DESC`,
    params,
    { orderedScans: true },
  );
}

export type TokenHolderRow = { holder: string; value: string; token_id: string | null };

export type TokenHoldersCursor = { value: string | null; holder: string | null; token_id: string | null };

export type ListTokenHoldersParameters = {
  token: string;
  /** The token's type: decides what a holder row is. */
  type: string;
  /** Holders of this one id only (an instance's holders). */
  tokenId?: string;
  cursor: TokenHoldersCursor;
  limit: number;
};

/**
 * One page of the holders (balance above zero) of a token, largest balance first, then holder address
 * descending. A holder row is: the fungible balance (ERC-20, ERC-404), the number of ids held (ERC-721),
 * the balance of one id (ERC-1155: one row per holder and id, ties broken by id descending), or, with
 * `tokenId`, the balance of that id.
 */
export async function listTokenHolders(
  db: Queryable,
  { token, type, tokenId, cursor, limit }: ListTokenHoldersParameters,
): Promise<TokenHolderRow[]> {
  const params: unknown[] = [byteaParam(token), limit];
  let rows: string;
  let byId = false;
  // The balance row a holder row is, named from the cursor's holder, for reading the cursor's exact value
  // back (parameters bound only when the lookup is made); an ERC-721 holder row counts ids (a small exact
  // number) and is no single row.
  let lastRow: ((holder: string) => BalanceRowSql) | null = (holder) => ({
    token: "$1",
    tokenId: "-1",
    holder,
  });
  if (tokenId !== undefined) {
    const id = `$${params.push(tokenId)}::numeric`;
    lastRow = (holder) => ({ token: "$1", tokenId: id, holder });
    rows = `SELECT holder, value, token_id FROM token_balances
            WHERE token_address = $1 AND token_id = ${id} AND value > 0`;
  } else if (type === "ERC-721") {
    lastRow = null;
    rows = `SELECT holder, ids_value AS value, NULL::numeric AS token_id FROM token_holders
            WHERE token_address = $1`;
  } else if (type === "ERC-1155") {
    byId = true;
    const cursorId = cursor.token_id;
    lastRow = (holder) =>
      cursorId === null
        ? { token: "$1", anyIdOfType: `$${params.push(type)}::text`, holder }
        : { token: "$1", tokenId: `$${params.push(cursorId)}::numeric`, holder };
    rows = `SELECT holder, value, token_id FROM token_balances
            WHERE token_address = $1 AND token_id >= 0 AND value > 0`;
  } else {
    rows = `SELECT holder, value, NULL::numeric AS token_id FROM token_balances
            WHERE token_address = $1 AND token_id = -1 AND value > 0`;
  }
  let keyset = "TRUE";
  if (cursor.value !== null && cursor.holder === null)
    keyset = `h.value < $${params.push(belowDoubleRounding(cursor.value))}::numeric`;
  // A cursor that names its last row but has lost its value resumes at the row's stored value; an
  // ERC-1155 holder without the id names no one row.
  else if (cursor.holder !== null && (cursor.value !== null || !(byId && cursor.token_id === null))) {
    const sentValue = cursor.value;
    const holder = `$${params.push(byteaParam(cursor.holder))}::bytea`;
    let value: string;
    if (sentValue !== null) {
      const sent = `$${params.push(sentValue)}::numeric`;
      value = resumeValueSql(sent, sentValue, lastRow && (() => lastRow(holder)));
    } else {
      const row = lastRow?.(holder);
      value = storedValueSql(
        row && "tokenId" in row
          ? storedBalanceSql(row)
          : `SELECT ids_value FROM token_holders WHERE token_address = $1 AND holder = ${holder} AND ids_value > 0`,
      );
    }
    keyset =
      byId && cursor.token_id !== null
        ? `(h.value, h.holder, h.token_id) < (${value}, ${holder}, $${params.push(cursor.token_id)}::numeric)`
        : `(h.value, h.holder) < (${value}, ${holder})`;
  }
  return db.query<TokenHolderRow>(
    `SELECT ${hexColumn("h.holder", "holder")}, h.value::text AS value, h.token_id::text AS token_id
     FROM (${rows}) h
     WHERE ${keyset}
     ORDER BY h.value DESC, h.holder DESC${byId ? ", h.token_id DESC" : ""}
     LIMIT $2`,
    params,
    { orderedScans: true },
  );
}
