import { listTokenTransfers } from "../../db/queries/token-transfers.ts";
import { defineEndpoint } from "../define-endpoint.ts";
import {
  type TokenTransfersCursorQuery,
  tokenTransfersComponents,
  tokenTransfersCursor,
  tokenTransfersCursorQuery,
  tokenTransfersPage,
} from "../lists/token-transfers.ts";
import { pageSize } from "../paging.ts";
import { documented, limitParameter, rowsForLimit } from "../params.ts";
import { listResponses } from "../schemas/lists.ts";
import { readTokenTypes, tokenTypes, tokenTypesParameter } from "../token-types.ts";

type Query = TokenTransfersCursorQuery & { type?: string; limit?: string };

/** Endpoint 8: every token transfer of the chain, newest first, a batch one item per id. */
export const tokenTransfers = defineEndpoint<{ Querystring: Query }>({
  number: 8,
  method: "GET",
  path: "/api/v2/token-transfers",
  schema: {
    operationId: "tokenTransfers",
    summary: "Token transfers of the chain",
    description:
      "Every token transfer, newest first (block number, then log index, descending); an ERC-1155 batch is one item per id.",
    tags: ["token transfers"],
    querystring: {
      type: "object",
      additionalProperties: false,
      properties: {
        type: tokenTypesParameter(tokenTypes),
        limit: documented(limitParameter, {
          description:
            "Items wanted (Blockscout's; sign ignored): up to 50 that many and no next page; more, or absent, a page of 50.",
          example: "10",
        }),
        ...tokenTransfersCursorQuery,
      },
    },
    response: listResponses("TokenTransfersPage", "A page of token transfers."),
  },
  components: tokenTransfersComponents,
  handler: async ({ db, ipfsPublicGateway }, request) => {
    const types = readTokenTypes(request.query.type, tokenTypes);
    const rows = await listTokenTransfers(db, {
      types,
      cursor: tokenTransfersCursor(request.query),
      limit: rowsForLimit(request.query.limit, pageSize),
    });
    return tokenTransfersPage(db, rows, ipfsPublicGateway);
  },
});
