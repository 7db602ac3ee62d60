import type { Queryable } from "../client.ts";
import { type DirectionFilter, transferDirectionsFor } from "../direction.ts";
import { byteaParam, tokenTypeLiteral } from "../table-rows.ts";
import { batchHeadItems } from "../tables.ts";
import type { TransactionRow } from "./address-transactions.ts";
import { createParameters, hexColumn, limitSql, rangeOfOne } from "./keyset.ts";
import { rowsOfTransactions, type TransactionLogRange, transactionKey } from "./of-transactions.ts";
import { type InstanceColumns, isUniqueSql, type TokenRow } from "./token-balances.ts";

export type TokenTransferRow = InstanceColumns & {
  block_number: number;
  transaction_index: number;
  log_index: number;
  /** 1-based position of the id inside an ERC-1155 batch; 1 for every other transfer. */
  position: number;
  block_hash: string;
  transaction_hash: string;
  timestamp: number;
  input_selector: string | null;
  /** The transaction's `to`, whose imported ABI names `method`; null for a contract creation. */
  transaction_to: string | null;
  token_address: string;
  from_address: string;
  to_address: string;
  token_type: string;
  token_id: string | null;
  amount: string | null;
  /** The transferred token's columns, read with the transfer (see `transferToken`). */
  token_name: string | null;
  token_symbol: string | null;
  token_decimals: number | null;
  token_total_supply: string | null;
  token_holders_count: number;
};

/** The token of a transfer, as `findTokens` gives a token. */
export function transferToken(row: TokenTransferRow): TokenRow {
  return {
    address: row.token_address,
    type: row.token_type,
    name: row.token_name,
    symbol: row.token_symbol,
    decimals: row.token_decimals,
    total_supply: row.token_total_supply,
    holders_count: Number(row.token_holders_count),
  };
}

/** What a transfer shows of its transaction: taken from the transaction when the caller has it. */
export type TransferTransaction = Pick<
  TransactionRow,
  | "block_number"
  | "index"
  | "hash"
  | "block_hash"
  | "timestamp"
  | "input"
  | "to_address"
  | "first_log_index"
  | "log_count"
>;

/**
 * The senders and recipients of the first `perTransaction` transfers of each of `transactions` (those a
 * transaction list's preview can show), as SQL selecting one bytea column; parameters bound with `bind`.
 * Null when none of the transactions has a log.
 */
export function transferPartiesOf(
  transactions: readonly TransactionLogRange[],
  perTransaction: number,
  bind: (value: unknown) => string,
): string | null {
  const transfers = rowsOfTransactions("token_transfers", "t", transactions, bind, {
    firstRows: perTransaction,
  });
  if (transfers === null) return null;
  return `SELECT unnest(ARRAY[t.from_address, t.to_address]) FROM (SELECT t.from_address, t.to_address,
       row_number() OVER (PARTITION BY t.block_number, t.transaction_index ORDER BY t.log_index) AS nth
     FROM ${transfers}) t WHERE nth <= ${bind(perTransaction)}`;
}

export type TokenTransfersCursor = {
  block_number?: number | null;
  index?: number | null;
  /** 1-based position inside a batch already shown up to; the rest of the batch follows. */
  index_in_batch?: number | null;
};

export type ListTokenTransfersParameters = {
  /** Token types to keep (the token's type, e.g. ERC-404); empty keeps all. */
  types: string[];
  cursor: TokenTransfersCursor;
  limit: number;
} & (
  | {
      /** Transfers from or to this address (endpoint 13); all transfers when absent (endpoint 8). */
      address?: string;
      /** `from`: sent by the address; `to`: received by it. */
      filter?: DirectionFilter;
      /** Token contract to keep. */
      token?: string;
      transactions?: undefined;
      perTransaction?: undefined;
      oldestFirst?: undefined;
    }
  | {
      address?: undefined;
      filter?: undefined;
      token?: undefined;
      /**
       * Only the transfers of these transactions, at most `perTransaction` each (the transaction list's);
       * their block and input are taken from these rows, not looked up again.
       */
      transactions: TransferTransaction[];
      perTransaction?: number;
      /** In the order they happened (a transaction's summary) instead of newest first. */
      oldestFirst?: boolean;
    }
);

/**
 * One page of token transfers, newest first, an ERC-1155 batch spread into one row per id (same log
 * index, ids in the batch's order). A cursor inside a batch resumes at the batch's next id.
 */
export async function listTokenTransfers(
  db: Queryable,
  {
    address,
    filter,
    token,
    types,
    cursor,
    limit,
    transactions,
    perTransaction,
    oldestFirst = false,
  }: ListTokenTransfersParameters,
): Promise<TokenTransferRow[]> {
  // Two statements are the same ranges of the transfers' own key whatever the values, and keep one plan for
  // any values (their generic plan), as planning them again at every request cost as much as running them:
  // every transfer of the chain, newest first (endpoint 8 without a type), and the transfers of given
  // transactions, one range per transaction (endpoints 2 and 7). Every other page is first planned with its
  // own values (a type or an address may be rare, and only its values tell the planner so), and PostgreSQL
  // keeps a plan for any values once that costs no more.
  const samePlanForAnyValues =
    transactions !== undefined || (address === undefined && token === undefined && types.length === 0);
  // The limit is a parameter, but written into each range of one value (`rangeOfOne`): such a range is read
  // in its column's order, so the page sorts the rows it takes from it, and with the limit unknown the plan
  // PostgreSQL would keep for any values priced that sort as of a tenth of the range and was never kept:
  // every such page was planned again (0.6 ms of its 1.0 at 10 M). A type written as an equality could not
  // have its limit written in: its kept plan walked every transfer from the newest, priced as cheap as the
  // type's own plans, and took 0.8–11 s for a type that only old blocks hold (docs/performance.md, "An
  // eleventh machine at 10 M"); a range of the type's one value has no such plan.
  const { params, bind } = createParameters([limit]);
  // Each type kept is its own index range scan (on the type stamped on the rows, see storeTokensAndTypes),
  // merged in page order: no walk past the transfers of other types, however old the matches are. An
  // address's rows are split further by direction, which follows the address in their keys: one range
  // per direction the filter keeps and type, so a rare direction never walks the other one's rows.
  // The types are written into the statement, so that even the plan PostgreSQL keeps for any values (which it
  // does once the statement's own plans cost no less) reads each type's range. As parameters, the plan kept
  // after five executions walked every transfer from the newest to find a type only old blocks hold: 200–300
  // ms for endpoint 8 with `type=ERC-404` on the 3 M dataset, whose ERC-404 transfers are in its first 303
  // blocks (docs/performance.md, "A page of token transfers over large ERC-1155 batches").
  const typeParams = [...new Set(types)].sort().map(tokenTypeLiteral);
  const typed = (table: string) =>
    typeParams.length === 0
      ? table
      : `(${typeParams.map((type) => `SELECT * FROM ${table} WHERE token_contract_type = ${type}`).join(" UNION ALL ")})`;
  const typeRanges = (alias: string) =>
    typeParams.length === 0 ? [[]] : typeParams.map((type) => [`${alias}.token_contract_type = ${type}`]);
  const addressRanges = transferDirectionsFor(filter).flatMap((direction) =>
    typeRanges("a").map((range) => [`a.direction = ${direction}`, ...range]),
  );
  // A page of the list (no `transactions`) takes its transfers' keys first, by the index of its source,
  // then joins their rows: a cursor bounds the index scan itself, not a join walking down to it.
  const keysFirst = transactions === undefined;
  // An address's transfers of one token are ranges of the token's indexes by sender and by recipient:
  // neither the address's transfers of other tokens nor the token's between other parties are walked.
  const byToken = keysFirst && address !== undefined && token !== undefined;
  const key = address === undefined || byToken ? "t" : "a";
  // Conditions on the address's rows and on the transfers.
  const addressWhere: string[] = [];
  const transferWhere: string[] = [];
  const addressParam = address === undefined ? "" : bind(byteaParam(address));
  if (address !== undefined && !byToken) addressWhere.push(`a.address = ${addressParam}`);
  const tokenParam = token === undefined ? "" : bind(byteaParam(token));
  if (token !== undefined) transferWhere.push(`t.token_address = ${tokenParam}`);
  // The first position of a transfer's ids the page can show: past the cursor in its own batch.
  let firstPosition = "1";
  if (cursor.block_number != null) {
    const block = bind(cursor.block_number);
    const at = keysFirst ? key : "t";
    const cursorWhere = at === "a" ? addressWhere : transferWhere;
    if (cursor.index == null) {
      cursorWhere.push(`${at}.block_number < ${block}`);
    } else if (cursor.index_in_batch == null) {
      cursorWhere.push(`(${at}.block_number, ${at}.log_index) < (${block}, ${bind(cursor.index)})`);
    } else {
      // The cursor's own batch stays in, spread from its next id on.
      const index = bind(cursor.index);
      const shown = bind(cursor.index_in_batch);
      cursorWhere.push(`(${at}.block_number, ${at}.log_index) <= (${block}, ${index})`);
      firstPosition = `CASE WHEN (t.block_number, t.log_index) = (${block}, ${index}) THEN ${shown}::int + 1 ELSE 1 END`;
    }
  }
  const whereSql = (conditions: string[]) =>
    conditions.length > 0 ? `WHERE ${conditions.join(" AND ")}` : "";
  const joinTransfers =
    "JOIN token_transfers t ON t.block_number = a.block_number AND t.log_index = a.log_index";
  // A range's conditions and, when it is the range of one value of a column (`rangeOfOne`), that column,
  // which heads its order.
  type Range = { where: string[]; of?: string };
  const pageOrder = (alias: string, of?: string) =>
    `ORDER BY ${of === undefined ? "" : `${of} DESC, `}${alias}.block_number DESC, ${alias}.log_index DESC
     LIMIT ${of === undefined ? "$1 + 1" : limitSql(limit + 1)}`;
  // Every stored transfer gives at least one row (a batch without ids is malformed and not stored); the
  // cursor's own batch may give none past its position: one more transfer than the page's rows fills it.
  // Each range is read in page order and cut at that many before the ranges merge: left to merge them,
  // the planner may read a range whole and sort it, a cost that grows with the address's history.
  // Ranges that may share a row keep it once, told by its key alone (comparing whole rows would read their
  // batches' arrays).
  const firstOfRanges = (
    select: string,
    from: string,
    alias: string,
    ranges: Range[],
    { shareRows = false } = {},
  ) =>
    `(SELECT ${shareRows ? `DISTINCT ON (${alias}.block_number, ${alias}.log_index) ` : ""}* FROM (${ranges
      .map(({ where, of }) => `(SELECT ${select} FROM ${from} ${whereSql(where)} ${pageOrder(alias, of)})`)
      .join(" UNION ALL ")}) ${alias} ${pageOrder(alias)}) ${alias}`;
  let transfers: string;
  if (!keysFirst) {
    // Each stored transfer gives at least one row, so a transaction's first `perTransaction` transfers (or,
    // in the order they happened, the page's `limit`) hold every row it can show: a transaction of 1,000
    // transfers is not read whole for a preview of 11 rows.
    const ofTransactions = rowsOfTransactions(typed("token_transfers"), "t", transactions, bind, {
      firstRows:
        cursor.block_number != null ? undefined : (perTransaction ?? (oldestFirst ? limit : undefined)),
    });
    if (ofTransactions === null) return [];
    transfers = ofTransactions;
  } else if (address === undefined) {
    // Each type the range of its one value: a type common in old blocks only was found by walking every newer
    // transfer, checking each one's type, in the plan made for its values.
    const column = "t.token_contract_type";
    transfers = firstOfRanges(
      "t.*",
      "token_transfers t",
      "t",
      typeParams.length === 0
        ? [{ where: transferWhere }]
        : typeParams.map((type) => ({ where: [...transferWhere, rangeOfOne(column, type)], of: column })),
    );
  } else if (byToken) {
    // A transfer to oneself is in both ranges, and kept once when they merge. Left out of the recipient's
    // range instead, row by row, it made that range read every transfer to oneself newer than the page's
    // last one received from another (docs/performance.md, "Left-aligned topics and transfers to oneself").
    // Each side is the range of the address's one value in the token's index by that party: an empty side
    // (the address never received the token) was found so by walking every transfer of the chain, when the
    // token and the address were each common, in the plan made for their values.
    const sides = [filter !== "to" && "t.from_address", filter !== "from" && "t.to_address"].filter(
      (side) => side !== false,
    );
    // Every transfer of a token carries the token's type (restamped when it changes), so the types asked
    // for are the token's own or none of its transfers': one check of the token's row, before any range is
    // read. A range per type read every transfer between the address and the token for the types it is not.
    const typesOfToken =
      typeParams.length === 0
        ? []
        : [
            `t.token_contract_type IN (${typeParams.join(", ")})`,
            `EXISTS (SELECT 1 FROM tokens k WHERE k.address = ${tokenParam} AND k.type IN (${typeParams.join(", ")}))`,
          ];
    transfers = firstOfRanges(
      "t.*",
      "token_transfers t",
      "t",
      sides.map((side) => ({
        where: [rangeOfOne(side, addressParam), ...transferWhere, ...typesOfToken],
        of: side,
      })),
      { shareRows: sides.length > 1 },
    );
  } else {
    // The keys from the address's index alone: joined there, the planner may walk every transfer of the
    // chain newest first and look each up in the address's index when it expects many matches.
    transfers = `${firstOfRanges(
      "a.block_number, a.log_index",
      "address_token_transfers a",
      "a",
      addressRanges.map((range) => ({ where: [...addressWhere, ...range] })),
    )} ${joinTransfers}`;
  }
  const outerWhere = keysFirst ? [] : transferWhere;
  // No page shows more ids than this of one transfer, nor of all of a transaction's (a preview) or of all
  // the transfers read (a page).
  const rowsWanted = perTransaction === undefined ? "$1::int" : `${bind(perTransaction)}::int`;
  const direction = oldestFirst ? "" : " DESC";
  const order = `block_number${direction}, log_index${direction}, position`;
  // Each transfer gives the ids that follow those shown before it, in the order of the page (or of its
  // transaction's preview), while fewer than `rowsWanted` are: counted from the transfers' stored item
  // counts, only the ids shown are spread, and only the transfers shown have their arrays read. Spread
  // first and cut after, each of a page's 51 transfers read its whole arrays, whose first batch alone can
  // fill it (docs/performance.md, "A page of token transfers over large ERC-1155 batches").
  const budget =
    perTransaction === undefined
      ? `ORDER BY t.block_number${direction}, t.log_index${direction}`
      : "PARTITION BY t.block_number, t.transaction_index ORDER BY t.log_index";
  const counted = `SELECT t.*, sum(t.items) OVER (${budget} ROWS UNBOUNDED PRECEDING) - t.items AS before
     FROM (SELECT t.*, greatest(least(t.item_count - t.first + 1, ${rowsWanted}), 0) AS items
       FROM (SELECT t.*, ${firstPosition} AS first FROM ${transfers} ${whereSql(outerWhere)}) t) t`;
  // The ids and amounts a transfer shows, from its batch's head when the head holds them all: a slice of the
  // whole arrays reads them whole, out of line once a batch holds a few hundred ids (docs/performance.md, "A
  // batch's first ids kept apart"). Compared with what the head holds, not with `batchHeadItems`, so that heads
  // stored under a smaller one still give every id. The head is looked up in a subquery kept apart (`OFFSET 0`),
  // whose condition on the transfer's item count is checked before any probe: pulled up into a join, the
  // planner hashed every head of the chain for a page, or probed the heads for every transfer.
  const shownSlice = (column: "token_ids" | "amounts") =>
    `CASE WHEN r.last <= cardinality(h.${column}) THEN h.${column}[t.first:r.last] ELSE t.${column}[t.first:r.last] END`;
  // The rows a page shows are chosen first, from the transfers alone: the lookups below (token, block,
  // transaction, instance, is_unique) are made for those rows only. Their limit keeps them a statement of
  // their own, planned apart from the lookups: as one join, a typed page took 0.4–0.8 ms more to plan.
  const shown = `SELECT t.block_number, t.transaction_index, t.log_index, t.token_address,
       t.from_address, t.to_address, x.position::int AS position, x.token_id, x.amount
     FROM (${counted}) t
     CROSS JOIN LATERAL (SELECT t.first + least(t.items, ${rowsWanted} - t.before) - 1 AS last) r
     LEFT JOIN LATERAL (
       SELECT h.token_ids, h.amounts FROM token_transfer_heads h
       WHERE t.item_count > ${batchHeadItems} AND r.last <= ${batchHeadItems}
         AND h.block_number = t.block_number AND h.log_index = t.log_index
       OFFSET 0
     ) h ON true
     CROSS JOIN LATERAL unnest(${shownSlice("token_ids")}, ${shownSlice("amounts")})
       WITH ORDINALITY AS spread(token_id, amount, ordinal)
     CROSS JOIN LATERAL (SELECT spread.token_id, spread.amount, spread.ordinal + t.first - 1 AS position) x
     WHERE t.items > 0 AND t.before < ${rowsWanted}
     ORDER BY ${order} LIMIT $1`;
  // The block and transaction of each row (the transaction's hash is not stored with the transfer), unless
  // the caller has its transactions.
  const located =
    transactions === undefined
      ? {
          columns: `${hexColumn("tx.hash", "transaction_hash")}, ${hexColumn("b.hash", "block_hash")}, b.timestamp,
       CASE WHEN length(tx.input) >= 4 THEN '0x' || encode(substring(tx.input FROM 1 FOR 4), 'hex') END AS input_selector,
       ${hexColumn("tx.to_address", "transaction_to")},`,
          joins: `JOIN blocks b ON b.number = t.block_number
     JOIN transactions tx ON tx.block_number = t.block_number AND tx.index = t.transaction_index`,
        }
      : { columns: "", joins: "" };
  // The token and the instance are one primary-key lookup per row, is_unique included (LIMIT keeps each
  // subquery from being flattened into a join: there the planner read all the token's instances for a few
  // rows, and hashed every token of the chain for a page of transactions, whose rows it overestimates as
  // each transfer's batch is spread).
  const query = `SELECT t.block_number, t.transaction_index, t.log_index, t.position,
       ${located.columns}
       ${hexColumn("t.token_address", "token_address")}, ${hexColumn("t.from_address", "from_address")},
       ${hexColumn("t.to_address", "to_address")}, k.type AS token_type, t.token_id::text AS token_id, t.amount::text AS amount,
       k.name AS token_name, k.symbol AS token_symbol, k.decimals AS token_decimals,
       k.total_supply AS token_total_supply, k.holders_count AS token_holders_count,
       i.token_address IS NOT NULL AS has_instance, i.metadata, i.metadata_error,
       ${isUniqueSql("i", "t.token_id")} AS is_unique
     FROM (${shown}) t
     JOIN LATERAL (
       SELECT k.type, k.name, k.symbol, k.decimals, k.total_supply, k.holders_count FROM tokens k
       WHERE k.address = t.token_address
       LIMIT 1
     ) k ON true
     ${located.joins}
     LEFT JOIN LATERAL (
       SELECT i.token_address, i.metadata, i.metadata_error, i.holders, i.units FROM token_instances i
       WHERE i.token_address = t.token_address AND i.token_id = t.token_id
       LIMIT 1
     ) i ON true`;
  const rows = await db.query<TokenTransferRow>(`${query} ORDER BY ${order} LIMIT $1`, params, {
    genericPlan: samePlanForAnyValues,
    orderedScans: true,
  });
  if (transactions !== undefined) {
    // Set in place: a copy of each of a page's hundreds of rows cost more than the statement saved.
    const byPosition = new Map(
      transactions.map((transaction) => [
        transactionKey(transaction.block_number, transaction.index),
        transaction,
      ]),
    );
    for (const row of rows) {
      const transaction = byPosition.get(transactionKey(row.block_number, row.transaction_index));
      if (transaction === undefined) continue;
      row.transaction_hash = transaction.hash;
      row.block_hash = transaction.block_hash;
      row.timestamp = transaction.timestamp;
      row.input_selector = transaction.input.length >= 10 ? transaction.input.slice(0, 10) : null;
      row.transaction_to = transaction.to_address;
    }
  }
  return rows;
}
