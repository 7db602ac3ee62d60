import { listAddressInternalTransactions } from "../../db/queries/address-internal-transactions.ts";
import { findAddresses } from "../../db/queries/addresses.ts";
import { defineEndpoint } from "../define-endpoint.ts";
import { pageSize, toPage } from "../paging.ts";
import {
  addressHashParams,
  blockNumberCursor,
  commonListQuery,
  cursorInteger,
  documented,
  indexCursor,
  lowerHex,
} from "../params.ts";
import { demo, integer, object } from "../schemas/common.ts";
import { emptyForUnknown, itemsCount, listPage, listResponses } from "../schemas/lists.ts";
import { internalTransactionAddresses, renderInternalTransaction } from "../views/internal-transaction.ts";

type Query = { filter?: "to" | "from"; block_number?: string; transaction_index?: string; index?: string };

/** Endpoint 12: the internal transactions an address made, received or was created by, newest first. */
export const addressInternalTransactions = defineEndpoint<{
  Params: { address_hash_param: string };
  Querystring: Query;
}>({
  number: 12,
  method: "GET",
  path: "/api/v2/addresses/:address_hash_param/internal-transactions",
  schema: {
    operationId: "addressInternalTransactions",
    summary: "Internal transactions of an address",
    description: `Internal calls the address made, received or was created by, newest first (block number, transaction index, call index, descending). The top-level call (index 0, type call) is left out: it repeats the transaction itself. ${emptyForUnknown}`,
    tags: ["addresses"],
    params: addressHashParams({ example: demo.caller }),
    querystring: {
      type: "object",
      additionalProperties: false,
      properties: {
        filter: documented(
          { type: "string", enum: ["to", "from"] },
          { description: "`to`: received (and created); `from`: made. Absent: both.", example: "from" },
        ),
        block_number: blockNumberCursor,
        transaction_index: indexCursor("transaction index of the last item"),
        index: indexCursor("index of the last item"),
        ...commonListQuery,
      },
    },
    response: listResponses("InternalTransactionsPage", "A page of internal transactions."),
  },
  components: {
    InternalTransactionsNextPageParams: object({
      block_number: integer("Block number of the last call.", 346),
      index: integer("Index of the last call in its transaction.", 1),
      transaction_index: integer("Index of the last call's transaction in its block.", 2),
      items_count: itemsCount,
    }),
    InternalTransactionsPage: listPage(
      "InternalTransaction",
      "InternalTransactionsNextPageParams",
      "Internal transactions.",
    ),
  },
  handler: async ({ db }, request) => {
    const { query } = request;
    const rows = await listAddressInternalTransactions(db, {
      address: lowerHex(request.params.address_hash_param),
      filter: query.filter,
      cursor: {
        block_number: cursorInteger(query.block_number),
        transaction_index: cursorInteger(query.transaction_index),
        index: cursorInteger(query.index),
      },
      limit: pageSize + 1,
    });
    const addresses = await findAddresses(db, rows.flatMap(internalTransactionAddresses));
    return toPage(
      rows,
      (row) => renderInternalTransaction(row, addresses),
      (last) => ({
        block_number: last.block_number,
        index: last.index,
        transaction_index: last.transaction_index,
      }),
    );
  },
});
