import {
  findAddressTransactionCursor,
  listAddressTransactions,
  type TransactionSort,
} from "../../db/queries/address-transactions.ts";
import { findAddresses } from "../../db/queries/addresses.ts";
import { transactionKey } from "../../db/queries/of-transactions.ts";
import { listTokenTransfers } from "../../db/queries/token-transfers.ts";
import { defineEndpoint } from "../define-endpoint.ts";
import { timestamp } from "../format.ts";
import { pageSize, toPage } from "../paging.ts";
import {
  addressHashParams,
  blockNumberCursor,
  commonListQuery,
  cursorDecimal,
  cursorHex,
  cursorInteger,
  documented,
  hashCursor,
  indexCursor,
  lowerHex,
  uint256Cursor,
} from "../params.ts";
import { decimal, fullHash, integer, object, timestamp as timestampSchema } from "../schemas/common.ts";
import { emptyForUnknown, itemsCount, lastBlockNumber, listPage, listResponses } from "../schemas/lists.ts";
import { loadTransactionActions } from "../transaction-actions.ts";
import { renderTokenTransfer } from "../views/token-transfer.ts";
import { renderTransaction, transactionAddresses, transferPreview } from "../views/transaction.ts";

type Query = {
  filter?: "to" | "from";
  sort?: TransactionSort;
  order?: "asc" | "desc";
  block_number?: string;
  index?: string;
  value?: string;
  fee?: string;
  hash?: string;
};

/** Endpoint 2: the transactions an address sent, received or created, newest first or sorted. */
export const addressTransactions = defineEndpoint<{
  Params: { address_hash_param: string };
  Querystring: Query;
}>({
  number: 2,
  method: "GET",
  path: "/api/v2/addresses/:address_hash_param/transactions",
  schema: {
    operationId: "addressTransactions",
    summary: "Transactions of an address",
    description: `Transactions the address sent, received or created, newest first (block number, then position, descending), or sorted by \`sort\` and \`order\` (ties of a sort by value or fee newest first in either order, as Blockscout breaks them). ${emptyForUnknown}`,
    tags: ["addresses"],
    params: addressHashParams(),
    querystring: {
      type: "object",
      additionalProperties: false,
      properties: {
        filter: documented(
          { type: "string", enum: ["to", "from"] },
          { description: "`to`: received or created; `from`: sent. Absent: all.", example: "from" },
        ),
        sort: documented(
          { type: "string", enum: ["block_number", "value", "fee"] },
          { description: "Sort key; applies only together with `order`.", example: "value" },
        ),
        order: documented(
          { type: "string", enum: ["asc", "desc"] },
          { description: "Sort direction; applies only together with `sort`.", example: "desc" },
        ),
        block_number: blockNumberCursor,
        index: indexCursor("position of the last transaction in its block"),
        value: uint256Cursor("value of the last transaction (with `sort=value`)"),
        fee: uint256Cursor("fee of the last transaction (with `sort=fee`)"),
        hash: hashCursor("hash of the last transaction; used when the sort key is missing"),
        inserted_at: documented(
          { type: "string" },
          { description: "Cursor key from `next_page_params`; accepted and ignored." },
        ),
        ...commonListQuery,
      },
    },
    response: listResponses("TransactionsPage", "A page of transactions."),
  },
  components: {
    AddressTransactionsNextPageParams: object({
      block_number: lastBlockNumber,
      index: integer("Position of the last transaction in its block.", 0),
      hash: fullHash(
        "Hash of the last transaction.",
        "0x7ebab240032cadf022ba39df2110c9f35c0fd2dfb6e83850ce2a6969bce1cc20",
      ),
      inserted_at: timestampSchema("Block time of the last transaction."),
      value: decimal("Value of the last transaction.", "0"),
      fee: decimal("Fee of the last transaction.", "81848000572936"),
      items_count: itemsCount,
    }),
    TransactionsPage: listPage("Transaction", "AddressTransactionsNextPageParams", "Transactions."),
  },
  handler: async ({ db, chainHead, protocols, ipfsPublicGateway }, request) => {
    const address = lowerHex(request.params.address_hash_param);
    const query = request.query;
    // Blockscout sorts only when both are given; otherwise the default order holds.
    const sorted = query.sort !== undefined && query.order !== undefined;
    const sort = sorted ? (query.sort as TransactionSort) : "block_number";
    const order = sorted ? (query.order as "asc" | "desc") : "desc";
    let cursor = {
      block_number: cursorInteger(query.block_number),
      index: cursorInteger(query.index),
      value: cursorDecimal(query.value),
      fee: cursorDecimal(query.fee),
    };
    const leadingKey = sort === "block_number" ? cursor.block_number : cursor[sort];
    // Clients send partial cursors; the row they name gives the keys they left out.
    const hash = cursorHex(query.hash);
    if (leadingKey === null && hash !== null) {
      const transaction = { hash };
      cursor = (await findAddressTransactionCursor(db, { address, transaction })) ?? cursor;
    } else if (leadingKey === null && cursor.block_number !== null && cursor.index !== null) {
      const transaction = { block_number: cursor.block_number, index: cursor.index };
      cursor = (await findAddressTransactionCursor(db, { address, transaction })) ?? cursor;
    }
    // Two rounds of statements: the page (and the head), then what its rows name (transfers, actions, and
    // the addresses of the rows and of their transfers, found from the rows' log ranges, with the ABIs of
    // the contracts called).
    const [rows, head] = await Promise.all([
      listAddressTransactions(db, {
        address,
        filter: query.filter,
        sort,
        order,
        cursor,
        limit: pageSize + 1,
      }),
      chainHead(request),
    ]);
    const shown = rows.slice(0, pageSize);
    const perTransaction = transferPreview + 1;
    const [transfers, actions, addresses] = await Promise.all([
      listTokenTransfers(db, {
        transactions: shown,
        perTransaction,
        types: [],
        cursor: {},
        limit: shown.length * (transferPreview + 1),
      }),
      loadTransactionActions(db, protocols, shown),
      findAddresses(db, shown.flatMap(transactionAddresses), {
        transfersOf: { transactions: shown, perTransaction },
        withAbis: shown.flatMap((row) => (row.to_address === null ? [] : [row.to_address])),
      }),
    ]);
    const byTransaction = new Map<string, unknown[]>();
    for (const transfer of transfers) {
      const key = transactionKey(transfer.block_number, transfer.transaction_index);
      byTransaction.set(key, [
        ...(byTransaction.get(key) ?? []),
        renderTokenTransfer(transfer, addresses, ipfsPublicGateway),
      ]);
    }
    return toPage(
      rows,
      (row) =>
        renderTransaction(row, addresses, head, {
          tokenTransfers: byTransaction.get(transactionKey(row.block_number, row.index)) ?? [],
          actions: actions.get(transactionKey(row.block_number, row.index)) ?? [],
          importedAbi: row.to_address === null ? null : (addresses.get(row.to_address)?.abi ?? null),
        }),
      (last) => ({
        block_number: last.block_number,
        index: last.index,
        hash: last.hash,
        inserted_at: timestamp(last.timestamp),
        value: last.value,
        fee: last.fee,
      }),
    );
  },
});
