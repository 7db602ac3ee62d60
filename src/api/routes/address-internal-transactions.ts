import type { FastifyInstance } from "fastify";
import { listAddressInternalTransactions } from "../../db/queries/address-internal-transactions.ts";
import { findAddresses } from "../../db/queries/addresses.ts";
import { pageSize, toPage } from "../paging.ts";
import {
  addressHashParams,
  bigintCursor,
  commonListQuery,
  cursorInteger,
  indexCursor,
  lowerHex,
} from "../params.ts";
import { endpointDocs } from "../schemas/endpoints.ts";
import type { ApiContext } from "../server.ts";
import { internalTransactionAddresses, renderInternalTransaction } from "../views/internal-transaction.ts";

type Query = { filter?: "to" | "from"; block_number?: string; transaction_index?: string; index?: string };

const querystring = {
  type: "object",
  additionalProperties: false,
  properties: {
    filter: { type: "string", enum: ["to", "from"] },
    block_number: bigintCursor,
    transaction_index: indexCursor,
    index: indexCursor,
    ...commonListQuery,
  },
} as const;

/** Endpoint 12: the internal transactions an address made, received or was created by, newest first. */
export function addressInternalTransactionsRoute(app: FastifyInstance, { db }: ApiContext) {
  app.get<{ Params: { address_hash_param: string }; Querystring: Query }>(
    "/api/v2/addresses/:address_hash_param/internal-transactions",
    { schema: { ...endpointDocs.addressInternalTransactions, params: addressHashParams, querystring } },
    async (request) => {
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
  );
}
