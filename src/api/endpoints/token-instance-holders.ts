import { findTokenType } from "../../db/queries/token-balances.ts";
import { defineEndpoint } from "../define-endpoint.ts";
import { notFound } from "../errors.ts";
import { type TokenHoldersQuery, tokenHoldersPage } from "../lists/token-holders.ts";
import {
  addressCursor,
  addressPattern,
  commonListQuery,
  documented,
  lowerHex,
  uint256Cursor,
  valueCursor,
} from "../params.ts";
import { decimal, demo, integer, lowerAddress, object } from "../schemas/common.ts";
import { itemsCount, listPage, listResponses } from "../schemas/lists.ts";
import { pageJson } from "../views/token.ts";

/** Pattern of a token id path parameter (Blockscout's `token_id_param`). */
const tokenIdPattern = "^-?([1-9][0-9]*|0)$";

/**
 * Endpoint 9: the holders of one id of an NFT token, largest balance first, then holder address
 * descending; 404 for a token not indexed, and for an ERC-20 token.
 */
export const tokenInstanceHolders = defineEndpoint<{
  Params: { address_hash_param: string; token_id_param: string };
  Querystring: TokenHoldersQuery;
}>({
  number: 9,
  method: "GET",
  path: "/api/v2/tokens/:address_hash_param/instances/:token_id_param/holders",
  schema: {
    operationId: "tokenInstanceHolders",
    summary: "Holders of one token id",
    description:
      "Holders of one id of an ERC-721, ERC-1155 or ERC-404 token, largest balance first, then holder address descending. A negative id gives an empty page.",
    tags: ["tokens"],
    params: {
      type: "object",
      required: ["address_hash_param", "token_id_param"],
      properties: {
        address_hash_param: documented(
          { type: "string", pattern: addressPattern },
          { description: "Token contract address.", example: demo.erc1155 },
        ),
        token_id_param: documented(
          { type: "string", pattern: tokenIdPattern },
          { description: "Token id (decimal).", example: "1" },
        ),
      },
    },
    querystring: {
      type: "object",
      additionalProperties: false,
      properties: {
        value: valueCursor("balance of the last holder"),
        address_hash: addressCursor("address of the last holder"),
        token_id: uint256Cursor("the token id"),
        ...commonListQuery,
      },
    },
    response: listResponses(
      "TokenInstanceHoldersPage",
      "A page of holders.",
      "The token is not indexed, or is an ERC-20 token.",
    ),
  },
  components: {
    TokenInstanceHoldersNextPageParams: object({
      address_hash: lowerAddress("Last holder.", demo.holder.toLowerCase()),
      value: integer("Balance of the last holder, exact digits (may exceed 2^64).", 30),
      token_id: decimal("The token id.", "1"),
      items_count: itemsCount,
    }),
    TokenInstanceHoldersPage: listPage(
      "HolderItem",
      "TokenInstanceHoldersNextPageParams",
      "Holders of one token id.",
    ),
  },
  handler: async ({ db }, request, reply) => {
    const token = lowerHex(request.params.address_hash_param);
    const type = await findTokenType(db, token);
    if (type === null || type === "ERC-20") throw notFound();
    // Read as the integer it prints (`-0` is 0); negative ids name no NFT (-1 is where fungible balances
    // are kept).
    const id = BigInt(request.params.token_id_param);
    const page =
      id < 0n
        ? { items: [], next_page_params: null }
        : await tokenHoldersPage(db, { token, type, tokenId: id.toString(), query: request.query });
    return reply.type("application/json; charset=utf-8").send(pageJson(page));
  },
});
