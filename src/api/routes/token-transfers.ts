import type { FastifyInstance } from "fastify";
import { findAddresses } from "../../db/queries/addresses.ts";
import { findTokens } from "../../db/queries/token-balances.ts";
import { listTokenTransfers, type TokenTransferRow } from "../../db/queries/token-transfers.ts";
import { pageSize, toPage } from "../paging.ts";
import {
  addressHashParams,
  addressPattern,
  bigintCursor,
  commonListQuery,
  cursorInteger,
  hashPattern,
  indexCursor,
  limitParameter,
  lowerHex,
  rowsForLimit,
  tokenTypeList,
} from "../params.ts";
import { endpointDocs } from "../schemas/endpoints.ts";
import type { ApiContext } from "../server.ts";
import { renderTokenTransfer, tokenTransferAddresses } from "../views/token-transfer.ts";
import { invalidTokenType, tokenTypes } from "./address-tokens.ts";

type Query = {
  type?: string;
  limit?: string;
  filter?: "to" | "from";
  token?: string;
  block_number?: string;
  index?: string;
  index_in_batch?: string;
};

const cursorProperties = {
  block_number: bigintCursor,
  index: indexCursor,
  index_in_batch: indexCursor,
  // Blockscout's other batch keys, accepted back: the block and log already say where the batch is.
  batch_log_index: indexCursor,
  batch_block_hash: { type: "string", pattern: `${hashPattern}|^(null|)$` },
  batch_transaction_hash: { type: "string", pattern: `${hashPattern}|^(null|)$` },
  ...commonListQuery,
} as const;

async function page({ db }: ApiContext, rows: TokenTransferRow[]) {
  const [addresses, tokens] = await Promise.all([
    findAddresses(db, rows.flatMap(tokenTransferAddresses)),
    findTokens(
      db,
      rows.map((row) => row.token_address),
    ),
  ]);
  return toPage(
    rows,
    (row) => renderTokenTransfer(row, addresses, tokens),
    (last) => ({
      block_number: last.block_number,
      index: last.log_index,
      // Inside a batch with ids left, the next page resumes at the batch's next id.
      ...(last.position < last.batch_size
        ? {
            batch_log_index: last.log_index,
            batch_block_hash: last.block_hash,
            batch_transaction_hash: last.transaction_hash,
            index_in_batch: last.position,
          }
        : {}),
    }),
  );
}

function cursorOf(query: Query) {
  return {
    block_number: cursorInteger(query.block_number),
    index: cursorInteger(query.index),
    index_in_batch: cursorInteger(query.index_in_batch),
  };
}

/** Endpoints 8 (all token transfers) and 13 (an address's), newest first, batches one item per id. */
export function tokenTransfersRoutes(app: FastifyInstance, context: ApiContext) {
  app.get<{ Querystring: Query }>(
    "/api/v2/token-transfers",
    {
      schema: {
        ...endpointDocs.tokenTransfers,
        querystring: {
          type: "object",
          additionalProperties: false,
          properties: { type: { type: "string" }, limit: limitParameter, ...cursorProperties },
        },
      },
    },
    async (request) => {
      const types = tokenTypeList(request.query.type, tokenTypes);
      if (types === null) throw invalidTokenType();
      const rows = await listTokenTransfers(context.db, {
        types,
        cursor: cursorOf(request.query),
        limit: rowsForLimit(request.query.limit, pageSize),
      });
      return page(context, rows);
    },
  );
  app.get<{ Params: { address_hash_param: string }; Querystring: Query }>(
    "/api/v2/addresses/:address_hash_param/token-transfers",
    {
      schema: {
        ...endpointDocs.addressTokenTransfers,
        params: addressHashParams,
        querystring: {
          type: "object",
          additionalProperties: false,
          properties: {
            type: { type: "string" },
            filter: { type: "string", enum: ["to", "from"] },
            token: { type: "string", pattern: addressPattern },
            ...cursorProperties,
          },
        },
      },
    },
    async (request) => {
      const { query } = request;
      const types = tokenTypeList(query.type, tokenTypes);
      if (types === null) throw invalidTokenType();
      const rows = await listTokenTransfers(context.db, {
        address: lowerHex(request.params.address_hash_param),
        filter: query.filter,
        token: query.token === undefined ? undefined : lowerHex(query.token),
        types,
        cursor: cursorOf(query),
        limit: pageSize + 1,
      });
      return page(context, rows);
    },
  );
}
