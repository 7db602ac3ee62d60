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
import { addressHashParams, addressPattern, documented, lowerHex } from "../params.ts";
import { demo } from "../schemas/common.ts";
import { emptyForUnknown, listResponses } from "../schemas/lists.ts";
import { readTokenTypes, tokenTypes, tokenTypesParameter } from "../token-types.ts";

type Query = TokenTransfersCursorQuery & { type?: string; filter?: "to" | "from"; token?: string };

/** Endpoint 13: the token transfers from or to an address, newest first, a batch one item per id. */
export const addressTokenTransfers = defineEndpoint<{
  Params: { address_hash_param: string };
  Querystring: Query;
}>({
  number: 13,
  method: "GET",
  path: "/api/v2/addresses/:address_hash_param/token-transfers",
  schema: {
    operationId: "addressTokenTransfers",
    summary: "Token transfers of an address",
    description: `Token transfers from or to the address, newest first; a self-transfer appears once, an ERC-1155 batch is one item per id. ${emptyForUnknown}`,
    tags: ["addresses"],
    params: addressHashParams(),
    querystring: {
      type: "object",
      additionalProperties: false,
      properties: {
        type: tokenTypesParameter(tokenTypes),
        filter: documented(
          { type: "string", enum: ["to", "from"] },
          { description: "`to`: received; `from`: sent. Absent: both.", example: "to" },
        ),
        token: documented(
          { type: "string", pattern: addressPattern },
          { description: "Only transfers of this token contract.", example: demo.erc20 },
        ),
        ...tokenTransfersCursorQuery,
      },
    },
    response: listResponses("TokenTransfersPage", "A page of token transfers."),
  },
  components: tokenTransfersComponents,
  handler: async ({ db, ipfsPublicGateway }, request) => {
    const { query } = request;
    const types = readTokenTypes(query.type, tokenTypes);
    const rows = await listTokenTransfers(db, {
      address: lowerHex(request.params.address_hash_param),
      filter: query.filter,
      token: query.token === undefined ? undefined : lowerHex(query.token),
      types,
      cursor: tokenTransfersCursor(query),
      limit: pageSize + 1,
    });
    return tokenTransfersPage(db, rows, ipfsPublicGateway);
  },
});
