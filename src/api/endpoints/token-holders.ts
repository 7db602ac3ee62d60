import { findTokenType } from "../../db/queries/token-balances.ts";
import { defineEndpoint } from "../define-endpoint.ts";
import { notFound } from "../errors.ts";
import { type TokenHoldersQuery, tokenHoldersPage } from "../lists/token-holders.ts";
import {
  addressCursor,
  addressHashParams,
  commonListQuery,
  lowerHex,
  uint256Cursor,
  valueCursor,
} from "../params.ts";
import { decimal, demo, integer, lowerAddress, object } from "../schemas/common.ts";
import { itemsCount, listPage, listResponses } from "../schemas/lists.ts";
import { pageJson } from "../views/token.ts";

/**
 * Endpoint 6: the holders of a token, largest balance first, then holder address descending; 404 for a
 * token not indexed.
 */
export const tokenHolders = defineEndpoint<{
  Params: { address_hash_param: string };
  Querystring: TokenHoldersQuery;
}>({
  number: 6,
  method: "GET",
  path: "/api/v2/tokens/:address_hash_param/holders",
  schema: {
    operationId: "tokenHolders",
    summary: "Holders of a token",
    description:
      "Current balances above zero, largest first, then holder address descending; the zero address is left out. ERC-1155: one row per (holder, id). `value` in `next_page_params` is a JSON number with all its digits.",
    tags: ["tokens"],
    params: addressHashParams({ description: "Token contract address.", example: demo.erc20 }),
    querystring: {
      type: "object",
      additionalProperties: false,
      properties: {
        value: valueCursor("balance of the last holder"),
        address_hash: addressCursor("address of the last holder"),
        token_id: uint256Cursor("token id of the last row (ERC-1155)"),
        ...commonListQuery,
      },
    },
    response: listResponses("TokenHoldersPage", "A page of holders.", "The token is not indexed."),
  },
  components: {
    TokenHoldersNextPageParams: {
      ...object({
        address_hash: lowerAddress("Last holder.", demo.holder.toLowerCase()),
        value: integer("Balance of the last holder, exact digits (may exceed 2^64).", 5000000000000000000),
        token_id: decimal("Token id of the last row (ERC-1155 and ERC-404 ids only).", "1"),
        items_count: itemsCount,
      }),
      required: ["address_hash", "value", "items_count"],
    },
    TokenHoldersPage: listPage("HolderItem", "TokenHoldersNextPageParams", "Holders of a token."),
  },
  handler: async ({ db }, request, reply) => {
    const token = lowerHex(request.params.address_hash_param);
    const type = await findTokenType(db, token);
    if (type === null) throw notFound();
    const page = await tokenHoldersPage(db, { token, type, query: request.query });
    return reply.type("application/json; charset=utf-8").send(pageJson(page));
  },
});
